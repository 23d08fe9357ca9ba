"""Cards (R1): small interned immutable values that round-trip through short codes.

A card's ``index`` is ``suit_index * 13 + (rank - 1)`` with suits ordered C, D, H, S, so a hand
is also a 52-bit integer mask (bit ``index``) for the fast meld code in :mod:`.melds`.
"""

from __future__ import annotations

import random
from typing import Iterable, Sequence

from .errors import BadArgument, CardParseError

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

    def __new__(cls, index: int) -> "Card":
        """``Card(index)`` is :meth:`from_index`: the interned card (never a copy, so ``is`` and
        ``==`` agree everywhere in the engine); raises :class:`CardParseError` outside 0..51."""
        return cls.from_index(index)

    @classmethod
    def _make(cls, index: int) -> "Card":  # builds the 52 interned cards, once
        self = object.__new__(cls)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "rank", index % 13 + 1)
        object.__setattr__(self, "suit", SUITS[index // 13])
        object.__setattr__(self, "value", min(index % 13 + 1, 10))
        object.__setattr__(self, "bit", 1 << index)
        object.__setattr__(self, "code", RANK_CODES[index % 13] + SUITS[index // 13])
        return self

    def __setattr__(self, name, value):
        raise AttributeError("Card is immutable")

    @classmethod
    def from_index(cls, index: int) -> "Card":
        """The card with ``index`` 0..51; raises :class:`CardParseError` outside that range."""
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < 52:
            raise CardParseError(f"card index out of range: {index!r}")
        return cls._ALL[index]

    @classmethod
    def from_rank_suit(cls, rank: int, suit: str) -> "Card":
        """The card of ``rank`` (1..13) and ``suit`` (``"C"``, ``"D"``, ``"H"``, ``"S"``)."""
        if (not isinstance(rank, int) or isinstance(rank, bool) or not 1 <= rank <= 13
                or not isinstance(suit, str) or len(suit) != 1 or suit not in SUITS):
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


Card._ALL = tuple(Card._make(i) for i in range(52))
Card._BY_CODE = {c.code: c for c in Card._ALL}
FULL_DECK: tuple[Card, ...] = Card._ALL


def iterate_arg(values, what: str, error: type = BadArgument, *, refuse_text: bool = False):
    """``iter(values)``, raising ``error`` (an engine error class) naming ``what`` when
    ``values`` is not iterable, or (``refuse_text``) is a string, bytes or a dict."""
    if refuse_text and isinstance(values, (str, bytes, dict)):
        raise error(f"{what} must be a list, got {values!r}")
    try:
        return iter(values)
    except TypeError:
        raise error(f"{what} must be an iterable, got {values!r}") from None


def card_args(cards, what: str = "cards", *, distinct: bool = True, limit: int | None = None
              ) -> tuple[Card, ...]:
    """Read ``cards`` (any iterable of :class:`Card` values, read exactly once) into a tuple.

    The engine's boundary check for card arguments: raises :class:`BadArgument` when ``cards``
    is not iterable, holds something other than a ``Card``, holds a card twice (with
    ``distinct``) or more than ``limit`` cards.
    """
    out = tuple(iterate_arg(cards, what))
    for c in out:
        if type(c) is not Card:
            raise BadArgument(f"{what} must hold Card values (Card.parse('7H')), got {c!r}")
    if distinct and len(set(out)) != len(out):
        raise BadArgument(f"{what} hold a card twice: {' '.join(c.code for c in out)}")
    if limit is not None and len(out) > limit:
        raise BadArgument(f"{what} may hold at most {limit} cards, got {len(out)}")
    return out


def parse_cards(codes: str | Iterable[str | Card]) -> tuple[Card, ...]:
    """Parse ``"AS 2S 3S"`` or an iterable of codes (or cards) into a tuple of cards (order kept).

    Raises :class:`CardParseError` on a bad code, :class:`BadArgument` when ``codes`` is neither
    a string nor an iterable.
    """
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    if type(codes) is list:  # the JSON form: exact codes look up in one pass (a game's state, issue 14)
        try:
            return tuple(map(Card._BY_CODE.__getitem__, codes))
        except Exception:  # noqa: BLE001 (KeyError, TypeError, an element's own __hash__ error)
            pass  # another spelling ("10h", " AS"), a Card, or a bad code: one by one below
    return tuple(Card.parse(c) for c in iterate_arg(codes, "card codes"))


def card_codes(cards: Iterable[Card]) -> list[str]:
    """The short codes of ``cards``, in order (the JSON form of a card list).

    Raises :class:`BadArgument` unless ``cards`` is an iterable of ``Card`` values."""
    return [c.code for c in card_args(cards, distinct=False)]


def cards_mask(cards: Iterable[Card]) -> int:
    """The 52-bit mask (bit ``card.index``) of ``cards`` (a card listed twice counts once).

    Raises :class:`BadArgument` unless ``cards`` is an iterable of ``Card`` values."""
    m = 0
    for c in iterate_arg(cards, "cards"):
        if type(c) is not Card:
            raise BadArgument(f"cards must hold Card values (Card.parse('7H')), got {c!r}")
        m |= c.bit
    return m


def mask_cards(mask: int) -> tuple[Card, ...]:
    """The cards of a 52-bit mask, in index order (suit C D H S, then rank).

    Raises :class:`BadArgument` unless ``mask`` is a whole number from 0 to 2**52 - 1."""
    if not isinstance(mask, int) or isinstance(mask, bool) or not 0 <= mask < 1 << 52:
        raise BadArgument(f"a card mask is a whole number from 0 to 2**52 - 1, got {mask!r}")
    out = []
    allc = Card._ALL
    while mask:
        low = mask & -mask
        out.append(allc[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards sorted by suit then rank (the display order of a hand).

    Raises :class:`BadArgument` unless ``cards`` is an iterable of ``Card`` values."""
    return tuple(sorted(card_args(cards, distinct=False), key=lambda c: c.index))


def shuffled_deck(rng: random.Random | None = None) -> tuple[Card, ...]:
    """A shuffled 52-card deck order (R4.1). Pass ``random.SystemRandom()`` on the server.

    Raises :class:`BadArgument` when ``rng`` is neither None nor a ``random.Random``."""
    if rng is not None and not isinstance(rng, random.Random):
        raise BadArgument(f"rng must be a random.Random or None, got {rng!r}")
    deck = list(FULL_DECK)
    (rng or random.SystemRandom()).shuffle(deck)
    return tuple(deck)


def validate_deck(deck: Sequence[Card | str]) -> tuple[Card, ...]:
    """Parse and check a deck order: exactly the 52 distinct cards (R1.2).

    ``deck`` is any ordered iterable of cards or codes (read once); a string, a mapping or a set
    (no order) is refused. Raises :class:`CardParseError` (code ``bad_card``) for a bad code, and
    ``CardParseError`` with code ``bad_deck`` for anything but 52 distinct cards.
    """
    if isinstance(deck, (str, bytes, dict, set, frozenset)):
        raise CardParseError(f"a deck order is a sequence of 52 cards, got {type(deck).__name__}",
                             code="bad_deck")
    try:
        items = iter(deck)
    except TypeError:
        raise CardParseError(f"a deck order is a sequence of 52 cards, got {deck!r}", code="bad_deck") from None
    cards = tuple(Card.parse(c) for c in items)
    if len(cards) != 52 or len(set(cards)) != 52:
        raise CardParseError("a deck order must list each of the 52 cards exactly once", code="bad_deck")
    return cards
