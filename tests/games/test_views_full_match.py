"""A whole match between two registered players through the HTTP API, with fixed (staff) decks.

Hand-computed (RULES.md):
Round 1, first dealer seat 1 (bob); alice (seat 0, non-dealer) holds AC..9C + 5H, bob holds
7S 8S 9S, 2H 2D 2S, KD QH JH 3D; upcard 6D (knock limit 6, R4.4). Alice passes, bob passes (R5.2),
alice draws 3H from the stock (R5.4) and knocks discarding 5H: her deadwood 3H = 3. Bob's melds
7-8-9 spades and the three 2s leave KD QH JH 3D = 10+10+10+3 = 33; nothing lays off on clubs A..9
(he has no 10C). Alice scores 33 - 3 = 30 (R9.2) and deals round 2 (R3.2).
Round 2, dealer alice: bob (non-dealer) holds KD KH QS QH JD JS 10D 10H 9S 9H (no meld: 98 points),
alice holds AC..10C; upcard 4D. Bob passes, alice passes, bob draws 5S and discards it, alice draws
6S and knocks discarding it: gin (R7.7). Alice scores 98 + 25 = 123 (R9.4): 30 + 123 = 153 >= 100,
she wins the match (R10.1).
"""
import pytest

from tests.helpers import act_ok, deck_for, register

ROUND1 = deck_for(
    nondealer="AC 2C 3C 4C 5C 6C 7C 8C 9C 5H",
    dealer="7S 8S 9S 2H 2D 2S KD QH JH 3D",
    upcard="6D",
    stock_top="3H",
)
ROUND2 = deck_for(
    nondealer="KD KH QS QH JD JS 10D 10H 9S 9H",
    dealer="AC 2C 3C 4C 5C 6C 7C 8C 9C 10C",
    upcard="4D",
    stock_top="5S 6S",
)


@pytest.mark.django_db
@pytest.mark.rule("R3.2")
def test_full_match_from_registration_to_winner(anon):
    alice = register(anon, "alice", staff=True)
    bob = register(anon, "bob")
    r = alice.post("/api/v1/games/new/", {
        "kind": "invite", "opponent": "bob", "decks": [ROUND1, ROUND2], "first_dealer": 1,
    }, format="json")
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    assert r.json()["status"] == "invited"

    r = bob.post(f"/api/v1/games/{game_id}/accept/")
    assert r.status_code == 200, r.content
    detail = r.json()
    assert detail["status"] == "active" and detail["your_seat"] == 1 and detail["dealer"] == 1
    assert detail["view"]["knock_limit"] == 6
    assert set(detail["view"]["hand"]) == set("7S 8S 9S 2H 2D 2S KD QH JH 3D".split())

    act_ok(alice, game_id, {"type": "pass"})
    act_ok(bob, game_id, {"type": "pass"})
    body = act_ok(alice, game_id, {"type": "draw_stock"})
    assert "3H" in body["game"]["view"]["hand"]
    body = act_ok(alice, game_id, {"type": "knock", "card": "5H"})
    result = body["game"]["last_round_result"]
    assert result["outcome"] == "knock" and result["knocker"] == 0 and result["winner"] == 0
    assert result["deadwood"] == [3, 33]
    assert result["points"] == 30
    assert body["game"]["scores"] == [30, 0]
    assert body["game"]["dealer"] == 0  # R3.2: the winner deals round 2
    assert body["game"]["round_number"] == 2

    act_ok(bob, game_id, {"type": "pass"})
    act_ok(alice, game_id, {"type": "pass"})
    act_ok(bob, game_id, {"type": "draw_stock"})
    act_ok(bob, game_id, {"type": "discard", "card": "5S"})
    act_ok(alice, game_id, {"type": "draw_stock"})
    body = act_ok(alice, game_id, {"type": "knock", "card": "6S"})
    game = body["game"]
    assert game["last_round_result"]["outcome"] == "gin"
    assert game["last_round_result"]["points"] == 123
    assert game["scores"] == [153, 0]
    assert game["status"] == "finished" and game["winner_seat"] == 0 and game["end_reason"] == "target_score"

    # History afterwards: rounds, moves, export, statistics.
    rounds = bob.get(f"/api/v1/games/{game_id}/rounds/").json()["results"]
    assert [(x["number"], x["outcome"], x["winner_seat"], x["points"]) for x in rounds] == [
        (1, "knock", 0, 30), (2, "gin", 0, 123)]
    moves = bob.get(f"/api/v1/games/{game_id}/moves/").json()["results"]
    assert [m["seq"] for m in moves] == list(range(1, 11))
    assert moves[2]["events"][0] == {"type": "drew_stock", "seat": 0, "card": "3H"}  # complete after the round
    export = bob.get(f"/api/v1/games/{game_id}/export/").json()
    assert export["decks"] == [ROUND1, ROUND2] and export["first_dealer"] == 1
    stats = anon.get("/api/v1/me/stats/")
    assert stats.status_code == 401
    stats = bob.get("/api/v1/players/alice/stats/").json()
    assert stats == {
        "player": "alice", "matches_played": 1, "matches_won": 1, "rounds_played": 2, "rounds_won": 2,
        "gins": 1, "undercuts": 0, "knocks": 2, "points": 153, "average_points_per_round": 76.5,
        "ratings": [],  # a match on staff decks is unrated
    }
    mine = bob.get("/api/v1/me/stats/").json()
    assert (mine["matches_played"], mine["matches_won"], mine["points"]) == (1, 0, 0)

    # The event feed told bob of both rounds' results and of the end of the match (issue 4).
    feed = bob.get("/api/v1/events/", {"limit": 200}).json()["results"]
    over = [(e["data"]["round"], e["data"]["outcome"], e["data"]["points"], e["data"]["scores"])
            for e in feed if e["kind"] == "round_over"]
    assert over == [(1, "knock", 30, [30, 0]), (2, "gin", 123, [153, 0])]
    assert feed[-1]["kind"] == "match_over" and feed[-1]["data"]["you_won"] is False
    assert feed[-1]["data"]["scores"] == [153, 0]
