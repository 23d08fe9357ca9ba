"""Outbound webhook HTTP: which URLs may be called, and one POST to an address checked first.

A player chooses the URL, so the server must not become a way to reach its own network (SSRF):
the host is resolved and every address it resolves to must be public: not loopback, private,
link-local (which holds the cloud metadata address 169.254.169.254), shared (100.64/10),
multicast, reserved or unspecified; IPv4-mapped IPv6 addresses are judged as IPv4. The check runs
when the URL is registered and again at every delivery, and the POST connects to the very address
that was checked (no second DNS lookup that could answer differently). Redirects are not
followed. ``OKGIN_WEBHOOK_ALLOW_PRIVATE`` (setting, env ``WEBHOOK_ALLOW_PRIVATE``; default False)
lifts the address check, for tests with a loopback receiver only.

Errors shown to the player are categories, never the raw socket error: ``address_forbidden``,
``dns_failed``, ``connection_failed``, ``timeout``, ``tls_failed``, ``http_<status>``.
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from okgin_project.errors import ServiceError

# Cloud metadata services that are not caught by the ranges above on every platform.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)


class WebhookUrlForbidden(ServiceError):
    """The webhook URL's host is, or resolves to, an address the server must not call
    (400 ``webhook_url_forbidden``)."""

    code = "webhook_url_forbidden"
    default_message = "Webhook URLs must point to a public internet address."


@dataclass(frozen=True)
class Target:
    """A checked webhook URL: ``scheme`` (http/https), ``host`` (as written, for Host and TLS),
    ``port``, request ``path`` (with query) and the checked ``addresses`` to connect to."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


def address_forbidden(address: str) -> bool:
    """True if ``address`` (an IPv4/IPv6 literal) is not a public unicast internet address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (
        ip in METADATA_ADDRESSES
        or ip.is_loopback
        or ip.is_private
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


def _resolve(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (IP literals resolve to themselves). Raises OSError."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


def _split(url: str) -> tuple[str, str, int, str]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ServiceError("The webhook URL is not a valid URL.", code="bad_url") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServiceError("The webhook URL must be an http or https URL.", code="bad_url")
    if parts.username is not None or parts.password is not None:
        raise ServiceError("The webhook URL must not carry a user name or password.", code="bad_url")
    port = port or (443 if parts.scheme == "https" else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def webhook_target(url: str) -> Target:
    """Check ``url`` and resolve its host: returns the :class:`Target` to POST to.

    Raises ``ServiceError`` ``bad_url`` (not http(s), credentials, unparsable),
    ``WebhookUrlForbidden`` (the host does not resolve, or any of its addresses is not public;
    unless ``OKGIN_WEBHOOK_ALLOW_PRIVATE``).
    """
    scheme, host, port, path = _split(url)
    try:
        addresses = _resolve(host, port)
    except (OSError, UnicodeError):
        raise WebhookUrlForbidden("The webhook URL's host does not resolve.") from None
    if not addresses:
        raise WebhookUrlForbidden("The webhook URL's host does not resolve.")
    if not settings.OKGIN_WEBHOOK_ALLOW_PRIVATE and any(address_forbidden(a) for a in addresses):
        raise WebhookUrlForbidden()
    return Target(scheme=scheme, host=host, port=port, path=path, addresses=tuple(addresses))


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to ``address`` while Host names the URL's host."""

    def __init__(self, host, port, *, address, timeout):
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self):
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to ``address``, verifying the certificate of the URL's host."""

    def __init__(self, host, port, *, address, timeout):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def webhook_post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int | None, str]:
    """POST ``body`` to ``url`` once (no redirects followed; ``OKGIN_WEBHOOK_TIMEOUT_SECONDS``).

    Returns ``(status_code, "")`` for any HTTP answer below 300, ``(status_code, "http_<code>")``
    for other answers (3xx included), ``(None, category)`` when there was none: category one of
    ``bad_url``, ``address_forbidden``, ``dns_failed``, ``connection_failed``, ``timeout``,
    ``tls_failed``. Raises nothing for network trouble.
    """
    try:
        target = webhook_target(url)
    except WebhookUrlForbidden as exc:
        return None, "dns_failed" if "resolve" in exc.message else "address_forbidden"
    except ServiceError:
        return None, "bad_url"
    cls = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    conn = cls(target.host, target.port, address=target.addresses[0],
               timeout=settings.OKGIN_WEBHOOK_TIMEOUT_SECONDS)
    try:
        conn.request("POST", target.path, body=body, headers=headers)
        status = conn.getresponse().status
    except (TimeoutError, socket.timeout):
        return None, "timeout"
    except ssl.SSLError:
        return None, "tls_failed"
    except (OSError, http.client.HTTPException):
        return None, "connection_failed"
    finally:
        conn.close()
    return status, "" if status < 300 else f"http_{status}"
