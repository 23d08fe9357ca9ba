"""Webhook SSRF guard: URLs whose host is (or resolves to) a non-public address are refused when
registered (400 webhook_url_forbidden, nothing written) and again at delivery (DNS may change);
redirects are not followed; the player sees error categories, never raw socket errors."""
import pytest

from notifications import outbound
from notifications.models import WebhookDelivery, WebhookEndpoint
from tests.notifications.receiver import Receiver

FORBIDDEN_URLS = [
    "http://127.0.0.1:5432/",  # loopback (the database port)
    "http://127.1.2.3/",
    "http://localhost:6379/",  # a name resolving to loopback
    "http://[::1]:8000/",
    "http://10.0.0.5/hook",  # private ranges
    "http://172.16.3.4/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata (link-local)
    "http://[fd00:ec2::254]/",
    "http://100.100.100.200/",  # shared address space 100.64/10 (a metadata service too)
    "http://0.0.0.0:8000/",  # unspecified
    "http://[::]/",
    "http://224.0.0.1/",  # multicast
    "http://240.0.0.1/",  # reserved
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
    "http://[fe80::1]/",  # IPv6 link-local
    "http://no-such-host.invalid/hook",  # does not resolve
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", FORBIDDEN_URLS)
def test_registering_a_non_public_url_is_refused_and_writes_nothing(alice, url):
    r = alice.post("/api/v1/webhooks/", {"url": url}, format="json")
    assert r.status_code == 400, r.content
    assert r.json()["error"]["code"] == "webhook_url_forbidden"
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111"])
def test_public_addresses_are_allowed(address):
    assert outbound.address_forbidden(address) is False


@pytest.mark.django_db
def test_a_public_url_is_accepted(alice):
    r = alice.post("/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, format="json")
    assert r.status_code == 201, r.content


@pytest.mark.django_db
def test_delivery_rechecks_the_address_and_never_posts_to_loopback(alice, bob, monkeypatch,
                                                                   django_capture_on_commit_callbacks):
    """The host resolved to a public address when registered, then to loopback (DNS rebinding):
    the delivery is not POSTed there, and the player sees only the category."""
    with Receiver() as receiver:
        port = receiver.server.server_address[1]
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
    with Receiver(statuses=[302], headers={"Location": "http://127.0.0.1:9/elsewhere"}) as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        with django_capture_on_commit_callbacks(execute=True):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
        assert len(receiver.requests) == 1
    d = WebhookDelivery.objects.get()
    assert (d.status, d.attempts, d.last_status_code, d.last_error) == ("pending", 1, 302, "http_302")
