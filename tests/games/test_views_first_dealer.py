"""R3.1: the dealer of the first round is chosen at random (unless staff preset it).

Not flaky by construction: with a fair choice the chance that 48 creations all pick the same seat
is 2 * 2**-48 (about 7e-15), and the binomial bound below (6..42 of 48 for seat 0) fails a fair
coin with probability 1.4e-8 (sum of C(48, k) / 2**48 for k < 6, both tails); a choice that
ignores one seat always fails, one that picks a seat 90% of the time fails half the runs."""
import pytest

from games.models import Game, Round

N = 48


@pytest.mark.django_db
@pytest.mark.rule("R3.1")
def test_the_first_dealer_is_random_over_many_games(alice):
    dealers = []
    for _ in range(N):
        r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json")
        assert r.status_code == 201, r.content
        game = r.json()
        assert game["view"]["round_number"] == 1 and game["dealer"] == game["view"]["dealer"]
        # The non-dealer decides first on the upcard (R5.1).
        assert game["to_act"] == 1 - game["dealer"]
        dealers.append(game["dealer"])
    assert set(dealers) == {0, 1}
    assert 6 <= dealers.count(0) <= 42, dealers
    stored = dict(Game.objects.values_list("pk", "first_dealer"))
    assert sorted(stored.values()) == sorted(dealers)
    assert all(Round.objects.get(game_id=pk, number=1).dealer == d for pk, d in stored.items())


@pytest.mark.django_db
@pytest.mark.rule("R3.1")
def test_staff_may_preset_the_first_dealer(alice):
    for seat in (0, 1, 0, 1):
        game = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "first_dealer": seat},
                          format="json").json()
        assert (game["dealer"], game["to_act"]) == (seat, 1 - seat)
