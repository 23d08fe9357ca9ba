"""A wall and an undercut played through the HTTP API on staff decks, as the database records them
(rounds, scores, statistics), and the turn clock of the round dealt after each.

Hand-worked (RULES.md), first dealer seat 1 (bob); alice is seat 0:
Round 1 (factories.DECK, upcard 6D): both pass the upcard (R5.1, R5.2), then every turn draws the
top of the stock and discards the card drawn. The stock holds 52 - 20 - 1 = 31 cards (R4.3); the
round is drawn when a discard leaves 2 (R8.1): after 31 - 2 = 29 draws, alice's 15th (she draws
first, R5.4). Nobody scores and bob deals again (R3.3): alice is the non-dealer again.
Round 2 (UNDERCUT, upcard 10D: knock limit 10, R4.4): alice holds AC 2C 3C, 4H 4S 4D, 7S 8S 9S and
KH; bob holds 5H 6H 7H, JC JD JS, 9C 9D 9H and 2D. Both pass, alice draws QD and knocks discarding
it: deadwood KH = 10 <= 10 (R7.2). Bob's deadwood is 2D = 2 and lays off nothing (no 4C, 4-of-a-
kind 4, 6S or 10S). 10 >= 2: undercut (R9.3), bob scores 10 - 2 + 10 = 18 and deals round 3
(R3.2), so alice, who just knocked, acts first again.
"""
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from games.models import Game
from notifications.models import Event
from tests.games.factories import DECK
from tests.helpers import act, deck_for

UNDERCUT = deck_for(
    nondealer="AC 2C 3C 4H 4S 4D 7S 8S 9S KH",
    dealer="5H 6H 7H JC JD JS 9C 9D 9H 2D",
    upcard="10D",
    stock_top="QD",
)
LIMIT = 3600  # seconds per turn


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _rewind_clock(gid: int) -> None:
    """Pretend the turn in play started 3000 s ago (its deadline 600 s away)."""
    now = timezone.now()
    Game.objects.filter(pk=gid).update(turn_started_at=now - timedelta(seconds=LIMIT - 600),
                                       turn_deadline=now + timedelta(seconds=600),
                                       turn_reminder_at=now - timedelta(seconds=100))


def _play(alice, bob, before_round_end=lambda gid: None):
    """Play round 1 to the wall and round 2 to the undercut (see the module docstring). Calls
    ``before_round_end(gid)`` before each round's last action; returns ``(gid, draws in round 1,
    [(time sent, response body) of each round's last action])``."""
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK, UNDERCUT],
                                          "first_dealer": 1, "move_time_limit": LIMIT}, format="json")
    gid = r.json()["id"]
    game = bob.post(f"/api/v1/games/{gid}/accept/").json()
    clients = {0: alice, 1: bob}
    ends = []

    def step(seat, action, last=False):
        nonlocal game
        assert game["to_act"] == seat, (game["to_act"], action)
        if last:
            before_round_end(gid)
        sent = timezone.now()
        r = act(clients[seat], gid, game["version"], action)
        assert r.status_code == 200, r.content
        body = r.json()
        game = body["game"]
        if last:
            ends.append((sent, body))
        return body

    step(0, {"type": "pass"})
    step(1, {"type": "pass"})
    draws, seat = 0, 0
    while True:
        drawn = step(seat, {"type": "draw_stock"})
        draws += 1
        card = next(e["card"] for e in drawn["events"] if e["type"] == "drew_stock")
        step(seat, {"type": "discard", "card": card}, last=game["view"]["stock_size"] == 2)
        if game["round_number"] == 2:
            break
        seat = 1 - seat
    step(0, {"type": "pass"})
    step(1, {"type": "pass"})
    step(0, {"type": "draw_stock"})
    step(0, {"type": "knock", "card": "QD", "melds": None}, last=True)
    return gid, draws, ends


@pytest.mark.django_db
@pytest.mark.rule("R8.1", "R3.3", "R9.3", "R3.2")
def test_a_wall_then_an_undercut_are_recorded_and_counted_in_the_statistics(alice, bob):
    gid, draws, ends = _play(alice, bob)
    assert draws == 29
    wall, undercut = ends[0][1], ends[1][1]
    assert wall["game"]["last_round_result"]["outcome"] == "wall"
    # The walled round's result keeps its knock limit: upcard 6D, so 6 points (R4.4).
    assert wall["game"]["last_round_result"]["knock_limit"] == 6
    assert (wall["game"]["scores"], wall["game"]["dealer"], wall["game"]["to_act"]) == ([0, 0], 1, 0)
    assert undercut["game"]["scores"] == [0, 18]
    assert (undercut["game"]["round_number"], undercut["game"]["dealer"], undercut["game"]["to_act"]) == (3, 1, 0)
    rounds = alice.get(f"/api/v1/games/{gid}/rounds/").json()["results"]
    assert [(r["number"], r["dealer"], r["outcome"], r["knocker_seat"], r["winner_seat"], r["points"])
            for r in rounds[:2]] == [(1, 1, "wall", None, None, 0), (2, 1, "undercut", 0, 1, 18)]
    assert (rounds[0]["knock_limit"], rounds[0]["result"]["knock_limit"]) == (6, 6)
    result = rounds[1]["result"]
    assert (result["deadwood"], result["points"]) == ([10, 2], 18)
    assert rounds[2]["in_play"] is True and rounds[2]["outcome"] is None

    stats_bob = bob.get("/api/v1/me/stats/").json()
    assert {k: stats_bob[k] for k in ("rounds_played", "rounds_won", "undercuts", "gins", "knocks", "points")} \
        == {"rounds_played": 2, "rounds_won": 1, "undercuts": 1, "gins": 0, "knocks": 0, "points": 18}
    assert stats_bob["average_points_per_round"] == 9.0
    stats_alice = bob.get("/api/v1/players/alice/stats/").json()
    assert {k: stats_alice[k] for k in ("rounds_played", "rounds_won", "undercuts", "gins", "knocks", "points")} \
        == {"rounds_played": 2, "rounds_won": 0, "undercuts": 0, "gins": 0, "knocks": 1, "points": 0}


@pytest.mark.django_db
def test_the_turn_clock_restarts_when_a_round_is_dealt_to_the_seat_that_just_acted(alice, bob):
    """After the wall and after the undercut alice acts again (the seat to act does not change),
    yet it is a new round: her turn starts when it is dealt, with the full time limit, and she is
    told so (``your_turn``). Before each round's last action the clock is set as if that turn had
    already run 3000 of its 3600 seconds."""
    gid, _draws, ends = _play(alice, bob, before_round_end=_rewind_clock)
    for sent, body in ends:
        game = body["game"]
        assert game["to_act"] == 0 and game["your_seat"] == 0
        started, deadline = _when(game["turn_started_at"]), _when(game["turn_deadline"])
        assert started >= sent
        assert deadline - started == timedelta(seconds=LIMIT)
        turn = [e for e in Event.objects.filter(player__name="alice", game_id=gid, kind="your_turn")
                if e.data["version"] == game["version"]]
        assert [e.data["turn_deadline"] for e in turn] == [game["turn_deadline"]]
    g = Game.objects.get(pk=gid)  # the reminder of round 3's first turn is due at 80% of it again
    assert g.turn_reminder_at - g.turn_started_at == timedelta(seconds=LIMIT * 0.8)
