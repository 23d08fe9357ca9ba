"""Cards (R1): small interned immutable values that round-trip through short codes.

A card's ``index`` is ``suit_index * 13 + (rank - 1)`` with suits ordered C, D, H, S, so a hand
is also a 52-bit integer mask (bit ``index``) for the fast meld code in :mod:`.melds`.
"""

from __future__ import annotations

import random
from typing import Iterable, Sequence

from .errors import CardParseError

SUITS = "CDHS"
RANK_CODES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_RANK_BY_CODE = {code: i + 1 for i, code in enumerate(RANK_CODES)}
_RANK_BY_CODE["T"] = 10


class Card:
    """One playing card (R1.2). Interned: ``Card.parse("QS") is Card.parse("QS")``.

    Attributes: ``rank`` (1..13, ace low, R1.3), ``suit`` (one of ``"CDHS"``), ``value``
    (points, R1.4: ace 1, 2-10 face value, J Q K 10), ``index`` (0..51) and ``bit`` (``1 << index``).
    """

    __slots__ = ("index", "rank", "suit", "value", "bit", "code")
    _ALL: tuple["Card", ...] = ()
    _BY_CODE: dict[str, "Card"] = {}

    def __init__(self, index: int):  # only used to build the 52 interned cards
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "rank", index % 13 + 1)
        object.__setattr__(self, "suit", SUITS[index // 13])
        object.__setattr__(self, "value", min(index % 13 + 1, 10))
        object.__setattr__(self, "bit", 1 << index)
        object.__setattr__(self, "code", RANK_CODES[index % 13] + SUITS[index // 13])

    def __setattr__(self, name, value):
        raise AttributeError("Card is immutable")

    @classmethod
    def from_index(cls, index: int) -> "Card":
        """The card with ``index`` 0..51; raises :class:`CardParseError` outside that range."""
        if not isinstance(index, int) or not 0 <= index < 52:
            raise CardParseError(f"card index out of range: {index!r}")
        return cls._ALL[index]

    @classmethod
    def from_rank_suit(cls, rank: int, suit: str) -> "Card":
        """The card of ``rank`` (1..13) and ``suit`` (``"C"``, ``"D"``, ``"H"``, ``"S"``)."""
        if not isinstance(rank, int) or not 1 <= rank <= 13 or suit not in SUITS or len(suit) != 1:
            raise CardParseError(f"no such card: rank {rank!r} suit {suit!r}")
        return cls._ALL[SUITS.index(suit) * 13 + rank - 1]

    @classmethod
    def parse(cls, code: str) -> "Card":
        """Parse a short code: ``"AS"``, ``"10H"``, ``"TH"`` (case-insensitive, R1.2).

        Raises :class:`CardParseError` naming the input for anything else.
        """
        if isinstance(code, Card):
            return code
        if not isinstance(code, str):
            raise CardParseError(f"card code must be a string, got {code!r}")
        card = cls._BY_CODE.get(code)
        if card is not None:
            return card
        text = code.strip().upper()
        if len(text) < 2:
            raise CardParseError(f"invalid card code {code!r}")
        rank = _RANK_BY_CODE.get(text[:-1])
        suit = text[-1]
        if rank is None or suit not in SUITS:
            raise CardParseError(f"invalid card code {code!r}: expected rank A,2-10,T,J,Q,K and suit C,D,H,S")
        return cls._ALL[SUITS.index(suit) * 13 + rank - 1]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __reduce__(self):
        return (Card.from_index, (self.index,))

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, Card) and other.index == self.index)


Card._ALL = tuple(Card(i) for i in range(52))
Card._BY_CODE = {c.code: c for c in Card._ALL}
FULL_DECK: tuple[Card, ...] = Card._ALL


def parse_cards(codes: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse ``"AS 2S 3S"`` or an iterable of codes into a tuple of cards (order kept).

    Raises :class:`CardParseError` on a bad code.
    """
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    return tuple(Card.parse(c) for c in codes)


def card_codes(cards: Iterable[Card]) -> list[str]:
    """The short codes of ``cards``, in order (the JSON form of a card list)."""
    return [c.code for c in cards]


def cards_mask(cards: Iterable[Card]) -> int:
    """The 52-bit mask (bit ``card.index``) of ``cards``."""
    m = 0
    for c in cards:
        m |= c.bit
    return m


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a 52-bit mask, in index order (suit C D H S, then rank)."""
    out = []
    allc = Card._ALL
    while mask:
        low = mask & -mask
        out.append(allc[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards sorted by suit then rank (the display order of a hand)."""
    return tuple(sorted(cards, key=lambda c: c.index))


def shuffled_deck(rng: random.Random | None = None) -> tuple[Card, ...]:
    """A shuffled 52-card deck order (R4.1). Pass ``random.SystemRandom()`` on the server."""
    deck = list(FULL_DECK)
    (rng or random.SystemRandom()).shuffle(deck)
    return tuple(deck)


def validate_deck(deck: Sequence[Card | str]) -> tuple[Card, ...]:
    """Parse and check a deck order: exactly the 52 distinct cards (R1.2).

    Raises :class:`CardParseError` (code ``bad_card``) or ``CardParseError`` with code ``bad_deck``.
    """
    cards = tuple(Card.parse(c) for c in deck)
    if len(cards) != 52 or len(set(cards)) != 52:
        raise CardParseError("a deck order must list each of the 52 cards exactly once", code="bad_deck")
    return cards
