"""Turn deadlines as a client sees them: an AI seat never gets one (it answers by itself; the
timeout sweep must not forfeit a match for the AI's thinking), and the ``deadline_near`` reminder is
never sent once the deadline has passed (the timeout says more; a late reminder would announce
negative time)."""
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game
from tests.games.factories import DECK

LIMIT = 600


def _kinds(client, gid):
    return [e["kind"] for e in client.get("/api/v1/events/").json()["results"] if e["game_id"] == gid]


@pytest.mark.django_db
@pytest.mark.rule("R5.1")
def test_an_ai_seat_to_act_has_no_deadline_and_the_persons_next_turn_has_one(
        alice, django_capture_on_commit_callbacks):
    """alice (staff) deals the first round (first_dealer 0): the AI, non-dealer, acts first (R5.1)."""
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "simple", "first_dealer": 0,
                                          "decks": [DECK], "move_time_limit": LIMIT}, format="json")
    game = r.json()
    assert (game["to_act"], game["move_time_limit"]) == (1, LIMIT)
    assert game["turn_deadline"] is None and game["turn_started_at"] is not None
    g = Game.objects.get(pk=game["id"])
    assert (g.turn_deadline, g.turn_reminder_at, g.awaiting_ai) == (None, None, True)
    # The sweep finds nothing to time out or remind even long after.
    assert services.turn_timeout(game_id=g.pk) is None
    assert services.deadline_reminder_send(game_id=g.pk) is False

    sent = timezone.now()
    services.ai_turn_play(game_id=g.pk, expected_version=g.version)  # the AI's whole turn
    game = alice.get(f"/api/v1/games/{g.pk}/").json()
    assert game["to_act"] == 0 and game["status"] == "active"
    started = Game.objects.get(pk=g.pk).turn_started_at
    assert started >= sent
    assert Game.objects.get(pk=g.pk).turn_deadline == started + timedelta(seconds=LIMIT)
    assert game["turn_deadline"] is not None


def _timed_game(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1,
                                          "move_time_limit": LIMIT}, format="json")
    gid = r.json()["id"]
    bob.post(f"/api/v1/games/{gid}/accept/")  # alice (seat 0, non-dealer) to act
    return gid


@pytest.mark.django_db
def test_no_deadline_near_reminder_after_the_deadline(alice, bob):
    gid = _timed_game(alice, bob)
    now = timezone.now()
    # The reminder fell due and then the deadline passed before any sweep ran (the timeout is queued
    # for a worker but not applied yet): no reminder now.
    Game.objects.filter(pk=gid).update(turn_reminder_at=now - timedelta(seconds=120),
                                       turn_deadline=now - timedelta(seconds=1))
    assert services.deadline_reminder_send(game_id=gid) is False
    assert Game.objects.get(pk=gid).status == "active"  # nothing else happened
    # What alice reads: the timeout (applied when the feed is read), never a reminder.
    kinds = _kinds(alice, gid)
    assert "timeout" in kinds and "deadline_near" not in kinds

    # Control: due and the deadline still ahead: one reminder, with the seconds left.
    other = _timed_game(alice, bob)
    Game.objects.filter(pk=other).update(turn_reminder_at=now - timedelta(seconds=1),
                                         turn_deadline=timezone.now() + timedelta(seconds=100))
    assert services.deadline_reminder_send(game_id=other) is True
    near = [e for e in alice.get("/api/v1/events/").json()["results"] if e["kind"] == "deadline_near"]
    assert [e["game_id"] for e in near] == [other] and 0 < near[0]["data"]["seconds_left"] <= 100
    assert services.deadline_reminder_send(game_id=other) is False  # once per turn
