"""A fast round simulator on hand masks for the strong policy's Monte Carlo search.

Plays a determinized round (both hands and the stock order fixed) to its end with a heuristic
playout policy for both seats and returns the points from the searching seat's point of view
(R7-R9): positive when it scores, negative when the opponent does, 0 for the wall (R8).

The playout policy is the baseline's (take the discard-pile top when it melds or allows a knock,
discard the highest card among the least-deadwood discards, knock when legal), which is also a
faithful model of the ``simple`` level; the opponent may be given a lower knock threshold
(``SimRules.opp_threshold``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..cards import mask_cards
from ..melds import (_unions, best_arrangement, best_defence, mask_knock_deadwoods, mask_melds,
                     mask_min_deadwood, mask_value)

VALUE = tuple(min(i % 13 + 1, 10) for i in range(52))
RANK = tuple(i % 13 + 1 for i in range(52))

min_deadwood = lru_cache(maxsize=1 << 17)(mask_min_deadwood)
knock_deadwoods = lru_cache(maxsize=1 << 17)(mask_knock_deadwoods)


@dataclass(frozen=True, slots=True)
class SimRules:
    """The numbers a playout needs: ``knock_limit`` (points, R4.4), ``gin_bonus`` (R9.4),
    ``undercut_bonus`` (R9.3), ``multiplier`` (spade-doubles house rule), ``forbid`` (R6.3), and
    ``opp_threshold``: the deadwood (points) at or under which the opponent (seat 1 of a playout)
    knocks, when lower than the knock limit (None: it knocks whenever it may, like the baseline;
    the adaptive opponent model's estimate, :mod:`.opponent`)."""

    knock_limit: int
    gin_bonus: int
    undercut_bonus: int
    multiplier: int
    forbid: bool
    opp_threshold: int | None = None


# Per 13-bit suit mask: 4 x (highest rank present), or -100 when the suit is empty.
_TOP4 = tuple(4 * (p.bit_length() - 1) if p else -100 for p in range(8192))


def _top_in(mask: int) -> int:
    """The baseline's preferred discard among the cards of ``mask`` (not empty): the highest
    value, then the highest rank, then the highest index (the top card of the suit whose top
    rank is highest, the higher suit on a tie)."""
    k = max(_TOP4[mask & 0x1FFF], _TOP4[mask >> 13 & 0x1FFF] + 1,
            _TOP4[mask >> 26 & 0x1FFF] + 2, _TOP4[mask >> 39] + 3)
    r, suit = divmod(k, 4)
    return suit * 13 + r


def best_discard(hand: int, forbidden: int) -> tuple[int, int]:
    """``(deadwood_after, card_index)``: the least-deadwood discard of an 11-card hand, ties to the
    highest value, then rank, then index (the baseline's rule, R2.4). Within one arrangement the
    best discard is its highest unmelded card, so only one card per arrangement is looked at."""
    total = mask_value(hand)
    melds = mask_melds(hand)
    us = _unions(melds) if melds else ((0, 0),)
    best_dw = 999
    best_i = -1
    for u, uv in us:
        cand = hand & ~u & ~forbidden
        if not cand:
            continue
        i = _top_in(cand)
        dw = total - uv - VALUE[i]
        if dw < best_dw or (dw == best_dw and (VALUE[i], RANK[i], i) > (VALUE[best_i], RANK[best_i], best_i)):
            best_dw, best_i = dw, i
    return best_dw, best_i


best_discard = lru_cache(maxsize=1 << 17)(best_discard)


def wants_card(hand: int, card: int, rules: SimRules) -> bool:
    """The baseline's take rule: ``card`` allows a knock at once, or melds (R2.4)."""
    bit = 1 << card
    if min_deadwood(hand | bit) >= min_deadwood(hand) + VALUE[card]:
        return best_discard(hand | bit, bit if rules.forbid else 0)[0] <= rules.knock_limit
    return True


def knock_points(knocker_hand: int, defender_hand: int, rules: SimRules,
                 meld_masks: tuple[int, ...] | None = None) -> int:
    """Points of a knock with these ten-card hands: positive when the knocker scores (R9.2, R9.4),
    negative when the defender undercuts (R9.3). The knocker lays ``meld_masks`` (one of its
    least-deadwood arrangements), by default its first best arrangement; the defender lays its
    best melds and lays off (R7.6), none after gin."""
    kdw = min_deadwood(knocker_hand)
    if kdw == 0:
        return (min_deadwood(defender_hand) + rules.gin_bonus) * rules.multiplier
    if meld_masks is None:
        melds = best_arrangement(mask_cards(knocker_hand)).melds
    else:
        melds = [mask_cards(m) for m in meld_masks]
    ddw = best_defence(melds, mask_cards(defender_hand)).deadwood_count
    if kdw < ddw:
        return (ddw - kdw) * rules.multiplier
    return -(kdw - ddw + rules.undercut_bonus) * rules.multiplier


def play_out(hands: list[int], stock: list[int], pile: list[int], to_act: int, phase: str,
             forbidden: int, rules: SimRules, max_plies: int = 200) -> int:
    """Play the round to its end from ``phase`` (``"draw"`` or ``"discard"``) with ``to_act``
    (0 = the searching seat, 1 = the opponent) to move; ``forbidden`` is the card-mask that seat
    may not discard (R6.3). ``hands``, ``stock`` (top = last) and ``pile`` (top = last) are
    modified in place. Returns points for seat 0 (negative when seat 1 scores; 0 at the wall)."""
    p = to_act
    limits = (rules.knock_limit, rules.knock_limit if rules.opp_threshold is None
              else min(rules.knock_limit, rules.opp_threshold))
    for _ in range(max_plies):
        if phase == "draw":
            h = hands[p]
            if pile and wants_card(h, pile[-1], rules):
                c = pile.pop()
                forbidden = (1 << c) if rules.forbid else 0
            else:
                c = stock.pop()
                forbidden = 0
            hands[p] = h | (1 << c)
        h = hands[p]
        dw, d = best_discard(h, forbidden)
        if dw <= limits[p]:
            pts = knock_points(h & ~(1 << d), hands[1 - p], rules)
            return pts if p == 0 else -pts
        hands[p] = h & ~(1 << d)
        pile.append(d)
        if len(stock) <= 2:  # R8.1: the wall
            return 0
        p = 1 - p
        phase = "draw"
    return 0  # pragma: no cover - a round cannot last this long
