"""Glicko-2 ratings (games/ratings.py, the glicko2 package): updated in the transaction that
finishes a rated match between people, per variant; the deviation widens with idle time; ratings
and history in the stats; the leaderboard; AI games and staff decks unrated. Expected values are
worked out here from Glickman's paper (http://www.glicko.net/glicko/glicko2.pdf), not by the
package."""
import math
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from games import ratings, services
from games.models import Game, PlayerRating, RatingChange
from tests.games.factories import player_make

SCALE = 173.7178


def _paper_update(r, rd, opp_r, opp_rd, score, vol=0.06):
    """Steps 2-7 of the paper for one game, volatility kept (one game moves it by < 1e-4)."""
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    mu_j, phi_j = (opp_r - 1500) / SCALE, opp_rd / SCALE
    g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
    e = 1 / (1 + math.exp(-g * (mu - mu_j)))
    v = 1 / (g ** 2 * e * (1 - e))
    phi_star = math.sqrt(phi ** 2 + vol ** 2)
    phi_new = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu_new = mu + phi_new ** 2 * g * (score - e)
    return 1500 + SCALE * mu_new, SCALE * phi_new


def _rated_match(winner, loser, *, variant="oklahoma"):
    game = services.game_create(creator=winner, kind="invite", opponent_name=loser.name, rules={"variant": variant})
    services.invitation_accept(game_id=game.pk, player=loser)
    services.game_resign(game_id=game.pk, player=loser)
    return Game.objects.get(pk=game.pk)


@pytest.mark.django_db
def test_first_rated_match_moves_both_players_as_the_paper_says():
    ann, ben = player_make(), player_make()
    game = _rated_match(ann, ben)
    assert game.rated and game.winner_seat == 0
    win_r, win_rd = _paper_update(1500, 350, 1500, 350, 1.0)
    lose_r, lose_rd = _paper_update(1500, 350, 1500, 350, 0.0)
    assert (round(win_r, 1), round(win_rd, 1)) == (1662.3, 290.3)  # the well-known first-game figures
    a, b = PlayerRating.objects.get(player=ann), PlayerRating.objects.get(player=ben)
    assert a.rating == pytest.approx(win_r, abs=0.05) and a.rd == pytest.approx(win_rd, abs=0.05)
    assert b.rating == pytest.approx(lose_r, abs=0.05) and b.rd == pytest.approx(lose_rd, abs=0.05)
    assert (a.games, b.games, a.variant) == (1, 1, "oklahoma")
    change = RatingChange.objects.get(game=game, player=ann)
    assert (change.rating_before, change.rd_before) == (1500, 350)
    # The second match uses both players' updated values (ben wins this time).
    _rated_match(ben, ann)
    exp_b, _ = _paper_update(b.rating, b.rd, a.rating, a.rd, 1.0, b.volatility)
    assert PlayerRating.objects.get(player=ben).rating == pytest.approx(exp_b, abs=0.05)


@pytest.mark.django_db
def test_ratings_are_per_variant_and_unrated_games_change_nothing():
    ann, ben = player_make(), player_make()
    _rated_match(ann, ben, variant="classic")
    assert list(PlayerRating.objects.filter(player=ann).values_list("variant", flat=True)) == ["classic"]
    unrated = services.game_create(creator=ann, kind="invite", opponent_name=ben.name, rated=False)
    services.invitation_accept(game_id=unrated.pk, player=ben)
    services.game_resign(game_id=unrated.pk, player=ben)
    ai = services.game_create(creator=ann, kind="ai", ai_level="random")
    services.game_resign(game_id=ai.pk, player=ann)
    assert not Game.objects.get(pk=ai.pk).rated
    assert RatingChange.objects.count() == 2 and PlayerRating.objects.get(player=ann).games == 1


@pytest.mark.django_db
def test_rated_ai_or_staff_deck_games_are_refused_and_write_nothing(alice):
    before = Game.objects.count()
    for body in ({"kind": "ai", "rated": True}, {"kind": "open", "rated": True, "first_dealer": 0,
                                                  "decks": [[c for c in _all_cards()]]}):
        r = alice.post("/api/v1/games/new/", body, format="json")
        assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error", r.content
    assert Game.objects.count() == before
    r = alice.post("/api/v1/games/new/", {"kind": "open"}, format="json")
    assert r.json()["rated"] is True
    assert alice.post("/api/v1/games/new/", {"kind": "ai"}, format="json").json()["rated"] is False


def _all_cards():
    from tests.helpers import ALL_CARDS

    return ALL_CARDS


@pytest.mark.django_db
def test_deviation_widens_with_idle_rating_periods(settings):
    settings.OKGIN_RATING_PERIOD_DAYS = 7
    ann, ben = player_make(), player_make()
    _rated_match(ann, ben)
    row = PlayerRating.objects.get(player=ann)
    now = row.last_rated_at + timedelta(days=7 * 10 + 3)  # ten whole periods
    widened = math.sqrt((row.rd / SCALE) ** 2 + 10 * row.volatility ** 2) * SCALE
    current = ratings.rating_now(row, now)
    assert current.rd == pytest.approx(widened, abs=0.01) and current.rating == row.rating
    assert ratings.rating_now(row, row.last_rated_at + timedelta(days=6)).rd == pytest.approx(row.rd)
    assert ratings.rating_now(row, now + timedelta(days=365 * 50)).rd == 350  # capped at the start value
    # The next match starts from the widened deviation.
    PlayerRating.objects.filter(player__in=[ann, ben]).update(last_rated_at=timezone.now() - (now - row.last_rated_at))
    b = PlayerRating.objects.get(player=ben)
    b_rd = math.sqrt((b.rd / SCALE) ** 2 + 10 * b.volatility ** 2) * SCALE
    _rated_match(ann, ben)
    exp_r, exp_rd = _paper_update(row.rating, widened, b.rating, b_rd, 1.0, row.volatility)
    after = PlayerRating.objects.get(player=ann)
    assert after.rating == pytest.approx(exp_r, abs=0.05) and after.rd == pytest.approx(exp_rd, abs=0.05)


@pytest.mark.django_db
def test_stats_show_rating_and_history(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    gid = r.json()["id"]
    bob.post(f"/api/v1/games/{gid}/accept/")
    bob.post(f"/api/v1/games/{gid}/resign/")
    stats = bob.get("/api/v1/players/alice/stats/").json()
    [rating] = stats["ratings"]
    assert (rating["variant"], rating["rating"], rating["rd"], rating["games"]) == ("oklahoma", 1662.3, 290.3, 1)
    assert [(h["game_id"], h["rating"]) for h in rating["history"]] == [(gid, 1662.3)]
    assert bob.get("/api/v1/me/stats/").json()["ratings"][0]["rating"] == 1337.7


@pytest.mark.django_db
def test_leaderboard_lists_players_with_enough_rated_games_in_cursor_pages(alice, settings):
    settings.OKGIN_LEADERBOARD_MIN_GAMES = 2
    p = [player_make(f"lb{i}") for i in range(4)]
    _rated_match(p[0], p[1])
    _rated_match(p[0], p[2])
    _rated_match(p[1], p[2])
    _rated_match(p[3], p[0])  # p3 has one rated game only: not listed
    rows = {r.player.name: r.rating for r in PlayerRating.objects.select_related("player")}
    expected = sorted(["lb0", "lb1", "lb2"], key=lambda n: -rows[n])
    names, cursor = [], None
    while True:
        r = alice.get("/api/v1/leaderboard/oklahoma/", {"limit": 1, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.content
        body = r.json()
        names += [e["name"] for e in body["results"]]
        if not body["has_more"]:
            break
        cursor = body["next_cursor"]
    assert names == expected
    assert alice.get("/api/v1/leaderboard/classic/").json()["results"] == []
    assert alice.get("/api/v1/leaderboard/chess/").status_code == 404
    assert alice.get("/api/v1/leaderboard/oklahoma/", {"cursor": "bogus"}).json()["error"]["code"] == "bad_cursor"


@pytest.mark.django_db
def test_leaderboard_cursors_past_the_largest_float_give_cursors_of_the_pattern(alice, settings):
    # "1e+999" matches the cursor pattern (the schema says every such string is a position); it
    # is past every rating, and the cursors of its answer must be of the pattern too (they were
    # "inf" and "-inf", which the server then refused as bad_cursor).
    settings.OKGIN_LEADERBOARD_MIN_GAMES = 1
    _rated_match(player_make("lb0"), player_make("lb1"))
    schema = alice.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    [param] = [p for p in schema["paths"]["/api/v1/leaderboard/{variant}/"]["get"]["parameters"]
               if p["name"] == "cursor"]
    pattern = re.compile(param["schema"]["pattern"])
    for cursor, names in (("leaderboard0nx_1e+999_0", ["lb0", "lb1"]), ("leaderboard0px_1e+999_0", []),
                          ("leaderboard0nx_-1e+999_0", []), ("leaderboard0px_-1e+999_0", ["lb0", "lb1"])):
        assert pattern.match(cursor)
        body = alice.get("/api/v1/leaderboard/oklahoma/", {"cursor": cursor}).json()
        assert [e["name"] for e in body["results"]] == names, cursor
        for other in (body["next_cursor"], body["prev_cursor"]):
            assert pattern.match(other), other
            r = alice.get("/api/v1/leaderboard/oklahoma/", {"cursor": other})
            assert r.status_code == 200, r.content
