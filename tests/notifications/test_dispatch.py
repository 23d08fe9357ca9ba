"""Webhook deliveries never make a request wait on a receiver, and no transaction or row lock is
held while the POST is in flight (with transactions committed for real: the receiver and the
delivery thread use their own database connections)."""
import threading
from datetime import timedelta

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from notifications import services
from notifications.dispatch import DeliveryThread, _pushes_pending, _webhooks_pending, delivery_thread
from notifications.models import PushDelivery, WebhookDelivery
from tests.e2e.conftest import wait_for
from tests.helpers import register
from tests.notifications.receiver import Receiver
from tests.notifications.test_push import _subscribe


@pytest.fixture
def players(transactional_db, anon, settings, monkeypatch):
    from okgin_project.celery import app

    settings.OKGIN_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback,
    settings.OKGIN_WEBHOOK_PORTS = None  # on a port of its own
    # Tasks in-process (the e2e worker fixture, if it ran earlier in the session, turned this off).
    monkeypatch.setitem(app.conf, "task_always_eager", True)
    return register(anon, "alice"), register(anon, "bob")


def test_no_transaction_or_lock_is_held_during_the_post(players):
    alice, bob = players
    seen = []

    def on_post(body, headers):  # the receiver's thread: another connection, while the POST waits
        try:
            with transaction.atomic():
                row = WebhookDelivery.objects.select_for_update(nowait=True).get(pk=int(headers["X-Okgin-Delivery"]))
                seen.append(("unlocked", row.status, row.attempts))
        except DatabaseError as exc:
            seen.append(("locked", type(exc).__name__))
        finally:
            connection.close()

    with Receiver(on_post=on_post) as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")  # inline
    assert seen == [("unlocked", "pending", 0)]  # not locked, and nothing half-recorded yet
    d = WebhookDelivery.objects.get()
    assert (d.status, d.attempts, d.last_status_code, d.lease_until) == ("delivered", 1, 200, None)


def test_a_request_does_not_wait_on_the_receiver_in_eager_mode(players, settings):
    settings.OKGIN_WEBHOOK_INLINE = False  # the embedded default: the background delivery thread
    settings.OKGIN_WEBHOOK_TIMEOUT_SECONDS = 3.0
    alice, bob = players
    release = threading.Event()
    with Receiver(on_post=lambda body, headers: release.wait(10)) as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
        # The request has answered while the receiver still holds the POST unanswered.
        assert r.status_code == 201 and not release.is_set()
        assert WebhookDelivery.objects.get().attempts == 0
        wait_for(lambda: receiver.requests, what="the POST to arrive")
        release.set()
        assert delivery_thread.wait_idle(10)
    d = WebhookDelivery.objects.get()
    assert (d.status, d.attempts, d.last_status_code) == ("delivered", 1, 200)


def test_a_second_attempt_while_one_is_posting_does_nothing(players):
    alice, bob = players
    results = []

    def on_post(body, headers):  # a copy of the task runs while the first POST is in flight
        try:
            results.append(services.webhook_delivery_attempt(delivery_id=int(headers["X-Okgin-Delivery"])))
        finally:
            connection.close()

    with Receiver(on_post=on_post) as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
        assert len(receiver.requests) == 1
    assert results == [None]  # the copy found the delivery claimed by the attempt in flight
    assert WebhookDelivery.objects.get().attempts == 1


def test_a_new_thread_first_picks_up_the_deliveries_left_pending(players, settings):
    """The webhook deliveries still pending in the database (left by a previous run of the process)
    are attempted when a delivery thread starts, those not yet due at their time; delivered and
    failed ones are not."""
    settings.OKGIN_WEBHOOK_INLINE = True  # the rows are sent inline as they are made, then set below
    alice, bob = players
    with Receiver() as receiver:
        bob.post("/api/v1/webhooks/", {"url": receiver.url}, format="json")
        for _ in range(5):
            alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    d1, d2, d3, d4, d5 = WebhookDelivery.objects.order_by("id").values_list("pk", flat=True)
    now = timezone.now()
    WebhookDelivery.objects.filter(pk=d1).update(status="pending", next_attempt_at=None)
    WebhookDelivery.objects.filter(pk=d2).update(status="pending", next_attempt_at=now - timedelta(minutes=5))
    WebhookDelivery.objects.filter(pk=d3).update(status="pending", next_attempt_at=now + timedelta(hours=1))
    WebhookDelivery.objects.filter(pk=d4).update(status="delivered", next_attempt_at=None)
    WebhookDelivery.objects.filter(pk=d5).update(status="failed", next_attempt_at=None)
    seen = []
    thread = DeliveryThread(name="t-pending", attempt=seen.append, pending=_webhooks_pending)
    thread.submit(0)  # (no such delivery: only starts the thread)
    assert thread.wait_idle(10)
    assert sorted(seen) == [0, d1, d2]  # d3 is due in an hour


def test_a_new_push_thread_first_picks_up_the_pushes_left_pending_or_held(players, settings, fake):
    """The pushes still pending or held in the database are attempted when a push thread starts, at
    their time (held ones when their quiet hours end); delivered and failed ones are not."""
    settings.OKGIN_WEBHOOK_INLINE = True  # pushed inline as they are made, then set below
    alice, bob = players
    _subscribe(bob, fake, "bob-pending-token-1")
    for _ in range(6):  # bob: six invitation_received pushes
        alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    p1, p2, p3, p4, p5, p6 = PushDelivery.objects.order_by("id").values_list("pk", flat=True)
    now = timezone.now()
    for pk, status, due in ((p1, "pending", None), (p2, "pending", now - timedelta(minutes=5)),
                            (p3, "held", now - timedelta(seconds=1)), (p4, "held", now + timedelta(hours=8)),
                            (p5, "delivered", None), (p6, "failed", None)):
        PushDelivery.objects.filter(pk=pk).update(status=status, next_attempt_at=due)
    seen = []
    thread = DeliveryThread(name="t-pushes-pending", attempt=seen.append, pending=_pushes_pending)
    thread.submit(0)  # (no such push: only starts the thread)
    assert thread.wait_idle(10)
    assert sorted(seen) == [0, p1, p2, p3]  # p4 is held for eight more hours
