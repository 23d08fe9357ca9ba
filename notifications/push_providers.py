"""The push providers' client libraries, configured from settings (``docs/configuration.md``).

django-push-notifications sends FCM through firebase-admin's default app and APNs through
aioapns (its ``apns_async`` backend, used whenever aioapns is installed). What it does not
configure is done here, once per process (``NotificationsConfig.ready``):

- FCM: the default Firebase app from the service-account file ``FCM_CREDENTIALS_FILE`` (its
  ``token_uri`` is where firebase-admin exchanges the account's signed JWT for an OAuth access
  token). ``FCM_ENDPOINT`` (a base URL, default firebase-admin's ``https://fcm.googleapis.com``)
  replaces the host of FCM HTTP v1 ``/v1/projects/{project}/messages:send``: firebase-admin has no
  setting for it, so the URL template ``messaging._MessagingService.FCM_URL`` (a class attribute
  read when the app's messaging client is made) is set.
- APNs: credentials and topic are the library's ``PUSH_NOTIFICATIONS_SETTINGS`` ``APNS_*`` keys
  (settings ``APNS_AUTH_KEY_FILE``... in ``okgin_project/settings/base.py``). ``APNS_ENDPOINT``
  (``host:port``, default Apple's ``api.push.apple.com:443`` or, with ``APNS_USE_SANDBOX``,
  ``api.development.push.apple.com:443``) sets aioapns's ``APNS_SERVER`` and ``APNS_PORT``
  class attributes of its production and development protocols, which it connects to (and sends
  as the ``host`` header). aioapns verifies the server's certificate with Python's default
  trust store, so a server with a private CA is trusted through ``SSL_CERT_FILE``.

The endpoints exist for tests (the fakes of ``tests/notifications/fake_providers.py``) and for a
deployment that relays pushes; production leaves them unset.
"""
from __future__ import annotations

import logging

from django.conf import settings

logger = logging.getLogger(__name__)

FCM_SEND_PATH = "/v1/projects/{0}/messages:send"  # firebase-admin's own path (FCM HTTP v1)
APNS_HOSTS = {"production": "api.push.apple.com", "development": "api.development.push.apple.com"}
APNS_PORT = 443

_fcm_url_default: str | None = None


def push_providers_configure() -> None:
    """Configure firebase-admin and aioapns from the settings (see the module doc); a library that
    is not installed is skipped (its pushes then fail with ``provider_not_configured``). Safe to
    call again after the settings changed (tests): the default Firebase app is made anew."""
    _fcm_configure()
    _apns_configure()


def _fcm_configure() -> None:
    global _fcm_url_default
    if not (settings.OKGIN_FCM_CREDENTIALS_FILE or settings.OKGIN_FCM_ENDPOINT or _fcm_url_default):
        return  # nothing to set up, nor set up before: firebase-admin is not even imported
    try:
        import firebase_admin
        from firebase_admin import credentials, messaging
    except ImportError:
        if settings.OKGIN_FCM_CREDENTIALS_FILE:
            logger.error("FCM_CREDENTIALS_FILE is set but firebase-admin is not installed (extra 'fcm')")
        return
    if _fcm_url_default is None:
        _fcm_url_default = messaging._MessagingService.FCM_URL
    endpoint = settings.OKGIN_FCM_ENDPOINT.rstrip("/")
    messaging._MessagingService.FCM_URL = endpoint + FCM_SEND_PATH if endpoint else _fcm_url_default
    if firebase_admin._DEFAULT_APP_NAME in firebase_admin._apps:
        firebase_admin.delete_app(firebase_admin.get_app())  # its messaging client has the old URL
    if settings.OKGIN_FCM_CREDENTIALS_FILE:
        firebase_admin.initialize_app(credentials.Certificate(settings.OKGIN_FCM_CREDENTIALS_FILE))


_apns_endpoint_set = False


def _apns_configure() -> None:
    global _apns_endpoint_set
    if not (settings.OKGIN_APNS_ENDPOINT or _apns_endpoint_set):
        return  # aioapns keeps Apple's servers; it is not imported before the first push
    try:
        from aioapns import connection
    except ImportError:
        return
    _apns_endpoint_set = bool(settings.OKGIN_APNS_ENDPOINT)
    host, _, port = settings.OKGIN_APNS_ENDPOINT.rpartition(":") if settings.OKGIN_APNS_ENDPOINT else ("", "", "")
    for protocol, kind in ((connection.APNsProductionClientProtocol, "production"),
                           (connection.APNsDevelopmentClientProtocol, "development")):
        protocol.APNS_SERVER = host or APNS_HOSTS[kind]
        protocol.APNS_PORT = int(port) if port else APNS_PORT
