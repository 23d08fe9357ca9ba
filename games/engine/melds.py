"""Melds, deadwood, best arrangements, knocks and lay-offs (R2, R7.2, R7.6).

Everything here is exact (exhaustive over every combination of disjoint melds), and works on
52-bit hand masks (bit ``card.index``, see :mod:`.cards`) for speed; the ``Card``-level helpers
wrap the mask functions. A hand's candidate melds are *all* sets of 3 and 4 (the four 3-card
subsets of a four-of-a-kind included) and *all* runs of 3 or more consecutive cards of a suit
(every sub-run of a longer run included), so splitting a four-of-a-kind between a set and a run,
or breaking a long run, is always considered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from .cards import Card, card_args, cards_mask, iterate_arg, mask_cards
from .errors import BadArgument, InvalidMeld

HAND_LIMIT = 11  # the most cards a hand holds (R4.2, R6.1): the exact searches are sized for it

_SUIT = 0x1FFF  # 13 bits: one suit
FULL_MASK = (1 << 52) - 1  # the 52 cards
_RANK_MASK = tuple((1 | 1 << 13 | 1 << 26 | 1 << 39) << r for r in range(13))
_VALUES = tuple(min(r + 1, 10) for r in range(13))


def _build_suit_tables():
    sum_t = [0] * 8192
    max_t = [0] * 8192
    for p in range(1, 8192):
        low = p & -p
        r = low.bit_length() - 1
        rest = p ^ low
        sum_t[p] = sum_t[rest] + _VALUES[r]
        max_t[p] = max(max_t[rest], _VALUES[r])
    runs_t: list[tuple[int, ...]] = [()] * 8192
    for p in range(8192):
        if p & (p >> 1) & (p >> 2):
            runs = []
            for lo in range(13):
                hi = lo
                while hi < 13 and p >> hi & 1:
                    hi += 1
                    if hi - lo >= 3:
                        runs.append(((1 << (hi - lo)) - 1) << lo)
            runs_t[p] = tuple(runs)
    return tuple(sum_t), tuple(max_t), tuple(runs_t)


_SUIT_SUM, _SUIT_MAX, _SUIT_RUNS = _build_suit_tables()


def mask_value(mask: int) -> int:
    """Sum of the point values (R1.4) of the cards in ``mask``."""
    return (_SUIT_SUM[mask & _SUIT] + _SUIT_SUM[mask >> 13 & _SUIT]
            + _SUIT_SUM[mask >> 26 & _SUIT] + _SUIT_SUM[mask >> 39])


def _mask_max(mask: int) -> int:
    return max(_SUIT_MAX[mask & _SUIT], _SUIT_MAX[mask >> 13 & _SUIT],
               _SUIT_MAX[mask >> 26 & _SUIT], _SUIT_MAX[mask >> 39])


def mask_melds(hand: int) -> list[tuple[int, int]]:
    """Every candidate meld in a hand mask, as ``(meld_mask, points)`` pairs (R2.1, R2.2).

    Runs are ace-low without wrap-around (R2.2, R1.3): a suit's 13 bits run A..K.
    """
    melds = []
    s0 = hand & _SUIT
    s1 = hand >> 13 & _SUIT
    s2 = hand >> 26 & _SUIT
    s3 = hand >> 39
    for shift, p in ((0, s0), (13, s1), (26, s2), (39, s3)):
        if p & (p >> 1) & (p >> 2):
            for r in _SUIT_RUNS[p]:
                melds.append((r << shift, _SUIT_SUM[r]))
    t = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    while t:
        low = t & -t
        t ^= low
        r = low.bit_length() - 1
        m = hand & _RANK_MASK[r]
        v = _VALUES[r]
        if m == _RANK_MASK[r]:
            melds.append((m, 4 * v))
            mm = m
            while mm:
                one = mm & -mm
                mm ^= one
                melds.append((m ^ one, 3 * v))
        else:
            melds.append((m, 3 * v))
    return melds


def _unions(melds: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Every combination of pairwise disjoint melds, as ``(union_mask, melded_points)``."""
    us = [(0, 0)]
    for m, v in melds:
        us += [(u | m, uv + v) for u, uv in us if not u & m]
    return us


def mask_min_deadwood(hand: int) -> int:
    """The deadwood count (points) of the best arrangement of a hand mask (R2.4)."""
    total = mask_value(hand)
    melds = mask_melds(hand)
    if not melds:
        return total
    if len(melds) == 1:
        return total - melds[0][1]
    return total - max(uv for _, uv in _unions(melds))


def mask_best_knock(hand: int, forbidden: int = 0) -> tuple[int, int]:
    """Best knock of an 11-card hand mask: ``(deadwood_points, discard_index)`` (R7.2).

    Over every discard except the cards in ``forbidden`` (R6.3: the card just taken from the
    discard pile), the least deadwood the remaining ten cards can be arranged to. The discard
    chosen is the highest-value unmelded card (ties: highest index). Returns ``(inf-like 999, -1)``
    when every card is forbidden (never in play).
    """
    total = mask_value(hand)
    melds = mask_melds(hand)
    best = 999
    best_discard = -1
    us = _unions(melds) if melds else ((0, 0),)
    for u, uv in us:
        cand = hand & ~u & ~forbidden
        if not cand:
            continue
        mv = _mask_max(cand)
        dw = total - uv - mv
        if dw < best:
            best = dw
            # highest index card of value mv among the candidates
            c = cand
            while c:
                top = c.bit_length() - 1
                if _VALUES[top % 13] == mv:
                    best_discard = top
                    break
                c ^= 1 << top
    return best, best_discard


def mask_knock_deadwoods(hand: int, forbidden: int = 0) -> dict[int, int]:
    """For an 11-card hand mask: ``{discard_index: least deadwood of the other ten}`` (R7.2).

    Cards in ``forbidden`` (R6.3) are left out.
    """
    total = mask_value(hand)
    melds = mask_melds(hand)
    out: dict[int, int] = {}
    us = _unions(melds) if melds else ((0, 0),)
    for u, uv in us:
        cand = hand & ~u & ~forbidden
        base = total - uv
        while cand:
            low = cand & -cand
            cand ^= low
            i = low.bit_length() - 1
            dw = base - _VALUES[i % 13]
            if dw < out.get(i, 999):
                out[i] = dw
    return out


# ---------------------------------------------------------------------------------------------
# Card-level API


def meld_kind(cards: Iterable[Card]) -> str | None:
    """``"set"`` (R2.1), ``"run"`` (R2.2) or ``None`` if ``cards`` (any iterable of cards, read
    once) is not a valid meld. Raises :class:`BadArgument` unless it holds ``Card`` values."""
    cards = card_args(cards, "a meld", distinct=False)
    n = len(cards)
    if n < 3 or len(set(cards)) != n:
        return None
    if n <= 4 and len({c.rank for c in cards}) == 1:
        return "set"
    if len({c.suit for c in cards}) == 1:
        ranks = sorted(c.rank for c in cards)
        if ranks[-1] - ranks[0] == n - 1:
            return "run"
    return None


def is_set(cards: Iterable[Card]) -> bool:
    """True for 3 or 4 cards of one rank (R2.1)."""
    return meld_kind(cards) == "set"


def is_run(cards: Iterable[Card]) -> bool:
    """True for 3 or more consecutive cards of one suit, ace low, no wrap-around (R2.2)."""
    return meld_kind(cards) == "run"


def validate_meld(cards: Iterable[Card]) -> str:
    """Return the meld's kind (``"set"`` or ``"run"``); raise :class:`InvalidMeld` otherwise (R2),
    :class:`BadArgument` unless ``cards`` is an iterable of ``Card`` values (read once)."""
    cards = card_args(cards, "a meld", distinct=False)
    kind = meld_kind(cards)
    if kind is None:
        codes = " ".join(c.code for c in cards)
        raise InvalidMeld(f"[{codes}] is neither a set of 3-4 cards of one rank (R2.1) "
                          f"nor a run of 3+ consecutive cards of one suit, ace low (R2.2)")
    return kind


def sort_meld(cards: Iterable[Card]) -> tuple[Card, ...]:
    """A meld's cards in display order (runs by rank, sets by suit)."""
    return tuple(sorted(cards, key=lambda c: (c.rank, c.suit)))


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A hand grouped into melds and deadwood (R2.4).

    ``melds``: tuple of melds, each a tuple of cards; ``deadwood``: the unmelded cards;
    ``deadwood_count``: their total value in points.
    """

    melds: tuple[tuple[Card, ...], ...]
    deadwood: tuple[Card, ...]
    deadwood_count: int

    def to_dict(self) -> dict:
        """``{"melds": [[code, ...], ...], "deadwood": [code, ...], "deadwood_count": int}``."""
        return {
            "melds": [[c.code for c in m] for m in self.melds],
            "deadwood": [c.code for c in self.deadwood],
            "deadwood_count": self.deadwood_count,
        }


def arrangement_from_masks(hand: int, meld_masks: Iterable[int]) -> Arrangement:
    """The :class:`Arrangement` of the cards of ``hand`` (mask) laid as these meld masks."""
    melds = tuple(sorted((sort_meld(mask_cards(m)) for m in meld_masks), key=lambda m: m[0].index))
    used = 0
    for m in meld_masks:
        used |= m
    rest = hand & ~used
    return Arrangement(melds, mask_cards(rest), mask_value(rest))


def _best_meld_masks(hand: int) -> tuple[int, ...]:
    """Meld masks of the best arrangement; ties broken deterministically by enumeration order."""
    melds = mask_melds(hand)
    combos: list[tuple[int, int, tuple[int, ...]]] = [(0, 0, ())]
    for m, v in melds:
        combos += [(u | m, uv + v, ms + (m,)) for u, uv, ms in combos if not u & m]
    best = max(combos, key=lambda x: x[1])  # first maximum wins: deterministic
    return best[2]


def mask_least_deadwood_meld_sets(hand: int) -> list[tuple[int, ...]]:
    """Every least-deadwood arrangement of a hand mask (R2.4) as a tuple of meld masks, in the
    enumeration order of :func:`_best_meld_masks` (its choice first)."""
    melds = mask_melds(hand)
    combos: list[tuple[int, int, tuple[int, ...]]] = [(0, 0, ())]
    for m, v in melds:
        combos += [(u | m, uv + v, ms + (m,)) for u, uv, ms in combos if not u & m]
    top = max(uv for _, uv, _ in combos)
    return [ms for _, uv, ms in combos if uv == top]


def mask_layoff_exposure(meld_masks: Iterable[int], live: int, known: int, p_unseen: float
                         ) -> tuple[float, float]:
    """Expected ``(cards, points)`` the defender could lay off onto these melds (R7.6): each card
    of ``known`` counts with chance 1, each other card of ``live`` with chance ``p_unseen``, other
    cards never; the fourth card of a set of three, and the cards extending a run at either end,
    a card further along the run with the chance of holding the cards in between as well. A card
    that fits two melds counts once, with its larger chance."""
    chance: dict[int, float] = {}

    def add(i: int, c: float) -> None:
        if c > chance.get(i, 0.0):
            chance[i] = c

    for m in meld_masks:
        low = m & -m
        i = low.bit_length() - 1
        if m & (low << 1):  # a run: consecutive bits of one suit
            base = i // 13 * 13
            ranks = [r for r in range(13) if m >> (base + r) & 1]
            for start, step, stop in ((ranks[-1] + 1, 1, 13), (ranks[0] - 1, -1, -1)):
                c = 1.0
                for r in range(start, stop, step):
                    bit = 1 << (base + r)
                    if not live & bit:
                        break
                    c *= 1.0 if known & bit else p_unseen
                    add(base + r, c)
        else:  # a set of three: the missing card of its rank
            missing = _RANK_MASK[i % 13] & ~m & live
            if missing:
                add(missing.bit_length() - 1, 1.0 if known & missing else p_unseen)
    return sum(chance.values()), sum(c * _VALUES[i % 13] for i, c in chance.items())


def mask_knock_arrangement(hand: int, live: int, defender_known: int = 0, defender_cards: int = 10
                           ) -> tuple[int, ...]:
    """The knocker's default arrangement (RULES.md, note to R7.4) of its ten-card ``hand`` mask
    given the ``live`` cards (those the defender may hold) and the ``defender_known`` ones: among
    the least-deadwood arrangements, the least :func:`mask_layoff_exposure`, as
    :func:`knock_arrangement` describes; returns the meld masks."""
    options = mask_least_deadwood_meld_sets(hand)
    if len(options) == 1:
        return options[0]
    live &= ~hand
    defender_known &= live
    n_unseen = (live & ~defender_known).bit_count()
    p_unseen = (max(0, defender_cards - defender_known.bit_count()) / n_unseen) if n_unseen else 0.0
    return min(options, key=lambda ms: mask_layoff_exposure(ms, live, defender_known, p_unseen))


def knock_arrangement(cards: Iterable[Card], *, out_of_play: Iterable[Card] = (),
                      defender_known: Iterable[Card] = ()) -> Arrangement:
    """The arrangement the engine lays for a knock without melds (RULES.md, note to R7.4).

    ``cards``: the knocker's ten cards after its discard; ``out_of_play``: the cards the knocker
    knows the defender cannot hold (its discard and the discard pile); ``defender_known``: the
    cards it saw the defender take from the discard pile and keep. Every other card may be in the
    defender's hand: a known one surely, each unseen one with the same chance h/u (h: the
    defender's ten cards less the known ones, u: the unseen cards). Among the least-deadwood
    arrangements (R2.4) it returns the one with the fewest expected lay-offs (R7.6) onto its
    melds (:func:`mask_layoff_exposure`: a card further along a run counts with the chance of
    the cards in between too), ties broken by their expected points, then by the order of
    :func:`best_arrangement` (which it equals when there is no choice).

    Raises :class:`BadArgument` for anything but distinct ``Card`` values (at most 11 in ``cards``).
    """
    hand = cards_mask(card_args(cards, "a hand", limit=HAND_LIMIT))
    out = cards_mask(card_args(out_of_play, "out_of_play"))
    known = cards_mask(card_args(defender_known, "defender_known"))
    live = FULL_MASK & ~hand & ~out
    return arrangement_from_masks(hand, mask_knock_arrangement(hand, live, known))


def best_arrangement(cards: Iterable[Card]) -> Arrangement:
    """The hand's lowest-deadwood arrangement (R2.3, R2.4); exact, for up to 11 distinct cards.

    Raises :class:`BadArgument` for anything but an iterable of at most 11 distinct ``Card`` values."""
    hand = cards_mask(card_args(cards, "a hand", limit=HAND_LIMIT))
    return arrangement_from_masks(hand, _best_meld_masks(hand))


def min_deadwood(cards: Iterable[Card]) -> int:
    """The deadwood count in points of the hand's best arrangement (R2.4).

    Raises :class:`BadArgument` for anything but an iterable of at most 11 distinct ``Card`` values."""
    return mask_min_deadwood(cards_mask(card_args(cards, "a hand", limit=HAND_LIMIT)))


def _check_forbidden(forbidden) -> None:
    if forbidden is not None and type(forbidden) is not Card:
        raise BadArgument(f"forbidden must be a Card or None, got {forbidden!r}")


@dataclass(frozen=True, slots=True)
class KnockOption:
    """The best knock of an 11-card hand: the ``discard``, the ``arrangement`` of the other ten."""

    discard: Card
    arrangement: Arrangement

    @property
    def deadwood_count(self) -> int:
        """Deadwood points after the discard."""
        return self.arrangement.deadwood_count


def best_knock(cards: Iterable[Card], *, forbidden: Card | None = None) -> KnockOption | None:
    """For 11 cards, the discard that leaves the least deadwood and that arrangement (R7.2).

    ``forbidden`` is a card that may not be discarded (R6.3). Whether the knock is allowed is
    ``option.deadwood_count <= knock_limit`` (R4.4). Returns None if no card may be discarded.
    Raises :class:`BadArgument` for anything but at most 11 distinct ``Card`` values, or a
    ``forbidden`` that is neither None nor a ``Card``.
    """
    hand = cards_mask(card_args(cards, "a hand", limit=HAND_LIMIT))
    _check_forbidden(forbidden)
    _, idx = mask_best_knock(hand, forbidden.bit if forbidden else 0)
    if idx < 0:
        return None
    discard = Card.from_index(idx)
    return KnockOption(discard, best_arrangement(mask_cards(hand & ~discard.bit)))


def can_knock(cards: Iterable[Card], knock_limit: int, *, forbidden: Card | None = None) -> bool:
    """True when some discard leaves at most ``knock_limit`` deadwood points (R7.2).

    Raises :class:`BadArgument` as :func:`best_knock` does, or when ``knock_limit`` is not a
    whole number of points."""
    hand = cards_mask(card_args(cards, "a hand", limit=HAND_LIMIT))
    _check_forbidden(forbidden)
    if not isinstance(knock_limit, int) or isinstance(knock_limit, bool):
        raise BadArgument(f"knock_limit must be a whole number of points, got {knock_limit!r}")
    dw, idx = mask_best_knock(hand, forbidden.bit if forbidden else 0)
    return idx >= 0 and dw <= knock_limit


# ---------------------------------------------------------------------------------------------
# Lay-offs (R7.6)


@dataclass(frozen=True, slots=True)
class Defence:
    """The defender's best outcome against a knock (R7.5, R7.6, R9.1).

    ``melds``: the defender's own melds; ``lay_offs``: ``(card, meld_index)`` pairs, the index
    into the knocker's melds the card was laid off onto, in a valid laying order; ``deadwood``:
    the cards left; ``deadwood_count``: their points.
    """

    melds: tuple[tuple[Card, ...], ...]
    lay_offs: tuple[tuple[Card, int], ...]
    deadwood: tuple[Card, ...]
    deadwood_count: int


def _layoff_targets(knocker_melds: Sequence[int]):
    """Per knocker meld: ("set", missing_card_mask) or ("run", suit_shift, lo, hi)."""
    targets = []
    for m in knocker_melds:
        cards = mask_cards(m)
        if len({c.rank for c in cards}) == 1:
            rank_mask = _RANK_MASK[cards[0].rank - 1]
            targets.append(("set", rank_mask & ~m))  # empty for a set of four
        else:
            shift = cards[0].index // 13 * 13
            ranks = [c.rank - 1 for c in cards]
            targets.append(("run", shift, min(ranks), max(ranks)))
    return targets


def _lay_off(available: int, targets) -> tuple[int, list[tuple[int, int]]]:
    """Lay off as much of ``available`` as possible: (laid_mask, [(card_index, meld_idx), ...])."""
    laid = 0
    order: list[tuple[int, int]] = []
    for k, t in enumerate(targets):
        if t[0] == "run":
            _, shift, lo, hi = t
            r = hi + 1
            while r <= 12 and available >> (shift + r) & 1 and not laid >> (shift + r) & 1:
                laid |= 1 << (shift + r)
                order.append((shift + r, k))
                r += 1
            r = lo - 1
            while r >= 0 and available >> (shift + r) & 1 and not laid >> (shift + r) & 1:
                laid |= 1 << (shift + r)
                order.append((shift + r, k))
                r -= 1
    for k, t in enumerate(targets):
        if t[0] == "set" and t[1] & available & ~laid:
            laid |= t[1]
            order.append((t[1].bit_length() - 1, k))
    return laid, order


def _knocker_meld_masks(knocker_melds) -> list[int]:
    """Masks of the knocker's melds, each checked to be a set or run, pairwise disjoint (R2)."""
    masks: list[int] = []
    used = 0
    for meld in iterate_arg(knocker_melds, "knocker_melds", refuse_text=True):
        cards = card_args(meld, "a meld", distinct=False)
        validate_meld(cards)
        m = cards_mask(cards)
        if m & used:
            raise InvalidMeld("two of the knocker's melds share a card", rule="R2.3")
        used |= m
        masks.append(m)
    return masks


def best_defence(knocker_melds: Sequence[Sequence[Card]], defender_cards: Iterable[Card], *,
                 allow_lay_offs: bool = True) -> Defence:
    """The defender's lowest deadwood over their own melds plus lay-offs, exact (R7.5, R7.6).

    Tries every combination of the defender's candidate melds (sub-melds included, so breaking
    one's own meld to lay off is considered); the cards left are laid off onto the knocker's
    melds as far as they go: a fourth card onto a set of three, and cards of the run's suit at
    either end of a run, chaining one after another. ``allow_lay_offs=False`` after gin (R9.4).

    ``knocker_melds`` is any iterable of melds (read once). Raises :class:`InvalidMeld` when a
    knocker meld is not a set or run or two of them share a card (R2), :class:`BadArgument` for
    anything but at most 11 distinct defender ``Card`` values or when a defender card is in a
    knocker meld.
    """
    hand = cards_mask(card_args(defender_cards, "the defender's cards", limit=HAND_LIMIT))
    kmasks = _knocker_meld_masks(knocker_melds)
    if any(m & hand for m in kmasks):
        raise BadArgument("the defender's cards and the knocker's melds share a card")
    targets = _layoff_targets(kmasks) if allow_lay_offs else []
    melds = mask_melds(hand)
    combos: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    for m, _v in melds:
        combos += [(u | m, ms + (m,)) for u, ms in combos if not u & m]
    best = None
    for u, ms in combos:
        rest = hand & ~u
        laid, order = _lay_off(rest, targets) if targets else (0, [])
        dw = mask_value(rest & ~laid)
        if best is None or dw < best[0]:
            best = (dw, u, ms, order)
    dw, u, ms, order = best
    arr = arrangement_from_masks(hand, ms)
    laid_mask = 0
    for i, _k in order:
        laid_mask |= 1 << i
    return Defence(
        melds=arr.melds,
        lay_offs=tuple((Card.from_index(i), k) for i, k in order),
        deadwood=mask_cards(hand & ~u & ~laid_mask),
        deadwood_count=dw,
    )
