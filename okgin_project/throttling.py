"""Request rate limits (DRF throttling) with rates read from ``settings.OKGIN_THROTTLE_RATES`` at
each request (so they come from the environment and tests can change them).

Scopes: ``anon`` (per client IP, unauthenticated requests), ``user`` (per player, every
authenticated request), ``auth`` (per IP: register, token, token refresh), ``actions`` (per
player: game actions). A rate is ``"<n>/<s|min|hour|day>"``; None switches the scope off.
Counts live in the default cache (per process with the local-memory cache of the embedded
default; Redis in production). Over the limit: 429 ``throttled`` with ``Retry-After`` seconds.
The client IP is ``REMOTE_ADDR`` unless ``NUM_PROXIES`` trusted proxies add X-Forwarded-For.
"""
from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle


class _RateFromSettings:
    def get_rate(self):
        return settings.OKGIN_THROTTLE_RATES.get(self.scope)


class AnonThrottle(_RateFromSettings, AnonRateThrottle):
    """``anon``: unauthenticated requests per IP."""


class UserThrottle(_RateFromSettings, UserRateThrottle):
    """``user``: authenticated requests per player."""


class ScopedThrottle(_RateFromSettings, ScopedRateThrottle):
    """The view's ``throttle_scope`` (``auth``, ``actions``)."""
