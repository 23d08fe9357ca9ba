"""Django's Redis cache backend (``django.core.cache.backends.redis``) keeping one redis-py client
per connection pool: Django's own builds a new ``redis.Redis`` for every cache call, about 0.1 ms
of CPU each, and an action POST makes four (the rate limits' reads and writes; issue 14).

Production uses it for the rate-limit counts (``settings/production.py``, ``CACHES``); errors,
timeouts and options are Django's, except ``incr``: one atomic script instead of Django's EXISTS
then INCR, which, when the key expired between the two, re-created it with no timeout (Redis INCR
on a missing key), so a per-minute count never expired again. ``window_hit`` is the rate limits'
sliding-window count (``okgin_project.throttling``) as one script: one round trip per scope.
"""
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


class RedisCacheClient(DjangoRedisCacheClient):
    """Django's client, returning the same thread-safe ``redis.Redis`` for a given connection pool."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}  # id of a connection pool -> its redis.Redis
        self._window_script = None  # redis-py Script of _WINDOW_HIT (EVALSHA, loaded again if Redis forgot it)

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

    def window_hit(self, key, before_key, limit, before_weight, timeout):
        """``okgin_project.throttling.window_hit`` in one script (atomic, one round trip): the
        keys are already made (prefix, version)."""
        script = self._window_script
        if script is None:
            script = self._window_script = self.get_client(key, write=True).register_script(_WINDOW_HIT)
        args = [limit, repr(float(before_weight)), int(timeout * 1000)]
        allowed, current, before = script(keys=[key, before_key], args=args, client=self.get_client(key, write=True))
        return bool(allowed), int(current), int(before)


# INCRBY only if the key exists (a Lua script runs as one command: no expiry in between).
_INCR_IF_EXISTS = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end"


# A sliding-window rate count (okgin_project.throttling.window_hit). KEYS: this window's count, the
# previous window's; ARGV: the limit, the previous window's weight, this window's expiry in ms.
# The request is counted (INCR, expiry set by the first) only when it is let through.
_WINDOW_HIT = """
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local before = tonumber(redis.call('GET', KEYS[2]) or '0')
if before * tonumber(ARGV[2]) + current >= tonumber(ARGV[1]) then
  return {0, current, before}
end
current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return {1, current, before}
"""


class RedisCache(DjangoRedisCache):
    """``BACKEND: "okgin_project.cache.RedisCache"``: Django's ``RedisCache`` with the client above."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient

    def window_hit(self, key, before_key, limit, before_weight, timeout):
        """``okgin_project.throttling.window_hit`` for this cache: one script on Redis. Returns
        ``(let through, this window's count, the previous window's)``; raises redis-py's errors
        when Redis does not answer."""
        return self._cache.window_hit(self.make_and_validate_key(key), self.make_and_validate_key(before_key),
                                      limit, before_weight, timeout)
