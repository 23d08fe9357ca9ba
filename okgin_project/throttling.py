"""Request rate limits (DRF throttle classes) with rates read from ``settings.OKGIN_THROTTLE_RATES``
at each request (so they come from the environment and tests can change them).

Scopes: ``anon`` (per client IP, unauthenticated requests), ``user`` (per player, every
authenticated request), ``auth`` (per IP: register, token, token refresh), ``actions`` (per
player: game actions). A rate is ``"<n>/<s|min|hour|day>"``; None switches the scope off.
Over the limit: 429 ``throttled`` with ``Retry-After`` seconds.

Counting: a sliding-window counter, one cache entry per scope, client and window of the rate's
period (``<DRF's key>:<window number>``, kept two periods). A request is let through when the
previous window's count, weighted by the share of that window still inside the last period,
plus this window's count stays below ``n``; only requests let through are counted. This is the
standard estimate of "n requests in any period" (exact when requests are spread evenly; never
lets through more than ``n`` in one window, nor more than ``2n`` in any period), and with Redis it
is one round trip for all the scopes of a request (``okgin_project.cache.RedisCache.window_hits``, a
script), where
DRF's own log of timestamps was a read and a write of a pickled list of up to ``n`` floats
(issue 14). Counts live in the default cache (per process with the local-memory cache of the
embedded default; Redis in production). While that cache is unreachable (Redis down) the limits
fail over to a counter in process memory (each web process then counts on its own) and a warning
is logged; requests are never refused because the counter store is down
(``okgin_project.degraded``).
The client IP is ``REMOTE_ADDR`` unless ``NUM_PROXIES`` trusted proxies add X-Forwarded-For.
"""
from __future__ import annotations

import threading

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from okgin_project.degraded import cache_breaker, redis_errors

# Counts kept while the shared cache is unreachable (per process, forgotten on restart).
local_counts = LocMemCache("okgin-throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 10000}})
_local_lock = threading.Lock()  # makes a count in a cache without ``window_hit`` atomic in this process


def window_hit(cache, key: str, before_key: str, limit: int, before_weight: float,
               timeout: int) -> tuple[bool, int, int]:
    """Count one request in the window ``key`` if ``before_weight`` x the previous window's count
    (``before_key``) + this window's count is below ``limit``. ``timeout``: seconds the window's
    count is kept. Returns ``(let through, this window's count, the previous window's count)``,
    the count after this request when it was let through. A cache with its own ``window_hit``
    (Redis: one script) counts atomically across processes; any other counts under a lock of this
    process (local memory). Raises whatever the cache raises when it is unreachable."""
    own = getattr(cache, "window_hit", None)
    if own is not None:
        return own(key, before_key, limit, before_weight, timeout)
    with _local_lock:
        counts = cache.get_many([key, before_key])
        current, before = counts.get(key, 0), counts.get(before_key, 0)
        if before * before_weight + current >= limit:
            return False, current, before
        current = 1 if cache.add(key, 1, timeout) else cache.incr(key)
        return True, current, before


def window_hits(cache, windows) -> list[tuple[bool, int, int]]:
    """``window_hit`` for each of ``windows`` (tuples of its arguments after ``cache``), each
    window counted on its own; a list of its answers. A cache with its own ``window_hits`` (Redis:
    one script) counts them all in one round trip. Raises whatever the cache raises when it is
    unreachable."""
    own = getattr(cache, "window_hits", None)
    if own is not None:
        return own(windows)
    return [window_hit(cache, *window) for window in windows]


class _CountedRate:
    """The counting of every scope (see the module docstring); DRF's classes below give the scope
    and the client's key (``get_cache_key``). After ``allow_request`` returned False, ``wait``
    gives the seconds until a request would be let through again (at least 1)."""

    def __init__(self):
        pass  # the rate is read at each request (``get_rate``), not when the class is built

    def get_rate(self):
        return settings.OKGIN_THROTTLE_RATES.get(self.scope)

    def window(self, request, view):
        """This scope's window for ``request``: ``window_hit``'s arguments after the cache (this
        window's key, the previous one's, the limit, the previous window's weight, the keys'
        lifetime in seconds), or None when the scope does not apply (switched off, not the view's
        scope, an authenticated request for ``anon``). Sets the rate and the share of the window
        gone, which ``wait`` uses. Every scope of a request is counted at one time,
        ``request.okgin_rate_now`` (the first scope's clock)."""
        scope_attr = getattr(self, "scope_attr", None)
        if scope_attr is not None:  # ScopedRateThrottle: the view's ``throttle_scope``, if any
            self.scope = getattr(view, scope_attr, None)
            if not self.scope:
                return None
        rate = self.get_rate()
        if rate is None:
            return None
        self.num_requests, self.duration = self.parse_rate(rate)
        key = self.get_cache_key(request, view)
        if key is None:
            return None
        now = getattr(request, "okgin_rate_now", None)
        if now is None:
            now = request.okgin_rate_now = self.timer()
        window, into = divmod(now, self.duration)
        self.elapsed = into / self.duration  # share of this window gone, 0 <= elapsed < 1
        return (f"{key}:{int(window)}", f"{key}:{int(window) - 1}", self.num_requests, 1.0 - self.elapsed,
                2 * self.duration)

    def allow_request(self, request, view):
        window = self.window(request, view)
        if window is None:
            return True
        allowed, self.current, self.before = self._counted(request, view, window)
        return allowed

    def _counted(self, request, view, window):
        """``window_hit``'s answer for ``window``. The first scope of a request that is asked
        counts every scope of the view's throttles (DRF asks each of them in turn, and each is
        counted on its own whatever the others answer) in one ``window_hits`` call, one Redis
        round trip instead of one per scope (issue 14), and keeps the answers on the request
        (``okgin_rate_counts``: per window key, in the throttles' order, each answer taken once)
        for the others. Two throttles with the same key are counted twice, as DRF counts them; a
        window not among the view's throttles is counted on its own."""
        counted = getattr(request, "okgin_rate_counts", None)
        if counted is None:
            windows = [w for throttle in view.get_throttles() if isinstance(throttle, _CountedRate)
                       for w in [throttle.window(request, view)] if w is not None]
            counted = request.okgin_rate_counts = {}
            for each, hit in zip(windows, self._hits(windows) if windows else []):
                counted.setdefault(each[0], []).append(hit)
        answers = counted.get(window[0])
        if not answers:
            return self._hits([window])[0]
        return answers.pop(0)

    def _hits(self, windows):
        """``window_hits`` on the shared cache, or on this process's counts while it is unreachable."""
        if not cache_breaker.is_open():
            try:
                hits = window_hits(self.cache, windows)
            except redis_errors() as exc:
                cache_breaker.failed(exc, "rate limits count in each process's memory until it is back")
            else:
                cache_breaker.succeeded()
                return hits
        return window_hits(local_counts, windows)

    def wait(self) -> float:
        """Seconds until the estimate falls below the limit (when this window's count alone
        reaches it: into the next window, until the weight of this one has fallen enough)."""
        limit, current, before = self.num_requests, self.current, self.before
        if current >= limit:  # the next window, once current x (1 - share gone) < limit
            share = 1.0 - self.elapsed + (1.0 - limit / current)
        else:  # this window, once before x (1 - share gone) + current < limit
            share = max(0.0, (1.0 - (limit - current) / before) - self.elapsed) if before else 0.0
        return max(1.0, share * self.duration)


class AnonThrottle(_CountedRate, AnonRateThrottle):
    """``anon``: unauthenticated requests per IP."""


class UserThrottle(_CountedRate, UserRateThrottle):
    """``user``: authenticated requests per player."""


class ScopedThrottle(_CountedRate, ScopedRateThrottle):
    """The view's ``throttle_scope`` (``auth``, ``actions``)."""
