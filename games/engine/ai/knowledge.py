"""What a seat can infer from its view: dead cards, the unseen cards, and a model of the
opponent's hidden cards built from what it took, threw and declined.

Everything here reads only the :class:`~games.engine.views.PlayerView` (own hand, discard pile,
the opponent's known cards, the stock size and this round's history as redacted for the seat).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import Card, cards_mask
from ..melds import FULL_MASK
from ..views import PlayerView


def meld_partners(index: int) -> list[tuple[int, int]]:
    """Cards that can share a meld with card ``index``: ``(partner_index, distance)`` where
    distance 0 means same rank (a set, R2.1) and 1 or 2 the same suit that many ranks away (a run,
    R2.2, ace low)."""
    suit, rank = divmod(index, 13)
    out = [(s * 13 + rank, 0) for s in range(4) if s != suit]
    for d in (1, 2):
        if rank - d >= 0:
            out.append((suit * 13 + rank - d, d))
        if rank + d <= 12:
            out.append((suit * 13 + rank + d, d))
    return out


_PARTNERS = tuple(tuple(meld_partners(i)) for i in range(52))

# Likelihood multipliers for an unseen card being in the opponent's hand, by relation to a card
# the opponent threw, declined (left on the discard pile) or took: (same rank, 1 apart, 2 apart).
_THREW = (0.55, 0.6, 0.8)
_DECLINED = (0.75, 0.75, 0.9)
_TOOK = (2.5, 2.2, 1.5)


@dataclass(frozen=True)
class Knowledge:
    """The seat's knowledge of the round.

    ``own``: own hand mask; ``dead``: mask of the discard pile (out of play unless it is the top);
    ``opp_known``: mask of the opponent's cards it took from the discard pile and still holds;
    ``unseen``: mask of cards in the opponent's hidden hand or in the stock; ``opp_hidden``: how
    many of the opponent's cards are hidden; ``weights``: per card index, the relative likelihood
    that an unseen card is in the opponent's hand rather than the stock; ``opp_threw`` and
    ``opp_declined``: card indices the opponent discarded / let pass; ``opp_turns``: the
    opponent's completed turns this round, oldest first, as ``(took, discarded)`` card indices
    where ``took`` is the card it took from the discard pile that turn (R5, R6.1) or None when
    it drew from the stock; ``opp_turn_passed``: per turn of ``opp_turns``, the discard-pile top
    it let pass that turn (drawing from the stock, or passing the upcard, R5) or None.
    """

    own: int
    dead: int
    opp_known: int
    unseen: int
    opp_hidden: int
    stock_size: int
    weights: tuple[float, ...]
    opp_threw: tuple[int, ...]
    opp_declined: tuple[int, ...]
    opp_turns: tuple[tuple[int | None, int], ...] = ()
    opp_turn_passed: tuple[int | None, ...] = ()


def read_knowledge(view: PlayerView) -> Knowledge:
    """Build :class:`Knowledge` from ``view`` (the seat must be 0 or 1).

    Replays the redacted history to find, for the opponent, the cards it discarded, the cards it
    took from the discard pile (R5, R6.1), the discard-pile tops it declined (passing the
    upcard, or drawing from the stock while that card lay on top), and its turns in order
    (``opp_turns``: the card taken from the discard pile or None, and the card discarded).
    Raises ``ValueError`` for the public view (no seat).
    """
    seat = view.seat
    if seat is None:
        raise ValueError("knowledge needs a seat's view, not the public view")
    opp = 1 - seat
    own = cards_mask(view.hand)
    dead = cards_mask(view.discard_pile)
    opp_known = cards_mask(view.opponent_known_cards)
    unseen = FULL_MASK & ~own & ~dead & ~opp_known
    opp_hidden = view.opponent_hand_size - len(view.opponent_known_cards)

    threw: list[int] = []
    declined: list[int] = []
    took: list[int] = []
    pile: list[int] = []
    turns: list[tuple[int | None, int]] = []
    turn_passed: list[int | None] = []
    turn_took = None
    turn_pass = None
    for ev in view.history:
        t = ev.get("type")
        who = ev.get("seat")
        if t == "round_dealt":
            pile = [Card.parse(ev["upcard"]).index]
        elif t in ("upcard_taken", "drew_discard"):
            if pile:
                card = pile.pop()
                if who == opp:
                    took.append(card)
                    turn_took = card
        elif t in ("upcard_passed", "drew_stock"):
            if who == opp and pile:
                declined.append(pile[-1])
                turn_pass = pile[-1]
        elif t == "discarded":
            card = Card.parse(ev["card"]).index
            pile.append(card)
            if who == opp:
                threw.append(card)
                turns.append((turn_took, card))
                turn_passed.append(None if turn_took is not None else turn_pass)
                turn_took = None
                turn_pass = None

    w = [1.0] * 52
    for group, table in ((threw, _THREW), (declined, _DECLINED), (took, _TOOK)):
        for c in group:
            for p, d in _PARTNERS[c]:
                w[p] *= table[d]
    return Knowledge(own=own, dead=dead, opp_known=opp_known, unseen=unseen, opp_hidden=opp_hidden,
                     stock_size=view.stock_size, weights=tuple(w), opp_threw=tuple(threw),
                     opp_declined=tuple(declined), opp_turns=tuple(turns),
                     opp_turn_passed=tuple(turn_passed))


def mask_indices(mask: int) -> list[int]:
    """The card indices of a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sample_hidden(k: Knowledge, rng: random.Random, unseen_cards: list[int] | None = None
                  ) -> tuple[int, list[int]]:
    """One determinization consistent with the view: ``(opponent_hand_mask, stock)``.

    The opponent's hidden cards are drawn without replacement with probability proportional to
    ``k.weights`` (Efraimidis-Spirakis keys); its known cards are added; the other unseen cards
    form the stock in a uniformly random order, ``stock[-1]`` being the top.
    """
    cards = unseen_cards if unseen_cards is not None else mask_indices(k.unseen)
    weights = k.weights
    rnd = rng.random
    keyed = sorted(cards, key=lambda c: rnd() ** (1.0 / weights[c]), reverse=True)
    hidden = keyed[:k.opp_hidden]
    stock = keyed[k.opp_hidden:]
    rng.shuffle(stock)
    opp = k.opp_known
    for c in hidden:
        opp |= 1 << c
    return opp, stock
