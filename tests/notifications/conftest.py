"""Fixtures of the push tests: two people, tasks run in-process (eager)."""
import pytest

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
