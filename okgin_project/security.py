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


from axes.handlers.database import AxesDatabaseHandler  # noqa: E402


class AdminOnlyAxesHandler(AxesDatabaseHandler):
    """django-axes' database handler, deaf to failed logins outside the admin site (``AXES_HANDLER``).

    ``AXES_ONLY_ADMIN_SITE`` only stops axes from *refusing* other logins; its ``user_login_failed``
    handler still counted them. Without this class, 5 wrong passwords at the API's
    ``/api/v1/auth/token/`` locked that user name (and the address) out of ``/admin/`` for 15
    minutes. Here a failed login that did not come through the admin site writes nothing and
    counts toward no lockout; the API login has its own rate limit (``THROTTLE_AUTH``). (The API
    sends no ``user_logged_in``: JWT logins make no session.)"""

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        if request is not None and self.is_admin_request(request):
            return super().user_login_failed(sender, credentials, request, **kwargs)
        return None
