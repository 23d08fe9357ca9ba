"""The ``simple`` level: the well-known baseline, mirroring OpenSpiel's ``simple_gin_rummy_bot``.

OpenSpiel (``open_spiel/bots/gin_rummy/simple_gin_rummy_bot.cc``) plays:

- Draw (and the first upcard, R5): take the upcard if that allows an immediate knock, or if the
  upcard is not deadwood in the best arrangement of the hand plus the upcard (it completes or joins
  a meld); otherwise draw from the stock (pass on the first upcard).
- Discard: throw the highest card (by value, then rank) among the discards that leave the least
  deadwood (OpenSpiel: the highest-ranked card of the best arrangement's deadwood).
- Knock as soon as it is legal (R7.2), with the discard that leaves the least deadwood.

Differences from OpenSpiel, all forced by our rules: the card just taken from the discard pile is
never discarded (R6.3); "least deadwood" is exact over every discard (OpenSpiel drops the highest
deadwood card of one best arrangement, which agrees except in rare ties); a four-of-a-kind or a
long run may be split if that lowers the deadwood (both engines allow it).
"""

from __future__ import annotations

import random
from typing import Iterator

from ..actions import Action, Discard, DrawDiscard, DrawStock, Knock, PassUpcard, TakeUpcard
from ..cards import Card, shuffled_deck
from ..melds import mask_best_knock, mask_knock_deadwoods, mask_min_deadwood
from ..rules import RuleSet
from ..state import MatchState, apply, deal, new_match
from ..views import PlayerView, player_view
from .base import forbidden_mask, hand_mask


def discard_order_key(card: Card, deadwood_after: int) -> tuple:
    """Sort key of a discard for the baseline: least deadwood left, then the highest value, then
    the highest rank (K before Q before J), then the highest index."""
    return (deadwood_after, -card.value, -card.rank, -card.index)


def upcard_melds(hand: int, card: Card) -> bool:
    """True when ``card`` is melded in every best arrangement of ``hand`` plus ``card`` (R2.4):
    adding it lowers the hand's least deadwood below "old deadwood + its own value"."""
    return mask_min_deadwood(hand | card.bit) < mask_min_deadwood(hand) + card.value


def upcard_allows_knock(view: PlayerView, hand: int, card: Card) -> bool:
    """True when taking ``card`` lets the seat knock at once (R7.2), respecting R6.3."""
    forbidden = card.bit if view.rules.forbid_discarding_drawn_upcard else 0
    dw, idx = mask_best_knock(hand | card.bit, forbidden)
    return idx >= 0 and view.knock_limit is not None and dw <= view.knock_limit


class SimplePolicy:
    """The baseline (OpenSpiel ``simple_gin_rummy_bot``): deterministic, no memory, no search.

    ``choose(view)`` returns one of ``view.legal_actions``; raises ``ValueError`` when there is none.
    """

    level = "simple"

    def __init__(self, *, seed: int | None = None):
        self.seed = seed  # unused: the baseline is deterministic

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal_actions
        if not legal:
            raise ValueError("no legal action in this view: it is not this seat's turn")
        hand = hand_mask(view)
        if view.phase in ("upcard", "draw"):
            can_take = any(isinstance(a, (TakeUpcard, DrawDiscard)) for a in legal)
            card = view.upcard
            take = can_take and card is not None and (
                upcard_allows_knock(view, hand, card) or upcard_melds(hand, card))
            if view.phase == "upcard":
                return TakeUpcard() if take else PassUpcard()
            return DrawDiscard() if take else DrawStock()
        # discard phase
        knocks = [a for a in legal if isinstance(a, Knock)]
        forbidden = forbidden_mask(view)
        dws = mask_knock_deadwoods(hand, forbidden)
        if knocks:
            best = min(knocks, key=lambda a: discard_order_key(a.card, dws[a.card.index]))
            return Knock(best.card)
        discards = [a for a in legal if isinstance(a, Discard)]
        return min(discards, key=lambda a: discard_order_key(a.card, dws[a.card.index]))


def baseline_rounds(rng: random.Random, rounds: int, seeds: tuple[int, int] = (3, 4)
                    ) -> Iterator[tuple[MatchState, int, PlayerView]]:
    """Play ``rounds`` single rounds of ``simple`` against ``simple`` and yield every decision.

    Each round is a new match (default :class:`~games.engine.RuleSet`, the dealer drawn with
    ``rng.randrange(2)``, the deck shuffled from ``rng``), played until it ends (a knock, gin or a
    wall, R7-R8). Yields ``(state, seat, view)`` before each action: the full
    :class:`~games.engine.MatchState` (hidden cards included, for measuring an AI's guesses
    against the truth), the seat to act (0 or 1) and that seat's
    :class:`~games.engine.PlayerView`; the seat's action is applied after the consumer resumes
    the generator. The same ``rng`` state gives the same rounds. Raises nothing of its own.
    Used by the opponent-model tests and ``benchmarks/opponent_samples.py``.
    """
    for _ in range(rounds):
        state = new_match(RuleSet(), rng.randrange(2))
        state, _ = deal(state, shuffled_deck(rng))
        policies = [SimplePolicy(seed=seeds[0]), SimplePolicy(seed=seeds[1])]
        while state.round is not None:
            seat = state.to_act
            view = player_view(state, seat)
            yield state, seat, view
            state, _ = apply(state, seat, policies[seat].choose(view))
