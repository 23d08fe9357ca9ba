"""Request rate limits (DRF throttling) with rates read from ``settings.OKGIN_THROTTLE_RATES`` at
each request (so they come from the environment and tests can change them).

Scopes: ``anon`` (per client IP, unauthenticated requests), ``user`` (per player, every
authenticated request), ``auth`` (per IP: register, token, token refresh), ``actions`` (per
player: game actions). A rate is ``"<n>/<s|min|hour|day>"``; None switches the scope off.
Counts live in the default cache (per process with the local-memory cache of the embedded
default; Redis in production). Over the limit: 429 ``throttled`` with ``Retry-After`` seconds.
While that cache is unreachable (Redis down) the limits fail over to a counter in process memory
(each web process then counts on its own) and a warning is logged; requests are never refused
because the counter store is down (``okgin_project.degraded``).
The client IP is ``REMOTE_ADDR`` unless ``NUM_PROXIES`` trusted proxies add X-Forwarded-For.
"""
from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from okgin_project.degraded import cache_breaker, redis_errors

# Counts kept while the shared cache is unreachable (per process, forgotten on restart).
local_counts = LocMemCache("okgin-throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 10000}})


class _RateFromSettings:
    def get_rate(self):
        return settings.OKGIN_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        """DRF's check against the shared cache; while it is unreachable, against ``local_counts``."""
        if not cache_breaker.is_open():
            try:
                allowed = super().allow_request(request, view)
            except redis_errors() as exc:
                cache_breaker.failed(exc, "rate limits count in each process's memory until it is back")
            else:
                if "history" in self.__dict__:  # (DRF read the cache: the scope has a rate and a key)
                    cache_breaker.succeeded()
                return allowed
        self.cache = local_counts
        return super().allow_request(request, view)


class AnonThrottle(_RateFromSettings, AnonRateThrottle):
    """``anon``: unauthenticated requests per IP."""


class UserThrottle(_RateFromSettings, UserRateThrottle):
    """``user``: authenticated requests per player."""


class ScopedThrottle(_RateFromSettings, ScopedRateThrottle):
    """The view's ``throttle_scope`` (``auth``, ``actions``)."""
