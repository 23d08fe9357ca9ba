"""Helpers for the engine tests: fixed deals, an independent brute-force meld search, a random
policy that plays to the end, and invariant checks. Plain Python: no Django, no database.

The brute force here deliberately shares nothing with ``games/engine/melds.py``: melds are found by
checking every subset of the hand against the definitions of R2.1 and R2.2.
"""
from __future__ import annotations

import itertools
import random
from functools import lru_cache

from games.engine import (FULL_DECK, Card, Discard, Knock, MatchState, RuleSet, apply, deal,
                          legal_actions, min_deadwood, new_match, parse_cards)

ALL_CODES = [c.code for c in FULL_DECK]
CODES = frozenset(ALL_CODES)


def C(text: str) -> tuple[Card, ...]:
    """``C("AS 2S 3S")`` -> the three cards."""
    return parse_cards(text)


def deck_for(non_dealer: str, dealer: str, upcard: str, stock_top: str = "") -> list[str]:
    """A 52-card deal order (R4): the non-dealer's 10, the dealer's 10, the upcard, then the stock
    with ``stock_top`` on top and the remaining cards after it in a fixed order."""
    head = non_dealer.split() + dealer.split() + [upcard] + stock_top.split()
    head = [Card.parse(c).code for c in head]
    assert len(head) == len(set(head)), "duplicate card in the deal"
    assert len(non_dealer.split()) == 10 and len(dealer.split()) == 10
    return head + [c for c in ALL_CODES if c not in head]


def start(non_dealer: str, dealer: str, upcard: str, stock_top: str = "", *, rules: RuleSet | None = None,
          dealer_seat: int = 0, scores: tuple[int, int] = (0, 0)) -> MatchState:
    """A match with its first round dealt from a fixed order (``scores`` preset if asked)."""
    state = new_match(rules or RuleSet(), dealer_seat)
    if scores != (0, 0):
        state = MatchState(rules=state.rules, scores=scores, dealer=dealer_seat)
    state, _ = deal(state, deck_for(non_dealer, dealer, upcard, stock_top))
    return state


def play(state: MatchState, *moves) -> MatchState:
    """Apply ``(seat, action)`` moves in order."""
    for seat, action in moves:
        state, _ = apply(state, seat, action)
    return state


# ---------------------------------------------------------------------------------------------
# Independent brute force (R2)


def brute_is_meld(cards) -> bool:
    """R2.1/R2.2 straight from the text: 3-4 of a rank, or 3+ consecutive ranks of one suit, ace low."""
    if len(cards) < 3:
        return False
    if len({c.rank for c in cards}) == 1:
        return len(cards) <= 4
    if len({c.suit for c in cards}) != 1:
        return False
    ranks = sorted(c.rank for c in cards)
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:]))


def brute_melds(cards) -> list[frozenset]:
    """Every subset of ``cards`` that is a valid meld."""
    cards = list(cards)
    out = []
    for n in range(3, len(cards) + 1):
        for combo in itertools.combinations(cards, n):
            if brute_is_meld(combo):
                out.append(frozenset(combo))
    return out


def brute_min_deadwood(cards) -> int:
    """Lowest deadwood over every collection of disjoint melds (R2.3, R2.4), by exhaustive search."""
    cards = frozenset(cards)
    melds = brute_melds(cards)

    @lru_cache(maxsize=None)
    def best(left: frozenset) -> int:
        if not left:
            return 0
        first = min(left, key=lambda c: c.index)
        # either the first card is deadwood ...
        result = first.value + best(left - {first})
        # ... or it sits in one of the melds still available
        for m in melds:
            if first in m and m <= left:
                result = min(result, best(left - m))
        return result

    return best(cards)


def brute_best_knock(cards, forbidden=None) -> int:
    """Least deadwood over every allowed discard of an 11-card hand (R7.2, R6.3)."""
    return min(brute_min_deadwood([c for c in cards if c is not d]) for d in cards if d is not forbidden)


def brute_defence(knocker_melds, defender_cards) -> int:
    """The defender's least deadwood over every sequence of single lay-offs (R7.6), then their own
    best melds of what is left. A lay-off puts one card onto a set of three of its rank, or onto a
    run of its suit at either end; laid-off cards change the melds for the next lay-off."""

    def fits(meld: tuple, card: Card) -> bool:
        if len({c.rank for c in meld}) == 1:
            return len(meld) == 3 and card.rank == meld[0].rank
        ranks = [c.rank for c in meld]
        return card.suit == meld[0].suit and (card.rank == min(ranks) - 1 or card.rank == max(ranks) + 1)

    @lru_cache(maxsize=None)
    def go(melds: tuple, left: frozenset) -> int:
        result = brute_min_deadwood(left)
        for card in left:
            for i, m in enumerate(melds):
                if fits(m, card):
                    grown = tuple(sorted(m + (card,), key=lambda c: c.index))
                    result = min(result, go(melds[:i] + (grown,) + melds[i + 1:], left - {card}))
        return result

    start_melds = tuple(tuple(sorted(m, key=lambda c: c.index)) for m in knocker_melds)
    return go(start_melds, frozenset(defender_cards))


# ---------------------------------------------------------------------------------------------
# Random play


def choose(state: MatchState, rng: random.Random, *, knock_bias: float = 0.9, greedy: float = 0.6):
    """A random legal ``(seat, action)`` for the seat to act, biased so that rounds end by knocking:
    a legal knock is taken with probability ``knock_bias``; otherwise with probability ``greedy`` the
    discard is the one leaving the least deadwood (the engine's own ``min_deadwood``: this is
    a policy, not an oracle), else a uniformly random legal action."""
    seat = state.to_act
    acts = legal_actions(state)
    knocks = [a for a in acts if isinstance(a, Knock)]
    if knocks and rng.random() < knock_bias:
        return seat, rng.choice(knocks)
    if state.phase == "discard" and rng.random() < greedy:
        hand = state.round.hands[seat]
        discards = [a for a in acts if isinstance(a, Discard)]
        return seat, min(discards, key=lambda a: (min_deadwood([c for c in hand if c is not a.card]), rng.random()))
    return seat, rng.choice(acts)


def all_cards_accounted(state: MatchState) -> None:
    """Assert the 52 cards are in exactly one place: a hand, the stock or the discard pile."""
    r = state.round
    if r is None:
        return
    places = list(r.hands[0]) + list(r.hands[1]) + list(r.stock) + list(r.discard_pile)
    assert len(places) == 52, len(places)
    assert set(places) == set(FULL_DECK)


def walk_strings(obj, skip_keys=()):
    """Every string in a JSON value (keys included), skipping the subtrees under ``skip_keys``."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            if k not in skip_keys:
                yield from walk_strings(v, skip_keys)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from walk_strings(v, skip_keys)
