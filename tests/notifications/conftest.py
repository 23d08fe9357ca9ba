"""Fixtures of the push tests: two people, tasks run in-process (eager)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.games.factories import DECK
from tests.helpers import act, register

API = "/api/v1"


@pytest.fixture
def people(db, anon, monkeypatch):
    """alice (staff: may preset decks) and bob, logged in; tasks run in-process."""
    from okgin_project.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)
    return register(anon, "alice", staff=True), register(anon, "bob")


def invite_accepted(alice, bob) -> int:
    """alice invites bob on DECK with bob dealing (alice, seat 0, acts first); bob accepts. Returns the game id."""
    r = alice.post(f"{API}/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                   format="json")
    gid = r.json()["id"]
    assert bob.post(f"{API}/games/{gid}/accept/").status_code == 200
    return gid


def pass_turn(client, gid) -> None:
    """``client`` passes the upcard at the game's current version (R5.1): the other seat's turn."""
    version = client.get(f"{API}/games/{gid}/").json()["version"]
    assert act(client, gid, version, {"type": "pass"}).status_code == 200


def retried_then_delivered(error: str, before) -> None:
    """The one push's first attempt (made after ``before``) failed with ``error`` and left it
    pending for the backoff (``OKGIN_PUSH_BACKOFF_SECONDS`` = 30); it is not attempted again
    before then, and is delivered at the second attempt."""
    from notifications.models import PushDelivery
    from notifications.push_send import push_delivery_attempt

    row = PushDelivery.objects.get()
    assert (row.status, row.attempts, row.last_error) == ("pending", 1, error)
    assert before + timedelta(seconds=30) <= row.next_attempt_at <= timezone.now() + timedelta(seconds=30)
    assert push_delivery_attempt(delivery_id=row.pk) is None  # not due yet: nothing sent
    PushDelivery.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())  # the backoff has passed
    assert push_delivery_attempt(delivery_id=row.pk).status == "delivered"
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_error) == ("delivered", 2, "")
