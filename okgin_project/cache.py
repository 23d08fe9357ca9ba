"""Django's Redis cache backend (``django.core.cache.backends.redis``) keeping one redis-py client
per connection pool: Django's own builds a new ``redis.Redis`` for every cache call, about 0.1 ms
of CPU each, and an action POST makes four (the rate limits' reads and writes; issue 14).

Production uses it for the rate-limit counts (``settings/production.py``, ``CACHES``); errors,
timeouts and options are Django's.
"""
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


class RedisCacheClient(DjangoRedisCacheClient):
    """Django's client, returning the same thread-safe ``redis.Redis`` for a given connection pool."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}  # id of a connection pool -> its redis.Redis

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    """``BACKEND: "okgin_project.cache.RedisCache"``: Django's ``RedisCache`` with the client above."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
