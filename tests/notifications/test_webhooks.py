"""Webhooks: create/list/delete, the secret shown once, signed deliveries to a loopback receiver,
retries with backoff on failure, and the delivery status visible to the player (eager tasks)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from notifications import tasks
from notifications.models import WebhookDelivery
from tests.helpers import assert_error
from tests.notifications.receiver import Receiver

PUBLIC_URL = "https://93.184.215.14/okgin"  # a public address (an IP literal: no DNS needed)


@pytest.fixture
def loopback_ok(settings):
    """These tests' receiver listens on 127.0.0.1, which webhooks may not reach by default."""
    settings.OKGIN_WEBHOOK_ALLOW_PRIVATE = True
    settings.OKGIN_WEBHOOK_PORTS = None  # (on a port of its own)


@pytest.mark.django_db
@pytest.mark.error_code("webhook_exists", "not_found", "bad_url")
def test_create_list_delete_and_the_secret_shown_once(alice, bob):
    r = alice.post("/api/v1/webhooks/", {"url": PUBLIC_URL}, format="json")
    assert r.status_code == 201 and r.json()["secret"].startswith("whsec_") and len(r.json()["secret"]) > 40
    hook = r.json()["id"]
    listed = alice.get("/api/v1/webhooks/").json()["results"]
    assert listed == [{"id": hook, "url": PUBLIC_URL, "created_at": r.json()["created_at"]}]
    assert bob.get("/api/v1/webhooks/").json()["results"] == []
    assert_error(bob.delete(f"/api/v1/webhooks/{hook}/"), "not_found")
    assert bob.get(f"/api/v1/webhooks/{hook}/deliveries/").status_code == 404
    r = alice.post("/api/v1/webhooks/", {"url": PUBLIC_URL}, format="json")
    assert assert_error(r, "webhook_exists")["message"] == "This URL is already registered."
    r = alice.post("/api/v1/webhooks/", {"url": "ftp://93.184.215.14/x"}, format="json")
    assert_error(r, "bad_url")
    assert alice.get("/api/v1/webhooks/").json()["results"] == listed
    assert alice.delete(f"/api/v1/webhooks/{hook}/").status_code == 204
    assert alice.get("/api/v1/webhooks/").json()["results"] == []


@pytest.mark.django_db
@pytest.mark.error_code("webhook_exists")
def test_the_same_url_spelled_another_way_is_the_same_webhook(alice):
    # Stored in one spelling per destination: scheme and host in lower case, no default port, no
    # fragment, no empty query. Each other spelling of it is 409 webhook_exists and writes nothing.
    # (Public IP literals: the check resolves the host, and this machine may have no DNS.)
    r = alice.post("/api/v1/webhooks/", {"url": "HTTPS://[2606:2800:220:1:248:1893:25C8:1946]:443/Dup?#frag"},
                   format="json")
    assert r.status_code == 201, r.content
    stored = "https://[2606:2800:220:1:248:1893:25c8:1946]/Dup"
    assert r.json()["url"] == stored
    for spelled in (stored, "https://[2606:2800:220:1:248:1893:25C8:1946]/Dup#x",
                    "https://[2606:2800:220:1:248:1893:25c8:1946]:443/Dup?", stored.replace("https", "HTTPS")):
        assert_error(alice.post("/api/v1/webhooks/", {"url": spelled}, format="json"), "webhook_exists")
    assert [w["url"] for w in alice.get("/api/v1/webhooks/").json()["results"]] == [stored]
    # another path, query or port is another endpoint (paths are case-sensitive)
    for other in (stored.replace("/Dup", "/dup"), stored + "?a=1"):
        assert alice.post("/api/v1/webhooks/", {"url": other}, format="json").status_code == 201, other


def test_webhook_url_normal_worked_out():
    from notifications.outbound import webhook_url_normal

    assert webhook_url_normal("HTTP://93.184.216.34:80/dup#x") == "http://93.184.216.34/dup"
    assert webhook_url_normal("http://93.184.216.34/dup?") == "http://93.184.216.34/dup"
    assert webhook_url_normal("https://93.184.216.34:8443") == "https://93.184.216.34:8443/"
    assert webhook_url_normal("http://[2606:2800:220:1::]:80/a?b=1") == "http://[2606:2800:220:1::]/a?b=1"


@pytest.mark.django_db
def test_events_are_posted_signed_to_the_receiver(alice, bob, loopback_ok, django_capture_on_commit_callbacks):
    with Receiver() as receiver:
        secret = bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json").json()["secret"]
        with django_capture_on_commit_callbacks(execute=True):
            gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
        bodies = receiver.verified(secret)
    assert [(b["kind"], b["game_id"], b["data"]["by"]) for b in bodies] == [("invitation_received", gid, "alice")]
    feed = bob.get("/api/v1/events/").json()["results"]
    assert bodies[0] == feed[0]  # the webhook body is the feed's event
    assert receiver.requests[0]["headers"]["X-Okgin-Event"] == "invitation_received"
    hook = bob.get("/api/v1/webhooks/").json()["results"][0]["id"]
    [d] = bob.get(f"/api/v1/webhooks/{hook}/deliveries/").json()["results"]
    assert (d["status"], d["attempts"], d["last_status_code"], d["event_id"]) == ("delivered", 1, 200, feed[0]["id"])
    assert receiver.requests[0]["headers"]["X-Okgin-Delivery"] == str(d["id"])


@pytest.mark.django_db
def test_a_wrong_secret_does_not_verify(alice, bob, loopback_ok, django_capture_on_commit_callbacks):
    with Receiver() as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        with django_capture_on_commit_callbacks(execute=True):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    with pytest.raises(AssertionError, match="bad signature"):
        receiver.verified("whsec_not-the-secret")


@pytest.mark.django_db
def test_failing_receiver_is_retried_with_backoff_then_fails(alice, bob, loopback_ok, settings, django_capture_on_commit_callbacks):
    settings.OKGIN_WEBHOOK_MAX_ATTEMPTS = 3
    settings.OKGIN_WEBHOOK_BACKOFF_SECONDS = 10.0
    with Receiver(statuses=[500, 503, 500]) as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        with django_capture_on_commit_callbacks(execute=True):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
        d = WebhookDelivery.objects.get()
        assert (d.status, d.attempts, d.last_status_code) == ("pending", 1, 500)
        assert timedelta(seconds=9) < d.next_attempt_at - d.updated_at <= timedelta(seconds=10)  # 10 * 2**0
        assert tasks.webhook_deliveries_sweep.apply(kwargs={"grace_seconds": 0}).get() == 0  # not due yet
        WebhookDelivery.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
        assert tasks.webhook_deliveries_sweep.apply(kwargs={"grace_seconds": 0}).get() == 1
        d.refresh_from_db()
        assert (d.status, d.attempts, d.last_status_code) == ("pending", 2, 503)
        assert timedelta(seconds=19) < d.next_attempt_at - d.updated_at <= timedelta(seconds=20)  # 10 * 2**1
        assert tasks.webhook_deliver.apply(kwargs={"delivery_id": d.pk}).get() == "failed"
        assert len(receiver.requests) == 3
    d.refresh_from_db()
    assert (d.status, d.attempts, d.next_attempt_at) == ("failed", 3, None)
    assert tasks.webhook_deliver.apply(kwargs={"delivery_id": d.pk}).get() is None  # nothing more to do


@pytest.mark.django_db
def test_unreachable_receiver_records_the_error(alice, bob, loopback_ok, django_capture_on_commit_callbacks):
    with Receiver() as receiver:
        url = receiver.url
    bob.post("/api/v1/webhooks/", {"url": url}, format="json")  # nobody listens there any more
    with django_capture_on_commit_callbacks(execute=True):
        alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    hook = bob.get("/api/v1/webhooks/").json()["results"][0]["id"]
    [d] = bob.get(f"/api/v1/webhooks/{hook}/deliveries/", {"status": "pending"}).json()["results"]
    assert d["attempts"] == 1 and d["last_status_code"] is None and d["last_error"] == "connection_failed"
