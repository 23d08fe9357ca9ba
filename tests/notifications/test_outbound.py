"""Webhook SSRF guard: URLs whose host is (or resolves to) a non-public address are refused when
registered (400 webhook_url_forbidden, nothing written) and again at delivery (DNS may change);
redirects are not followed; the player sees error categories, never raw socket errors."""
import pytest

from notifications import outbound
from notifications.models import WebhookDelivery, WebhookEndpoint
from tests.helpers import assert_error
from tests.notifications.receiver import Receiver

FORBIDDEN_URLS = [
    "http://127.0.0.1/",  # loopback
    "http://127.1.2.3/",
    "http://localhost/",  # a name resolving to loopback
    "http://[::1]/",
    "http://10.0.0.5/hook",  # private ranges
    "http://172.16.3.4/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata (link-local)
    "http://[fd00:ec2::254]/",
    "http://100.100.100.200/",  # shared address space 100.64/10 (a metadata service too)
    "http://0.0.0.0/",  # unspecified
    "http://[::]/",
    "http://224.0.0.1/",  # multicast
    "http://240.0.0.1/",  # reserved
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[2002:a00:5::1]/",  # 6to4 of 10.0.0.5
    "http://[2002:a9fe:a9fe::]/",  # 6to4 of the metadata address 169.254.169.254
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    "http://[::127.0.0.1]/",  # IPv4-compatible loopback
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
    "http://[fe80::1]/",  # IPv6 link-local
    "http://no-such-host.invalid/hook",  # does not resolve
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", FORBIDDEN_URLS)
@pytest.mark.error_code("webhook_url_forbidden")
def test_registering_a_non_public_url_is_refused_and_writes_nothing(alice, url):
    r = alice.post("/api/v1/webhooks/", {"url": url}, format="json")
    assert_error(r, "webhook_url_forbidden")
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111",
                                     "64:ff9b::808:808",  # NAT64 of 8.8.8.8 (an IPv6-only network)
                                     "2002:808:808::1"])  # 6to4 of 8.8.8.8
def test_public_addresses_are_allowed(address):
    assert outbound.address_forbidden(address) is False


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["http://93.184.215.14:8080/", "https://93.184.215.14:22/",
                                 "http://93.184.215.14:6379/"])
def test_ports_other_than_80_and_443_are_refused(alice, url):
    r = alice.post("/api/v1/webhooks/", {"url": url}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "webhook_url_forbidden"
    assert "port 80 or 443" in r.json()["error"]["message"]
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.django_db
def test_more_ports_can_be_allowed(alice, settings):
    settings.OKGIN_WEBHOOK_PORTS = frozenset({80, 443, 8443})
    r = alice.post("/api/v1/webhooks/", {"url": "https://93.184.215.14:8443/hook"}, format="json")
    assert r.status_code == 201, r.content
    r = alice.post("/api/v1/webhooks/", {"url": "https://93.184.215.14:8080/hook"}, format="json")
    assert r.status_code == 400


@pytest.mark.django_db
def test_a_public_url_is_accepted(alice):
    r = alice.post("/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, format="json")
    assert r.status_code == 201, r.content


@pytest.mark.django_db
def test_delivery_rechecks_the_address_and_never_posts_to_loopback(alice, bob, monkeypatch, settings,
                                                                   django_capture_on_commit_callbacks):
    """The host resolved to a public address when registered, then to loopback (DNS rebinding):
    the delivery is not POSTed there, and the player sees only the category."""
    with Receiver() as receiver:
        port = receiver.server.server_address[1]
        settings.OKGIN_WEBHOOK_PORTS = frozenset({port})
        monkeypatch.setattr(outbound, "_resolve", lambda host, port: ["93.184.215.14"])
        r = bob.post("/api/v1/webhooks/", {"url": f"http://hooks.example:{port}/hook"}, format="json")
        assert r.status_code == 201, r.content
        monkeypatch.setattr(outbound, "_resolve", lambda host, port: ["127.0.0.1"])
        with django_capture_on_commit_callbacks(execute=True):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
        assert receiver.requests == []
    d = WebhookDelivery.objects.get()
    assert (d.status, d.attempts, d.last_status_code, d.last_error) == ("pending", 1, None, "address_forbidden")


@pytest.mark.django_db
def test_redirects_are_not_followed(alice, bob, settings, django_capture_on_commit_callbacks):
    settings.OKGIN_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback
    settings.OKGIN_WEBHOOK_PORTS = None  # on a port of its own
    with Receiver(statuses=[302], headers={"Location": "http://127.0.0.1:9/elsewhere"}) as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        with django_capture_on_commit_callbacks(execute=True):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
        assert len(receiver.requests) == 1
    d = WebhookDelivery.objects.get()
    assert (d.status, d.attempts, d.last_status_code, d.last_error) == ("pending", 1, 302, "http_302")


@pytest.mark.django_db
def test_deliveries_to_one_destination_are_rate_limited(alice, bob, settings, django_capture_on_commit_callbacks):
    """Two players' endpoints on one destination share its rate: with 2 POSTs a minute, the third
    delivery is not POSTed (nor counted as an attempt) and waits for the end of the minute."""
    from django.core.cache import cache

    cache.clear()
    settings.OKGIN_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback
    settings.OKGIN_WEBHOOK_PORTS = None
    settings.OKGIN_WEBHOOK_PER_DESTINATION_PER_MINUTE = 2
    with Receiver() as receiver:
        alice.post("/api/v1/webhooks/", {"url": receiver.url + "a"}, format="json")
        bob.post("/api/v1/webhooks/", {"url": receiver.url + "b"}, format="json")
        with django_capture_on_commit_callbacks(execute=True):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")  # 1 event
        with django_capture_on_commit_callbacks(execute=True):
            bob.post("/api/v1/games/new/", {"kind": "invite", "opponent": "alice"}, format="json")  # 1 event
        with django_capture_on_commit_callbacks(execute=True):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")  # 1 event
        assert len(receiver.requests) == 2
    cache.clear()
    sent, waiting = (list(WebhookDelivery.objects.filter(status=s).order_by("id")) for s in ("delivered", "pending"))
    assert len(sent) == 2 and len(waiting) == 1
    [d] = waiting
    assert d.attempts == 0 and d.last_error == ""
    assert 0 < (d.next_attempt_at - d.updated_at).total_seconds() <= 60
