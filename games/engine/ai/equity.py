"""Match equity: the chance of winning the match (R10.1: the first to ``target_score`` cumulative
points) from a score, for a search that weighs a round's outcomes by what they do to the match
rather than by their points alone (``StrongPolicy(match_equity=True)``).

Points are worth more or less than their face near the end of a match: when the opponent needs 8
more points, any round it wins ends the match, however small, and when this seat needs 5, a sure
knock wins it outright while a gin's 25-point bonus adds nothing. :func:`match_equity` is the
chance that the seat needing ``need`` points reaches its target before the opponent needing
``opp_need`` does, when every later round is an independent draw from :data:`ROUND_POINTS` (a
round between two equal players: each wins it with the same chance and the same points; the wall,
R8, scores nothing and is left out since it changes nothing). :func:`equity_after` gives the
equity after a round in which this seat scores ``points`` (negative: the opponent scores them).

:data:`ROUND_POINTS` is how often a round scored each number of points (R9: the knocker's
difference, a gin's bonus, an undercut's bonus) between two ``simple`` players in the engine,
under the default Oklahoma rules; regenerate it with
``python -m games.engine.ai.equity --rounds 20000 --seed 1``.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from functools import lru_cache

from ..cards import shuffled_deck
from ..rules import RuleSet
from ..state import apply, deal, new_match
from ..views import player_view
from .simple import SimplePolicy

# points scored by the round's winner -> rounds (of 20,000 rounds of simple against simple, walls
# left out; ``python -m games.engine.ai.equity --rounds 20000 --seed 1``).
ROUND_POINTS: dict[int, int] = {
    1: 737, 2: 1027, 3: 1154, 4: 1165, 5: 1114, 6: 1026, 7: 953, 8: 823, 9: 753, 10: 1092, 11: 886,
    12: 682, 13: 592, 14: 505, 15: 446, 16: 386, 17: 365, 18: 291, 19: 294, 20: 286, 21: 261,
    22: 204, 23: 223, 24: 205, 25: 172, 26: 167, 27: 291, 28: 263, 29: 339, 30: 359, 31: 270,
    32: 281, 33: 273, 34: 198, 35: 193, 36: 196, 37: 152, 38: 111, 39: 110, 40: 106, 41: 91,
    42: 76, 43: 82, 44: 77, 45: 70, 46: 53, 47: 59, 48: 56, 49: 42, 50: 62, 51: 38, 52: 29, 53: 36,
    54: 29, 55: 29, 56: 25, 57: 17, 58: 13, 59: 17, 60: 16, 61: 15, 62: 14, 63: 14, 64: 4, 65: 10,
    66: 8, 67: 10, 68: 5, 69: 7, 70: 9, 71: 3, 72: 4, 73: 4, 74: 4, 75: 2, 76: 2, 78: 4, 79: 1,
    80: 1, 81: 2, 85: 1, 87: 1, 89: 1, 90: 1, 91: 1, 93: 3, 94: 1,
}


MAX_TARGET = 250  # points: the largest target a table is made for (250 x 250 needs, about 0.5 s)


@lru_cache(maxsize=8)
def equity_table(target: int) -> tuple[tuple[float, ...], ...]:
    """``table[a][b]``: the chance (0..1) of winning the match for the seat needing ``a`` more
    points (1..``target``) against an opponent needing ``b`` (1..``target``), from
    :data:`ROUND_POINTS` (each round won by either seat with the same chance). Row and column 0
    are unused. Raises ``ValueError`` for a ``target`` below 1 or above :data:`MAX_TARGET`, or an
    empty :data:`ROUND_POINTS`."""
    if not 1 <= target <= MAX_TARGET:
        raise ValueError(f"target must be 1..{MAX_TARGET} points")
    total = sum(ROUND_POINTS.values())
    if not total:
        raise ValueError("ROUND_POINTS is empty")
    outcomes = [(pts, n / (2 * total)) for pts, n in sorted(ROUND_POINTS.items())]  # each seat wins half
    table = [[0.0] * (target + 1) for _ in range(target + 1)]
    for a in range(1, target + 1):
        row = table[a]
        for b in range(1, target + 1):
            e = 0.0
            for pts, p in outcomes:
                # this seat scores pts (wins at once if that reaches its target), or the opponent does
                e += p * ((1.0 if pts >= a else table[a - pts][b]) + (0.0 if pts >= b else row[b - pts]))
            row[b] = e
    return tuple(tuple(r) for r in table)


def match_equity(need: int, opp_need: int, target: int) -> float:
    """The chance (0..1) that the seat needing ``need`` more points wins the match (R10.1) against
    an opponent needing ``opp_need``, both targets ``target`` points: 1 when ``need`` <= 0, 0 when
    ``opp_need`` <= 0 (and ``need`` > 0). Needs above ``target`` count as ``target``."""
    if need <= 0:
        return 1.0
    if opp_need <= 0:
        return 0.0
    return equity_table(target)[min(need, target)][min(opp_need, target)]


def equity_after(points: int, scores: tuple[int, int], seat: int, target: int) -> float:
    """The match equity (0..1) of ``seat`` after a round in which it scores ``points`` (negative:
    the opponent scores ``-points``; 0: the wall, R8), from the cumulative ``scores`` (points, per
    seat) before it; ``target``: the match's target score (R10.1)."""
    need, opp_need = target - scores[seat], target - scores[1 - seat]
    if points > 0:
        need -= points
    elif points < 0:
        opp_need += points
    return match_equity(need, opp_need, target)


def round_points_sample(rounds: int, seed: int) -> Counter:
    """``Counter(points -> rounds)`` of ``rounds`` decided rounds (walls not counted) of the
    ``simple`` level against itself in the engine, default rules, decks from ``random.Random(seed)``."""
    rng = random.Random(seed)
    rules = RuleSet()
    policies = (SimplePolicy(seed=seed), SimplePolicy(seed=seed + 1))
    counts: Counter = Counter()
    state = new_match(rules, first_dealer=0)
    while sum(counts.values()) < rounds:
        if state.winner is not None:
            state = new_match(rules, first_dealer=rng.randrange(2))
        if state.phase == "deal":
            state, _ = deal(state, shuffled_deck(rng))
            continue
        seat = state.to_act
        state, events = apply(state, seat, policies[seat].choose(player_view(state, seat)))
        for ev in events:
            if ev.type == "round_ended" and state.results[-1].winner is not None:
                counts[state.results[-1].points] += 1
    return counts


def main(argv=None) -> int:
    """Print :data:`ROUND_POINTS` measured anew (a Python literal to paste into this module)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    counts = round_points_sample(args.rounds, args.seed)
    print("ROUND_POINTS: dict[int, int] = {" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + "}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
