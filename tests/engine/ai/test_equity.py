"""Match equity (games/engine/ai/equity.py) and the strong search's ``match_equity`` option: the
chance of winning the match (R10.1) worked out by hand on a one-value round distribution, its
symmetries on the measured one, and the search weighing its samples by exactly that value."""
from __future__ import annotations

import ast
import dataclasses

import pytest

from games.engine import player_view
from games.engine.ai import equity, strong
from games.engine.ai.equity import equity_after, equity_table, match_equity
from games.engine.ai.strong import StrongPolicy
from tests.engine.ai.test_policies import positions


@pytest.fixture
def five_point_rounds(monkeypatch):
    """Every round scores 5 points, to either seat with chance 1/2."""
    monkeypatch.setattr(equity, "ROUND_POINTS", {5: 1})
    equity_table.cache_clear()
    yield
    equity_table.cache_clear()


def test_equity_worked_by_hand_when_every_round_scores_five(five_point_rounds):
    # target 10: needing 1..5 points, one round won ends it; needing 6..10, two.
    half = 0.5
    assert match_equity(5, 5, 10) == pytest.approx(half)  # whoever wins the next round
    assert match_equity(3, 4, 10) == pytest.approx(half)
    # needing 10 against 5: win two rounds in a row (1/4)
    assert match_equity(10, 5, 10) == pytest.approx(0.25)
    assert match_equity(5, 10, 10) == pytest.approx(0.75)
    # 10 against 10: after one round it is 5-10 or 10-5
    assert match_equity(10, 10, 10) == pytest.approx(half * 0.75 + half * 0.25)
    # target 15, 15 against 5: three rounds in a row
    assert match_equity(15, 5, 15) == pytest.approx(1 / 8)
    assert match_equity(0, 3, 10) == 1.0 and match_equity(-4, 3, 10) == 1.0
    assert match_equity(3, 0, 10) == 0.0
    # equity_after from cumulative scores: seat 1 at 8 of 10 scoring 5 wins; the opponent scoring
    # 5 against seat 1 at 0 leaves it needing 10 against 5
    assert equity_after(5, (0, 8), 1, 10) == 1.0
    assert equity_after(-5, (0, 0), 1, 10) == pytest.approx(0.25)
    assert equity_after(0, (0, 0), 1, 10) == pytest.approx(0.5)  # the wall changes nothing


def test_measured_equity_is_symmetric_and_monotone():
    t = equity_table(100)
    for a in range(1, 101, 7):
        for b in range(1, 101, 7):
            assert t[a][b] + t[b][a] == pytest.approx(1.0)  # the two seats' chances add up
            if a > 1:
                assert t[a - 1][b] >= t[a][b]  # needing less is never worse
            if b > 1:
                assert t[a][b - 1] <= t[a][b]
    assert t[100][100] == pytest.approx(0.5)
    assert 0.9 < t[10][90] < 1.0
    with pytest.raises(ValueError):
        equity_table(0)


def test_search_with_match_equity_weighs_each_sample_by_the_equity_of_its_points(monkeypatch):
    """The same seeded search on the same samples: with ``match_equity`` every candidate's mean is
    the mean of the value of its samples' points, so with a value that negates points (a stand-in
    for ``equity_after``) the means are the points' means negated, and the choice the best of those
    (the knock-first default rule aside: confidence 0 makes the best mean win)."""
    calls = []

    def negated(points, scores, seat, target):
        calls.append((scores, seat, target))
        return -points

    monkeypatch.setattr(strong, "equity_after", negated)
    kw = {"seed": 3, "time_budget": None, "max_iterations": 40, "early_stop": False, "confidence": 0.0,
          "prune": 0.0}
    compared = 0
    for state, seat in positions(40, seed=41):
        view = player_view(state, seat)
        plain, weighed = StrongPolicy(**kw), StrongPolicy(match_equity=True, **kw)
        plain.choose(view)
        chosen = weighed.choose(view)
        if not plain.last_stats.searched:
            continue
        compared += 1
        assert weighed.last_stats.candidates == plain.last_stats.candidates
        assert weighed.last_stats.means == pytest.approx([-m for m in plain.last_stats.means])
        means = weighed.last_stats.means
        assert weighed.last_stats.chosen == max(range(len(means)), key=lambda i: (means[i], -i))
        assert chosen.to_dict()["type"] == weighed.last_stats.candidates[weighed.last_stats.chosen]["type"]
        assert set(calls) == {(view.scores, seat, view.rules.target_score)}
        calls.clear()
    assert compared >= 10, compared


def test_search_with_match_equity_means_are_chances():
    kw = {"seed": 4, "time_budget": None, "max_iterations": 40, "early_stop": False}
    searched = 0
    for state, seat in positions(30, seed=43):
        p = StrongPolicy(match_equity=True, **kw)
        p.choose(player_view(state, seat))
        if p.last_stats.searched:
            searched += 1
            assert all(0.0 <= m <= 1.0 for m in p.last_stats.means), p.last_stats.means
    assert searched >= 5


def test_a_match_longer_than_the_table_is_searched_by_points():
    """Past ``MAX_TARGET`` points no table is made (``ValueError``) and ``match_equity`` searches by
    points: the same means as without it."""
    with pytest.raises(ValueError):
        equity_table(equity.MAX_TARGET + 1)
    kw = {"seed": 4, "time_budget": None, "max_iterations": 40, "early_stop": False}
    searched = 0
    for state, seat in positions(30, seed=43):
        view = dataclasses.replace(player_view(state, seat),
                                   rules=dataclasses.replace(state.rules, target_score=equity.MAX_TARGET + 1))
        plain, weighed = StrongPolicy(**kw), StrongPolicy(match_equity=True, **kw)
        plain.choose(view)
        weighed.choose(view)
        searched += plain.last_stats.searched
        assert weighed.last_stats.means == plain.last_stats.means
    assert searched >= 5


def test_round_points_are_counted_from_decided_rounds_of_simple_against_simple(capsys):
    """The generator of ``ROUND_POINTS``: exactly the asked number of decided rounds (walls are not
    counted), each scoring at least a point (R9), the same counts for the same seed, printed as the
    literal the module holds."""
    counts = equity.round_points_sample(60, seed=5)
    assert sum(counts.values()) == 60 and min(counts) >= 1
    assert counts == equity.round_points_sample(60, seed=5)
    assert equity.main(["--rounds", "60", "--seed", "5"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("ROUND_POINTS: dict[int, int] = {")
    assert ast.literal_eval(printed.split("= ", 1)[1]) == dict(counts)
    assert sum(equity.ROUND_POINTS.values()) == 20000 and min(equity.ROUND_POINTS) >= 1
