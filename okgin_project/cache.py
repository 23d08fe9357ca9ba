"""Django's Redis cache backend (``django.core.cache.backends.redis``) keeping one redis-py client
per connection pool: Django's own builds a new ``redis.Redis`` for every cache call, about 0.1 ms
of CPU each, and an action POST makes four (the rate limits' reads and writes; issue 14).

Production uses it for the rate-limit counts (``settings/production.py``, ``CACHES``); errors,
timeouts and options are Django's, except ``incr``: one atomic script instead of Django's EXISTS
then INCR, which, when the key expired between the two, re-created it with no timeout (Redis INCR
on a missing key), so a per-minute count never expired again. ``window_hit`` is the rate limits'
sliding-window count (``okgin_project.throttling``) as one script, and ``window_hits`` all the
scopes of a request in one: one round trip per request.
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

    def window_hits(self, windows):
        """``okgin_project.throttling.window_hits``: each window of ``windows`` (tuples of
        ``window_hit``'s arguments, keys already made) counted on its own, all in one script (one
        round trip: a request's rate-limit scopes, issue 14). Returns a list of ``(let through,
        this window's count, the previous window's)``."""
        client = self.get_client(windows[0][0], write=True)
        script = self._window_script
        if script is None:
            script = self._window_script = client.register_script(_WINDOW_HITS)
        keys, args = [], []
        for key, before_key, limit, before_weight, timeout in windows:
            keys += [key, before_key]
            args += [limit, repr(float(before_weight)), int(timeout * 1000)]
        flat = script(keys=keys, args=args, client=client)
        return [(bool(flat[i]), int(flat[i + 1]), int(flat[i + 2])) for i in range(0, len(flat), 3)]


# INCRBY only if the key exists (a Lua script runs as one command: no expiry in between).
_INCR_IF_EXISTS = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end"


# Sliding-window rate counts (okgin_project.throttling.window_hits), one window after another,
# each on its own. For window i (from 0): KEYS[2i+1] this window's count, KEYS[2i+2] the previous
# window's; ARGV[3i+1] the limit, ARGV[3i+2] the previous window's weight, ARGV[3i+3] this window's
# expiry in ms. A request is counted (INCR, expiry set by the first) in a window only when that
# window lets it through. Returns {let through (1 or 0), this window's count, the previous
# window's} for each window, flat.
_WINDOW_HITS = """
local out = {}
for i = 0, #KEYS / 2 - 1 do
  local key, before_key = KEYS[2 * i + 1], KEYS[2 * i + 2]
  local current = tonumber(redis.call('GET', key) or '0')
  local before = tonumber(redis.call('GET', before_key) or '0')
  local allowed = 0
  if before * tonumber(ARGV[3 * i + 2]) + current < tonumber(ARGV[3 * i + 1]) then
    allowed = 1
    current = redis.call('INCR', key)
    if current == 1 then
      redis.call('PEXPIRE', key, ARGV[3 * i + 3])
    end
  end
  out[#out + 1] = allowed
  out[#out + 1] = current
  out[#out + 1] = before
end
return out
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
        return self.window_hits([(key, before_key, limit, before_weight, timeout)])[0]

    def window_hits(self, windows):
        """``okgin_project.throttling.window_hits`` for this cache: every window in one script on
        Redis. Returns a list of ``window_hit``'s answers; raises redis-py's errors when Redis does
        not answer."""
        made = self.make_and_validate_key
        return self._cache.window_hits([(made(key), made(before_key), limit, weight, timeout)
                                        for key, before_key, limit, weight, timeout in windows])
