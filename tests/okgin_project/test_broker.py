"""okgin_project.broker: the Celery transport's channel keeps one Redis client per connection pool
(issue 14) and still refuses to run after its connection was closed (the worker-crash fix)."""
import pytest
import redis
from django.conf import settings
from kombu import Connection
from redis.exceptions import ConnectionError as RedisConnectionError

QUEUE = "okgin-test-broker-channel"


@pytest.fixture
def connection():
    conn = Connection(settings.REDIS_URL, transport="okgin_project.broker:Transport")
    yield conn
    client = conn.transport.client
    conn.transport.client = conn  # (closed by the second test)
    conn.channel()._purge(QUEUE)
    conn.transport.client = client
    conn.close()


def _count_clients(monkeypatch) -> list:
    made = []
    init = redis.Redis.__init__

    def counting(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(redis.Redis, "__init__", counting)
    return made


def test_commands_share_one_client_until_the_pool_is_replaced(connection, monkeypatch):
    channel = connection.channel()
    channel._purge(QUEUE)
    with channel.conn_or_acquire() as first:
        pass
    made = _count_clients(monkeypatch)
    for i in range(3):
        channel._put(QUEUE, {"body": f"m{i}"})
    assert channel._size(QUEUE) == 3  # all three delivered
    with channel.conn_or_acquire() as again:
        pass
    assert made == [] and again is first and first.connection_pool is channel.pool
    channel._disconnect_pools()  # what kombu does after a connection error
    channel._put(QUEUE, {"body": "m3"})
    with channel.conn_or_acquire() as after:
        pass
    assert after is not first and after.connection_pool is channel.pool and after in made
    assert [channel._get(QUEUE)["body"] for _ in range(4)] == ["m0", "m1", "m2", "m3"]


def test_a_channel_whose_connection_was_closed_raises_connection_error(connection):
    """kombu's ``Connection.close()`` drops the pools and sets the transport's client to None while a
    running task may still acknowledge on the old channel: a lost connection, not AttributeError."""
    channel = connection.channel()
    channel._put(QUEUE, {"body": "m0"})
    channel._disconnect_pools()
    channel.connection.client = None
    with pytest.raises(RedisConnectionError):
        channel._put(QUEUE, {"body": "m1"})
