"""Django's Redis cache backend (``django.core.cache.backends.redis``) keeping one redis-py client
per connection pool: Django's own builds a new ``redis.Redis`` for every cache call, about 0.1 ms
of CPU each, and an action POST makes four (the rate limits' reads and writes; issue 14).

Production uses it for the rate-limit counts (``settings/production.py``, ``CACHES``); errors,
timeouts and options are Django's, except ``incr``: one atomic script instead of Django's EXISTS
then INCR, which, when the key expired between the two, re-created it with no timeout (Redis INCR
on a missing key), so a per-minute count never expired again.
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

    def incr(self, key, delta):
        """Add ``delta`` to the integer at ``key`` and return the new value, keeping the key's
        timeout. Raises ``ValueError`` when the key does not exist (Django's contract), creating
        nothing. Atomic: the key cannot expire between the check and the increment."""
        value = self.get_client(key, write=True).eval(_INCR_IF_EXISTS, 1, key, delta)
        if value is None:
            raise ValueError("Key '%s' not found." % key)
        return value


# INCRBY only if the key exists (a Lua script runs as one command: no expiry in between).
_INCR_IF_EXISTS = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end"


class RedisCache(DjangoRedisCache):
    """``BACKEND: "okgin_project.cache.RedisCache"``: Django's ``RedisCache`` with the client above."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient
