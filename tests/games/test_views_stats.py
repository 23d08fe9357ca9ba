"""Statistics (``me/stats/``, ``players/<name>/stats/``) of a seat-1 knocker, counting only the
player's own matches while another pair has a finished match too.

Hand-worked (RULES.md), alice (seat 0) deals first, so bob (seat 1) is the non-dealer and acts
first (R5.1). Bob holds AC 2C 3C, 4H 4S 4D, 7S 8S 9S and 2D; alice holds 5H 6H 7H, JC JD JS,
9C 9D 9H and KH; the upcard is 10D (knock limit 10, R4.4), QD on top of the stock. Both pass the
upcard, bob draws QD and knocks discarding it: deadwood 2D = 2 <= 10 (R7.2). Alice lays off
nothing (bob's melds take 4C, a fourth 4 is 4C, 6S or 10S: she has none) and counts KH = 10.
2 < 10: bob scores 10 - 2 = 8 (R9.2). Then alice resigns: bob wins the match; the second round
never ended, so it is not counted. Carol and dave finish a match of their own (dave resigns).
"""
import pytest

from tests.games.factories import DECK
from tests.helpers import act_ok, deck_for, register

SEAT1_KNOCKS = deck_for(
    nondealer="AC 2C 3C 4H 4S 4D 7S 8S 9S 2D",
    dealer="5H 6H 7H JC JD JS 9C 9D 9H KH",
    upcard="10D",
    stock_top="QD",
)
KEYS = ("matches_played", "matches_won", "rounds_played", "rounds_won", "gins", "undercuts", "knocks",
        "points", "average_points_per_round")


def _game_accepted(creator, opponent, opponent_name, decks, first_dealer):
    gid = creator.post("/api/v1/games/new/", {"kind": "invite", "opponent": opponent_name, "decks": decks,
                                              "first_dealer": first_dealer}, format="json").json()["id"]
    assert opponent.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    return gid


@pytest.mark.django_db
@pytest.mark.rule("R9.2")
def test_stats_of_a_seat1_knocker_count_only_the_players_own_matches(alice, bob, anon):
    gid = _game_accepted(alice, bob, "bob", [SEAT1_KNOCKS, DECK], first_dealer=0)
    act_ok(bob, gid, {"type": "pass"})
    act_ok(alice, gid, {"type": "pass"})
    act_ok(bob, gid, {"type": "draw_stock"})
    body = act_ok(bob, gid, {"type": "knock", "card": "QD", "melds": None})
    assert body["game"]["scores"] == [0, 8]
    assert alice.post(f"/api/v1/games/{gid}/resign/").status_code == 200

    carol, dave = register(anon, "carol", staff=True), register(anon, "dave")
    other = _game_accepted(carol, dave, "dave", [DECK], first_dealer=1)
    assert dave.post(f"/api/v1/games/{other}/resign/").status_code == 200
    assert carol.get(f"/api/v1/games/{other}/").json()["status"] == "finished"

    # Bob (seat 1): one finished match of his (carol and dave's is not his), won by alice's
    # resignation; one ended round, won by his knock (not gin, not an undercut): 8 points, 8 / 1.
    stats = bob.get("/api/v1/me/stats/").json()
    assert {k: stats[k] for k in KEYS} == {
        "matches_played": 1, "matches_won": 1, "rounds_played": 1, "rounds_won": 1, "gins": 0,
        "undercuts": 0, "knocks": 1, "points": 8, "average_points_per_round": 8.0}
    # Alice (seat 0) lost the same match and round, and did not knock.
    stats = bob.get("/api/v1/players/alice/stats/").json()
    assert {k: stats[k] for k in KEYS} == {
        "matches_played": 1, "matches_won": 0, "rounds_played": 1, "rounds_won": 0, "gins": 0,
        "undercuts": 0, "knocks": 0, "points": 0, "average_points_per_round": 0.0}
    # Carol: one match (her own), won by dave's resignation, no ended round.
    stats = alice.get("/api/v1/players/carol/stats/").json()
    assert {k: stats[k] for k in KEYS} == {
        "matches_played": 1, "matches_won": 1, "rounds_played": 0, "rounds_won": 0, "gins": 0,
        "undercuts": 0, "knocks": 0, "points": 0, "average_points_per_round": 0.0}
