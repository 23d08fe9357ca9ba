"""A knock sent over the API without melds is laid out by the engine's rule (RULES.md, note to R7.4):
issue 16's example comes out as three sets. Worked out in tests/engine/test_knock_arrangement.py:
knocker AS and 5-6-7 of spades, clubs and diamonds; upcard KH; both pass, it draws QC and knocks
discarding it; defender 3S 4S 8S 4C 8C 4D 8D 5H 6H 7H keeps 3S (3): the knocker scores 3 - 1 = 2."""
import pytest

from tests.helpers import act_ok, deck_for, register

DECK = deck_for(nondealer="AS 5S 6S 7S 5C 6C 7C 5D 6D 7D", dealer="3S 4S 8S 4C 8C 4D 8D 5H 6H 7H",
                upcard="KH", stock_top="QC")


@pytest.mark.django_db
def test_knock_without_melds_is_laid_as_three_sets(anon):
    alice = register(anon, "alice", staff=True)
    bob = register(anon, "bob")
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                   format="json")
    assert r.status_code == 201, r.content
    game_id = r.json()["id"]
    assert bob.post(f"/api/v1/games/{game_id}/accept/").status_code == 200
    act_ok(alice, game_id, {"type": "pass"})
    act_ok(bob, game_id, {"type": "pass"})
    act_ok(alice, game_id, {"type": "draw_stock"})
    result = act_ok(alice, game_id, {"type": "knock", "card": "QC"})["game"]["last_round_result"]
    assert {frozenset(m) for m in result["knocker_melds"]} == {
        frozenset({"5S", "5C", "5D"}), frozenset({"6S", "6C", "6D"}), frozenset({"7S", "7C", "7D"})}
    assert result["knocker_deadwood"] == ["AS"]
    assert (result["outcome"], result["knocker"], result["winner"], result["points"]) == ("knock", 0, 0, 2)
    assert result["deadwood"] == [1, 3]
