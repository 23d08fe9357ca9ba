"""Outbound webhook HTTP: which URLs may be called, and one POST to an address checked first.

A player chooses the URL, so the server must not become a way to reach its own network (SSRF):
the host is resolved and every address it resolves to must be public: not loopback, private,
link-local (which holds the cloud metadata address 169.254.169.254), shared (100.64/10),
multicast, reserved or unspecified; IPv6 forms of an IPv4 address (mapped, NAT64, 6to4) are judged
by that address and Teredo tunnels are refused. Only ports 80 and 443 unless
``OKGIN_WEBHOOK_PORTS`` (env ``WEBHOOK_PORTS``, e.g. ``80,443,8443`` or ``any``) says more. The check runs
when the URL is registered and again at every delivery, and the POST connects to the very address
that was checked (no second DNS lookup that could answer differently). Redirects are not
followed. ``OKGIN_WEBHOOK_ALLOW_PRIVATE`` (setting, env ``WEBHOOK_ALLOW_PRIVATE``; default False)
lifts the address check, for tests with a loopback receiver only.

Errors shown to the player are categories, never the raw socket error: ``address_forbidden``,
``port_forbidden``, ``dns_failed``, ``connection_failed``, ``timeout``, ``tls_failed``, ``http_<status>``.
"""
from __future__ import annotations

import hashlib
import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from okgin_project.errors import ServiceError

# Cloud metadata services that are not caught by the ranges above on every platform.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)


class WebhookUrlForbidden(ServiceError):
    """The webhook URL's host is, or resolves to, an address the server must not call, or its port
    is not allowed (400 ``webhook_url_forbidden``). ``category``: ``address_forbidden``,
    ``dns_failed`` or ``port_forbidden`` (what a delivery records)."""

    code = "webhook_url_forbidden"
    default_message = "Webhook URLs must point to a public internet address."

    def __init__(self, message: str | None = None, *, category: str = "address_forbidden") -> None:
        super().__init__(message)
        self.category = category


@dataclass(frozen=True)
class Target:
    """A checked webhook URL: ``scheme`` (http/https), ``host`` (as written, for Host and TLS),
    ``port``, request ``path`` (with query) and the checked ``addresses`` to connect to."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


NAT64_PREFIX = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix
TEREDO_PREFIX = ipaddress.ip_network("2001::/32")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated ::a.b.c.d form


def _ipv4_inside(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for when it is a translation of one: IPv4-mapped
    (``::ffff:a.b.c.d``), NAT64 (``64:ff9b::a.b.c.d``), 6to4 (``2002:aabb:ccdd::/48``) or
    IPv4-compatible (``::a.b.c.d``); None otherwise."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in NAT64_PREFIX or (ip in IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_forbidden(address: str) -> bool:
    """True if ``address`` (an IPv4/IPv6 literal) is not a public unicast internet address.

    IPv6 forms that carry an IPv4 address (IPv4-mapped, NAT64, 6to4, IPv4-compatible) are judged
    by that IPv4 address (``http://[2002:7f00:1::]/`` is loopback); Teredo (``2001::/32``), a
    tunnel whose far end the relay decides, is always refused.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if ip.version == 6:
        if ip in TEREDO_PREFIX:
            return True
        inside = _ipv4_inside(ip)
        if inside is not None:
            ip = inside
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


def webhook_url_normal(url: str) -> str:
    """``url`` in one spelling per destination, the form webhooks are stored and compared in:
    scheme and host in lower case, the scheme's default port left out, no fragment (never sent),
    no empty query, the path ``/`` when empty (``HTTP://Example.com:80/x#y`` is
    ``http://example.com/x``). Raises ``ServiceError`` ``bad_url`` as :func:`webhook_target`."""
    scheme, host, port, path = _split(url)
    host = f"[{host}]" if ":" in host else host  # an IPv6 address
    default = 443 if scheme == "https" else 80
    return f"{scheme}://{host}{'' if port == default else f':{port}'}{path}"


def webhook_target(url: str) -> Target:
    """Check ``url`` and resolve its host: returns the :class:`Target` to POST to.

    Raises ``ServiceError`` ``bad_url`` (not http(s), credentials, unparsable),
    ``WebhookUrlForbidden`` (a port not in ``OKGIN_WEBHOOK_PORTS``; the host does not resolve, or
    any of its addresses is not public, unless ``OKGIN_WEBHOOK_ALLOW_PRIVATE``).
    """
    scheme, host, port, path = _split(url)
    allowed_ports = settings.OKGIN_WEBHOOK_PORTS
    if allowed_ports is not None and port not in allowed_ports:
        raise WebhookUrlForbidden(
            f"Webhook URLs may use port {' or '.join(map(str, sorted(allowed_ports)))} only.",
            category="port_forbidden")
    try:
        addresses = _resolve(host, port)
    except (OSError, UnicodeError):
        raise WebhookUrlForbidden("The webhook URL's host does not resolve.", category="dns_failed") from None
    if not addresses:
        raise WebhookUrlForbidden("The webhook URL's host does not resolve.", category="dns_failed")
    if not settings.OKGIN_WEBHOOK_ALLOW_PRIVATE and any(address_forbidden(a) for a in addresses):
        raise WebhookUrlForbidden()
    return Target(scheme=scheme, host=host, port=port, path=path, addresses=tuple(addresses))


def destination_wait(url: str) -> float:
    """Seconds to wait before POSTing to ``url``'s destination (host and port), 0.0 to go now.

    Counts POSTs per destination in the shared cache (Redis in production), whoever registered the
    URL, in windows of a minute from the first POST: at most
    ``OKGIN_WEBHOOK_PER_DESTINATION_PER_MINUTE``; beyond that, the seconds until the window ends. Each call that returns 0.0 counts one POST. While the cache is
    unreachable nothing is counted and the POST may go (logged once, ``okgin_project.degraded``).
    """
    from django.core.cache import cache

    from okgin_project.degraded import cache_breaker, redis_errors

    try:
        _scheme, host, port, _path = _split(url)
    except ServiceError:
        return 0.0  # refused by the address check that follows
    if cache_breaker.is_open():
        return 0.0
    now = time.time()
    key = "okgin:webhook-destination:" + hashlib.sha256(f"{host.lower()}:{port}".encode()).hexdigest()[:32]
    try:  # a window opens with the first POST and lasts a minute
        cache.add(key + ":start", now, timeout=60)
        cache.add(key + ":count", 0, timeout=60)
        count = cache.incr(key + ":count")
        started = cache.get(key + ":start") or now
    except ValueError:  # the window expired between add and incr
        return 0.0
    except redis_errors() as exc:
        cache_breaker.failed(exc, "webhook destinations are not rate limited until it is back")
        return 0.0
    if count <= settings.OKGIN_WEBHOOK_PER_DESTINATION_PER_MINUTE:
        return 0.0
    return max(1.0, started + 60.0 - now)


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
    ``bad_url``, ``address_forbidden``, ``port_forbidden``, ``dns_failed``, ``connection_failed``,
    ``timeout``, ``tls_failed``. Raises nothing for network trouble.
    """
    try:
        target = webhook_target(url)
    except WebhookUrlForbidden as exc:
        return None, exc.category
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
