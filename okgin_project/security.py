"""Small security helpers shared by the rate limits and the admin login lockout (django-axes)."""
from __future__ import annotations

from rest_framework.throttling import BaseThrottle


def client_ip(request) -> str:
    """The client's IP address as the rate limits see it: ``REMOTE_ADDR``, or with ``NUM_PROXIES``
    trusted proxies in front, the address they appended to X-Forwarded-For (DRF's rule), so a
    client cannot pick its own address by sending the header. Used as ``AXES_CLIENT_IP_CALLABLE``."""
    return BaseThrottle().get_ident(request)


from axes.backends import AxesStandaloneBackend  # noqa: E402


class AdminLoginLockout(AxesStandaloneBackend):
    """django-axes' backend, skipped for logins made without a request (``Client.login`` in tests,
    the shell), which it would refuse with ``AxesBackendRequestParameterRequired``; the admin
    login always passes its request."""

    def authenticate(self, request=None, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
