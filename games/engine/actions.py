"""Player actions as frozen values with a stable JSON form (R5, R6, R7).

JSON: ``{"type": "take_upcard"}``, ``{"type": "pass"}``, ``{"type": "draw_stock"}``,
``{"type": "draw_discard"}``, ``{"type": "discard", "card": "7H"}``,
``{"type": "knock", "card": "7H", "melds": [["7S", "7D", "7C"], ...] | null}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from .cards import Card, iterate_arg
from .errors import CardParseError, MalformedAction


@dataclass(frozen=True, slots=True)
class TakeUpcard:
    """Take the first upcard (R5.1, R5.2); the taker then discards or knocks (R5.3)."""

    type: ClassVar[str] = "take_upcard"

    def to_dict(self) -> dict:
        return {"type": self.type}


@dataclass(frozen=True, slots=True)
class PassUpcard:
    """Refuse the first upcard (R5.1, R5.2)."""

    type: ClassVar[str] = "pass"

    def to_dict(self) -> dict:
        return {"type": self.type}


@dataclass(frozen=True, slots=True)
class DrawStock:
    """Draw the top card of the stock (R6.1, R5.4)."""

    type: ClassVar[str] = "draw_stock"

    def to_dict(self) -> dict:
        return {"type": self.type}


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """Take the top card of the discard pile (R6.1)."""

    type: ClassVar[str] = "draw_discard"

    def to_dict(self) -> dict:
        return {"type": self.type}


def _check_card(card, where: str) -> None:
    if type(card) is not Card:
        raise MalformedAction(f"{where} must be a Card (Card.parse('7H')), got {card!r}")


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard ``card`` face up, ending the turn (R6.2).

    ``card`` must be a :class:`Card`; anything else raises :class:`MalformedAction`."""

    card: Card
    type: ClassVar[str] = "discard"

    def __post_init__(self):
        _check_card(self.card, "a discard's card")

    def to_dict(self) -> dict:
        return {"type": self.type, "card": self.card.code}


@dataclass(frozen=True, slots=True)
class Knock:
    """Discard ``card`` and knock (R7), optionally laying out ``melds`` of the other ten cards.

    ``melds`` is None to let the engine arrange the knocker's hand (lowest deadwood, R2.4; among
    equal arrangements the one taking the fewest expected lay-offs, RULES.md note to R7.4), or any
    iterable of melds, each an iterable of :class:`Card` values: it is read once, when the
    action is built, into a tuple of tuples (a generator is not consumed twice). Whether the
    melds are valid sets and runs of the knocker's cards is checked when the knock is applied
    (:class:`InvalidMeld`). A knock with zero deadwood is gin (R7.7).

    Raises :class:`MalformedAction` when ``card`` is not a ``Card`` or ``melds`` is not None
    nor an iterable of iterables of ``Card`` values (a string is not a meld).
    """

    card: Card
    melds: tuple[tuple[Card, ...], ...] | None = None
    type: ClassVar[str] = "knock"

    def __post_init__(self):
        _check_card(self.card, "a knock's card")
        if self.melds is not None:
            object.__setattr__(self, "melds", _read_melds(self.melds))

    def to_dict(self) -> dict:
        return {
            "type": self.type,
            "card": self.card.code,
            "melds": None if self.melds is None else [[c.code for c in m] for m in self.melds],
        }


Action = Union[TakeUpcard, PassUpcard, DrawStock, DrawDiscard, Discard, Knock]
ACTION_TYPES = {cls.type: cls for cls in (TakeUpcard, PassUpcard, DrawStock, DrawDiscard, Discard, Knock)}


def _read_melds(melds) -> tuple[tuple[Card, ...], ...]:
    """Read an iterable of melds (each an iterable of cards) once into tuples."""
    out = []
    for meld in iterate_arg(melds, "melds", MalformedAction, refuse_text=True):
        cards = tuple(iterate_arg(meld, "a meld", MalformedAction, refuse_text=True))
        for c in cards:
            _check_card(c, "a meld's card")
        out.append(cards)
    return tuple(out)


def _card(value, where: str) -> Card:
    try:
        return Card.parse(value)
    except CardParseError as exc:
        raise MalformedAction(f"{where}: {exc.message}") from None


def action_from_dict(data) -> Action:
    """Parse an action's JSON form; raises :class:`MalformedAction` on any other shape."""
    if not isinstance(data, dict):
        raise MalformedAction("an action must be a JSON object with a 'type'")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedAction(f"unknown action type {kind!r}; expected one of {', '.join(ACTION_TYPES)}")
    allowed = {"type"} | ({"card"} if cls in (Discard, Knock) else set()) | ({"melds"} if cls is Knock else set())
    extra = sorted(set(data) - allowed)
    if extra:
        raise MalformedAction(f"unexpected field(s) for {kind}: {', '.join(extra)}")
    if cls in (Discard, Knock):
        if "card" not in data:
            raise MalformedAction(f"{kind} needs a 'card'")
        card = _card(data["card"], "card")
        if cls is Discard:
            return Discard(card)
        melds = data.get("melds")
        if melds is None:
            return Knock(card)
        if not isinstance(melds, list) or not all(isinstance(m, list) for m in melds):
            raise MalformedAction("melds must be a list of lists of card codes")
        return Knock(card, tuple(tuple(_card(c, "melds") for c in m) for m in melds))
    return cls()
