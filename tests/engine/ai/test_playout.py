"""The strong level's round simulator (``games.engine.ai.playout``): its fast least-deadwood
discard must be exactly the baseline's rule (R2.4), worked by hand and checked against the
exhaustive per-discard table of ``mask_knock_deadwoods`` on many random hands. No database."""
from __future__ import annotations

import random

from games.engine.ai.playout import RANK, VALUE, best_discard
from games.engine.cards import Card, cards_mask
from games.engine.melds import mask_knock_deadwoods


def hand(codes: str) -> int:
    return cards_mask([Card.parse(c) for c in codes.split()])


def idx(code: str) -> int:
    return Card.parse(code).index


# Three melds (KS QS JS run, 9H 9D 9C set, 2C 3C 4C run) and two loose cards.
MELDS = "KS QS JS 9H 9D 9C 2C 3C 4C"


def test_discards_the_highest_loose_card():
    # Loose KD (10) and 8H (8): throwing KD leaves 8 deadwood, throwing 8H leaves 10.
    assert best_discard(hand(MELDS + " KD 8H"), 0) == (8, idx("KD"))


def test_equal_values_go_to_the_higher_rank_then_the_higher_suit():
    # JD and KC both leave 10 deadwood: the king (higher rank) goes.
    assert best_discard(hand(MELDS + " JD KC"), 0) == (10, idx("KC"))
    # KD and KH: same value and rank; hearts comes after diamonds in the index order (C D H S).
    assert best_discard(hand(MELDS + " KD KH"), 0) == (10, idx("KH"))


def test_forbidden_card_is_kept():
    # R6.3: with KD forbidden (just taken), 8H goes and 10 deadwood is left.
    assert best_discard(hand(MELDS + " KD 8H"), 1 << idx("KD")) == (10, idx("8H"))


def test_breaks_a_meld_when_that_leaves_less_deadwood():
    # 4C 5C 6C 7C run plus 7D 7H: the 7s form a set with 7C (7C 7D 7H) leaving 4C 5C 6C as a run
    # too; loose QH and 2S. Best: keep both melds, throw QH, 2 deadwood left.
    assert best_discard(hand("4C 5C 6C 7C 7D 7H AD 2D 3D QH 2S"), 0) == (2, idx("QH"))


def reference(h: int, forbidden: int) -> tuple[int, int]:
    """The baseline's rule straight from the exhaustive table: least deadwood, then the highest
    value, rank and index."""
    dws = mask_knock_deadwoods(h, forbidden)
    i = min(dws, key=lambda c: (dws[c], -VALUE[c], -RANK[c], -c))
    return dws[i], i


def test_agrees_with_the_exhaustive_table_on_random_hands():
    rng = random.Random(2026)
    for n in range(20000):
        if n % 2:
            pool = list(range(52))
        else:  # a narrow band of ranks, so hands are full of melds and ties
            lo = rng.randrange(0, 4)
            pool = [s * 13 + r for s in range(4) for r in range(lo, lo + 6)]
        cards = rng.sample(pool, 11)
        h = sum(1 << c for c in cards)
        forbidden = 1 << rng.choice(cards) if n % 3 == 0 else 0
        assert best_discard(h, forbidden) == reference(h, forbidden), (cards, forbidden)
