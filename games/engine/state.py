"""The round and the match as an immutable state machine (R3-R10).

``apply(state, seat, action)`` returns ``(new_state, events)`` and never mutates ``state``.
The deal is an explicit chance step, ``deal(state, deck)``, from a stored deck order, so tests and
replays choose the cards. Phases: ``"deal"`` (waiting for a deck), ``"upcard"`` (first turn, R5),
``"draw"`` and ``"discard"`` (R6, R7), ``"match_over"`` (R10).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .actions import (Action, Discard, DrawDiscard, DrawStock, Knock, PassUpcard, TakeUpcard,
                      action_from_dict)
from .cards import Card, card_codes, cards_mask, parse_cards, sort_cards, validate_deck
from .errors import (BadArgument, EngineError, IllegalAction, InvalidMeld, KnockOverLimit, MalformedAction,
                     NotYourTurn)
from .melds import (FULL_MASK, arrangement_from_masks, best_arrangement, best_defence, mask_best_knock,
                    mask_knock_arrangement, mask_knock_deadwoods, mask_value, validate_meld)
from .rules import RuleSet

_setattr = object.__setattr__
_new = object.__new__


def replace(obj, **changes):
    """A copy of the frozen slotted dataclass ``obj`` with ``changes`` (a faster
    ``dataclasses.replace``: no ``__post_init__``, which these state classes do not have)."""
    cls = type(obj)
    slots = cls.__slots__
    for name in changes:
        if name not in slots:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
    new = object.__new__(cls)
    for name in slots:
        _setattr(new, name, changes[name] if name in changes else getattr(obj, name))
    return new


def _whole(x, lo: int, hi: int | None = None) -> bool:
    return type(x) is int and x >= lo and (hi is None or x <= hi)


def _is_seat(seat, *, none_ok: bool = False) -> bool:
    return (seat is None and none_ok) or (type(seat) is int and seat in (0, 1))


def _check_seat(seat, what: str = "seat", *, none_ok: bool = False) -> None:
    if not _is_seat(seat, none_ok=none_ok):
        raise BadArgument(f"{what} must be 0, 1{' or None' if none_ok else ''}, got {seat!r}")


def _check_state(state) -> None:
    if not isinstance(state, MatchState):
        raise BadArgument(f"state must be a MatchState (new_match(), MatchState.from_dict()), got {state!r}")


def _json_object(d) -> dict:
    if not isinstance(d, dict):
        raise BadArgument(f"expected a JSON object, got {d!r}")
    return d


class _json_shape:
    """Context manager for ``from_dict``: a missing key or a value of the wrong type in a JSON
    form becomes :class:`BadArgument` naming ``what`` (engine errors pass through unchanged)."""

    def __init__(self, what: str):
        self.what = what

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if exc is None or isinstance(exc, EngineError):
            return False
        if isinstance(exc, (KeyError, TypeError, ValueError, AttributeError, IndexError)):
            raise BadArgument(f"not the JSON form of {self.what}: {type(exc).__name__}: {exc}") from exc
        return False


_ACTION_CLASSES = frozenset((TakeUpcard, PassUpcard, DrawStock, DrawDiscard, Discard, Knock))

PHASES = ("deal", "upcard", "draw", "discard", "match_over")
OUTCOMES = ("knock", "gin", "undercut", "wall")


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened: ``type``, the acting ``seat`` (or None), ``data`` (JSON-ready dict).

    Types: ``round_dealt``, ``upcard_taken``, ``upcard_passed``, ``drew_stock`` (``data["card"]``
    is secret to the drawer), ``drew_discard``, ``discarded``, ``knocked``, ``round_ended``
    (``data["result"]``), ``match_ended``.
    """

    type: str
    seat: int | None
    data: dict = field(default_factory=dict)

    def __post_init__(self):
        _event_check(self.type, self.seat, self.data)

    def to_dict(self) -> dict:
        """``{"type": str, "seat": int | None, **data}``."""
        return {"type": self.type, "seat": self.seat, **self.data}

    @classmethod
    def from_dict(cls, d: dict) -> "Event":
        """Rebuild from :meth:`to_dict`'s form; raises :class:`BadArgument` for another shape."""
        with _json_shape("an event"):
            return _event_from_json(d)


def _event_from_json(d) -> Event:
    """``Event.from_dict`` without its error context (``_events_from_json`` parses a round's whole
    history in one): the same checks as ``Event.__post_init__``, but the frozen dataclass's
    ``__init__`` is skipped, which was half the time of parsing a stored match state (issue 14:
    a state is parsed on every action and game view). Raises :class:`BadArgument`, or ``KeyError``
    (``type`` or ``seat`` missing) for the caller's ``_json_shape`` to turn into one."""
    data = dict(_json_object(d))
    kind, seat = data.pop("type"), data.pop("seat")
    _event_check(kind, seat, data)
    event = _new(Event)
    _setattr(event, "type", kind)
    _setattr(event, "seat", seat)
    _setattr(event, "data", data)
    return event


def _event_check(kind, seat, data) -> None:
    """An event's fields as ``Event`` takes them; raises :class:`BadArgument` otherwise."""
    if not isinstance(kind, str) or not _is_seat(seat, none_ok=True) or not isinstance(data, dict):
        raise BadArgument(f"an event is a type (text), a seat (0, 1 or None) and a dict of data, got "
                          f"{kind!r}, {seat!r}, {data!r}")


def _events_from_json(items) -> tuple[Event, ...]:
    """A round's ``history`` from its JSON form (a list of ``Event.to_dict`` forms); raises
    :class:`BadArgument` for another shape."""
    with _json_shape("an event"):
        return tuple([_event_from_json(d) for d in items])


def redact_event(event: dict, viewer: int | None) -> dict:
    """An event's JSON form as ``viewer`` (a seat, or None for the public) may see it.

    The only secret an event carries is the card of a stock draw (R6.1), shown to the drawer only.
    Raises :class:`BadArgument` unless ``event`` is a dict and ``viewer`` 0, 1 or None.
    """
    if not isinstance(event, dict):
        raise BadArgument(f"an event's JSON form is a dict, got {event!r}")
    _check_seat(viewer, "viewer", none_ok=True)
    return _redact(event, viewer)


def _redact(event: dict, viewer: int | None) -> dict:
    """:func:`redact_event` without the argument checks (the views' hot path)."""
    if event.get("type") == "drew_stock" and event.get("seat") != viewer and "card" in event:
        event = {k: v for k, v in event.items() if k != "card"}
    return event


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round (R7-R9), revealed in full.

    ``outcome``: ``"knock"``, ``"gin"``, ``"undercut"`` or ``"wall"`` (R8); ``knocker`` and
    ``winner``: seats (None for the wall); ``points``: what the winner scored (after any
    multiplier); ``hands``: each seat's ten cards at the end; ``knocker_melds``,
    ``knocker_deadwood``; ``defender_melds``, ``defender_deadwood`` (after lay-offs);
    ``lay_offs``: ``(card, knocker_meld_index)``; ``deadwood``: each seat's count in points
    (the defender's after laying off); ``scores_after``: cumulative scores; ``multiplier``: the
    round's (2 under spade doubles with a spade first upcard, a wall round's too; 1 otherwise).
    """

    number: int
    dealer: int
    outcome: str
    knocker: int | None
    winner: int | None
    points: int
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    discard: Card | None
    knocker_melds: tuple[tuple[Card, ...], ...]
    knocker_deadwood: tuple[Card, ...]
    defender_melds: tuple[tuple[Card, ...], ...]
    defender_deadwood: tuple[Card, ...]
    lay_offs: tuple[tuple[Card, int], ...]
    deadwood: tuple[int, int]
    knock_limit: int
    multiplier: int
    scores_after: tuple[int, int]

    def to_dict(self) -> dict:
        return {
            "number": self.number,
            "dealer": self.dealer,
            "outcome": self.outcome,
            "knocker": self.knocker,
            "winner": self.winner,
            "points": self.points,
            "hands": [card_codes(h) for h in self.hands],
            "discard": self.discard.code if self.discard else None,
            "knocker_melds": [card_codes(m) for m in self.knocker_melds],
            "knocker_deadwood": card_codes(self.knocker_deadwood),
            "defender_melds": [card_codes(m) for m in self.defender_melds],
            "defender_deadwood": card_codes(self.defender_deadwood),
            "lay_offs": [{"card": c.code, "meld_index": k} for c, k in self.lay_offs],
            "deadwood": list(self.deadwood),
            "knock_limit": self.knock_limit,
            "multiplier": self.multiplier,
            "scores_after": list(self.scores_after),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RoundResult":
        """Rebuild from :meth:`to_dict`'s form; raises :class:`BadArgument` for another shape."""
        with _json_shape("a round result"):
            d = _json_object(d)
            return cls(
                number=d["number"], dealer=d["dealer"], outcome=d["outcome"], knocker=d["knocker"],
                winner=d["winner"], points=d["points"],
                hands=tuple(parse_cards(h) for h in d["hands"]),
                discard=Card.parse(d["discard"]) if d["discard"] else None,
                knocker_melds=tuple(parse_cards(m) for m in d["knocker_melds"]),
                knocker_deadwood=parse_cards(d["knocker_deadwood"]),
                defender_melds=tuple(parse_cards(m) for m in d["defender_melds"]),
                defender_deadwood=parse_cards(d["defender_deadwood"]),
                lay_offs=tuple((Card.parse(x["card"]), x["meld_index"]) for x in d["lay_offs"]),
                deadwood=tuple(d["deadwood"]), knock_limit=d["knock_limit"],
                multiplier=d["multiplier"], scores_after=tuple(d["scores_after"]),
            )


@dataclass(frozen=True, slots=True)
class RoundState:
    """A round in play (secret: holds both hands and the stock order).

    ``stock[0]`` is the top of the stock; ``discard_pile[-1]`` is the top of the discard pile.
    ``taken_from_discard``: the card the player to act took from the discard pile this turn
    (R6.3). ``known``: per seat, the cards it took from the discard pile and still holds (public).
    ``history``: this round's events, unredacted.
    """

    number: int
    dealer: int
    deck: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    stock: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    first_upcard: Card
    knock_limit: int
    phase: str
    to_act: int
    upcard_passes: int = 0
    taken_from_discard: Card | None = None
    known: tuple[frozenset, frozenset] = (frozenset(), frozenset())
    history: tuple[Event, ...] = ()

    def __post_init__(self):
        """Check the fields' types and that the hands, stock and discard pile hold the 52 cards
        once each (R1.2); raises :class:`BadArgument`. (Moves copy a round without this check.)"""
        def cards(v):
            return isinstance(v, tuple) and all(type(c) is Card for c in v)

        ok = (
            _whole(self.number, 1) and _is_seat(self.dealer) and cards(self.deck)
            and isinstance(self.hands, tuple) and len(self.hands) == 2 and all(cards(h) for h in self.hands)
            and cards(self.stock) and cards(self.discard_pile) and type(self.first_upcard) is Card
            and _whole(self.knock_limit, 0, 10) and self.phase in ("upcard", "draw", "discard")
            and _is_seat(self.to_act) and _whole(self.upcard_passes, 0, 2)
            and (self.taken_from_discard is None or type(self.taken_from_discard) is Card)
            and isinstance(self.known, tuple) and len(self.known) == 2
            and all(isinstance(k, frozenset) and all(type(c) is Card for c in k) for k in self.known)
            and isinstance(self.history, tuple) and all(type(e) is Event for e in self.history)
        )
        if not ok:
            raise BadArgument("a round's fields are of the wrong type (see RoundState)")
        held = self.hands[0] + self.hands[1] + self.stock + self.discard_pile
        if len(held) != 52 or len(set(held)) != 52 or len(set(self.deck)) != 52:
            raise BadArgument("a round's hands, stock and discard pile must hold the 52 cards once each")

    @property
    def upcard_refused(self) -> bool:
        """True from the second pass until the non-dealer's first stock draw (R5.4)."""
        return self.upcard_passes == 2 and len(self.stock) == 31

    def to_dict(self) -> dict:
        return {
            "number": self.number,
            "dealer": self.dealer,
            "deck": card_codes(self.deck),
            "hands": [card_codes(h) for h in self.hands],
            "stock": card_codes(self.stock),
            "discard_pile": card_codes(self.discard_pile),
            "first_upcard": self.first_upcard.code,
            "knock_limit": self.knock_limit,
            "phase": self.phase,
            "to_act": self.to_act,
            "upcard_passes": self.upcard_passes,
            "taken_from_discard": self.taken_from_discard.code if self.taken_from_discard else None,
            "known": [card_codes(sort_cards(k)) for k in self.known],
            "history": [e.to_dict() for e in self.history],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "RoundState":
        """Rebuild from :meth:`to_dict`'s form; raises :class:`BadArgument` for another shape."""
        with _json_shape("a round"):
            d = _json_object(d)
            return cls(
                number=d["number"], dealer=d["dealer"], deck=parse_cards(d["deck"]),
                hands=tuple(parse_cards(h) for h in d["hands"]), stock=parse_cards(d["stock"]),
                discard_pile=parse_cards(d["discard_pile"]), first_upcard=Card.parse(d["first_upcard"]),
                knock_limit=d["knock_limit"], phase=d["phase"], to_act=d["to_act"],
                upcard_passes=d["upcard_passes"],
                taken_from_discard=Card.parse(d["taken_from_discard"]) if d["taken_from_discard"] else None,
                known=tuple(frozenset(parse_cards(k)) for k in d["known"]),
                history=_events_from_json(d["history"]),
            )


@dataclass(frozen=True, slots=True)
class MatchState:
    """A whole match (R10): rules, cumulative ``scores`` (points), ``dealer`` of the current or
    next round, ``round_number`` (rounds dealt), the ``round`` in play (None between rounds),
    finished ``results`` and the ``winner`` seat once the match is over. Full state: secret."""

    rules: RuleSet
    scores: tuple[int, int]
    dealer: int
    round_number: int = 0
    round: RoundState | None = None
    results: tuple[RoundResult, ...] = ()
    winner: int | None = None

    def __post_init__(self):
        """Check the fields' types; raises :class:`BadArgument`. (Moves copy a state without it.)"""
        ok = (
            isinstance(self.rules, RuleSet) and isinstance(self.scores, tuple) and len(self.scores) == 2
            and all(_whole(x, 0) for x in self.scores) and _is_seat(self.dealer)
            and _whole(self.round_number, 0) and (self.round is None or isinstance(self.round, RoundState))
            and isinstance(self.results, tuple) and all(isinstance(x, RoundResult) for x in self.results)
            and _is_seat(self.winner, none_ok=True)
        )
        if not ok:
            raise BadArgument("a match state's fields are of the wrong type (see MatchState)")

    @property
    def phase(self) -> str:
        """``"deal"``, ``"upcard"``, ``"draw"``, ``"discard"`` or ``"match_over"``."""
        if self.winner is not None:
            return "match_over"
        if self.round is None:
            return "deal"
        return self.round.phase

    @property
    def to_act(self) -> int | None:
        """The only seat that may act now, or None (between rounds, match over)."""
        if self.winner is not None or self.round is None:
            return None
        return self.round.to_act

    def to_dict(self) -> dict:
        """The full state (secret) as JSON; ``MatchState.from_dict`` restores it exactly."""
        return {
            "rules": self.rules.to_dict(),
            "scores": list(self.scores),
            "dealer": self.dealer,
            "round_number": self.round_number,
            "round": self.round.to_dict() if self.round else None,
            "results": [r.to_dict() for r in self.results],
            "winner": self.winner,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "MatchState":
        """Rebuild from :meth:`to_dict`'s form; raises :class:`BadArgument` (or the rule set's
        :class:`RuleSetError`) for another shape."""
        with _json_shape("a match state"):
            d = _json_object(d)
            return cls(
                    rules=RuleSet.from_dict(d["rules"]), scores=tuple(d["scores"]), dealer=d["dealer"],
                    round_number=d["round_number"],
                    round=RoundState.from_dict(d["round"]) if d["round"] else None,
                    results=tuple(RoundResult.from_dict(r) for r in d["results"]), winner=d["winner"],
            )


# ---------------------------------------------------------------------------------------------


def new_match(rules: RuleSet | None = None, first_dealer: int = 0) -> MatchState:
    """A match waiting for its first deal. ``first_dealer`` is chosen at random by the caller (R3.1).

    Raises :class:`BadArgument` unless ``rules`` is a :class:`RuleSet` (or None: the defaults)
    and ``first_dealer`` is 0 or 1."""
    if rules is not None and not isinstance(rules, RuleSet):
        raise BadArgument(f"rules must be a RuleSet or None, got {rules!r}")
    _check_seat(first_dealer, "first_dealer")
    return MatchState(rules=rules or RuleSet(), scores=(0, 0), dealer=first_dealer)


def deal(state: MatchState, deck: Sequence[Card | str]) -> tuple[MatchState, list[Event]]:
    """Deal the next round from an explicit 52-card order (R4).

    ``deck[0:10]`` go to the non-dealer, ``deck[10:20]`` to the dealer, ``deck[20]`` is the upcard
    (R4.2), ``deck[21:]`` the stock with ``deck[21]`` on top (R4.3). The knock limit comes from the
    upcard (R4.4). Raises :class:`IllegalAction` (``wrong_phase``) unless the phase is ``"deal"``,
    ``CardParseError`` (``bad_deck``) for a deck that is not the 52 distinct cards (None included),
    :class:`BadArgument` when ``state`` is not a :class:`MatchState`.
    """
    _check_state(state)
    if state.phase != "deal":
        raise IllegalAction(f"cannot deal in phase {state.phase!r}", code="wrong_phase", rule="R4")
    deck = validate_deck(deck)
    dealer = state.dealer
    non_dealer = 1 - dealer
    hands = [(), ()]
    hands[non_dealer] = sort_cards(deck[0:10])
    hands[dealer] = sort_cards(deck[10:20])
    upcard = deck[20]
    number = state.round_number + 1
    ev = Event("round_dealt", None, {"round": number, "dealer": dealer, "upcard": upcard.code,
                                     "knock_limit": state.rules.knock_limit_for(upcard)})
    rnd = RoundState(
        number=number, dealer=dealer, deck=deck, hands=(hands[0], hands[1]), stock=deck[21:],
        discard_pile=(upcard,), first_upcard=upcard, knock_limit=state.rules.knock_limit_for(upcard),
        phase="upcard", to_act=non_dealer, history=(ev,),
    )
    return replace(state, round=rnd, round_number=number), [ev]


def legal_actions(state: MatchState, seat: int | None = None) -> list[Action]:
    """The legal actions of the seat to act (or of ``seat``: empty when it is not its turn).

    Knocks are listed without melds, one per allowed discard (R7.1, R7.2, R6.3). Raises
    :class:`BadArgument` unless ``state`` is a :class:`MatchState` and ``seat`` 0, 1 or None.
    """
    _check_state(state)
    _check_seat(seat, none_ok=True)
    r = state.round
    if r is None or state.winner is not None or (seat is not None and seat != r.to_act):
        return []
    if r.phase == "upcard":
        return [TakeUpcard(), PassUpcard()]
    if r.phase == "draw":
        if r.upcard_refused:
            return [DrawStock()]
        return [DrawStock(), DrawDiscard()]
    hand = r.hands[r.to_act]
    forbidden = r.taken_from_discard if state.rules.forbid_discarding_drawn_upcard else None
    acts: list[Action] = [Discard(c) for c in hand if c is not forbidden]
    hmask = cards_mask(hand)
    fmask = forbidden.bit if forbidden else 0
    best, _ = mask_best_knock(hmask, fmask)
    if best <= r.knock_limit:
        for idx, dw in sorted(mask_knock_deadwoods(hmask, fmask).items()):
            if dw <= r.knock_limit:
                acts.append(Knock(Card.from_index(idx)))
    return acts


def _check_turn(r: RoundState, seat: int) -> None:
    if seat != r.to_act:
        raise NotYourTurn(f"it is seat {r.to_act}'s turn, not seat {seat}'s", rule="R6")


def apply(state: MatchState, seat: int, action: Action | dict) -> tuple[MatchState, list[Event]]:
    """Apply ``seat``'s ``action``; return ``(new_state, events)``. ``state`` is not changed.

    ``action`` may be an action value or its JSON dict. Raises :class:`MalformedAction`,
    :class:`NotYourTurn`, or :class:`IllegalAction` (codes ``wrong_phase``, ``card_not_in_hand``,
    ``upcard_unavailable`` R5.4, ``discard_taken_card`` R6.3, ``knock_over_limit`` R7.2,
    ``invalid_meld`` R2, ``illegal_action``), each naming the rule broken; :class:`BadArgument`
    when ``state`` is not a :class:`MatchState`.
    """
    _check_state(state)
    if isinstance(action, dict):
        action = action_from_dict(action)
    elif type(action) not in _ACTION_CLASSES:
        raise MalformedAction(f"an action must be an action value or its JSON object, got {action!r}")
    if type(seat) is not int or seat not in (0, 1):
        raise MalformedAction(f"seat must be 0 or 1, got {seat!r}")
    r = state.round
    if state.winner is not None:
        raise IllegalAction("the match is over", code="match_over", rule="R10.1")
    if r is None:
        raise IllegalAction("no round is in play: the next round has not been dealt", code="wrong_phase", rule="R4")
    _check_turn(r, seat)
    t = type(action)
    if r.phase == "upcard":
        if t is TakeUpcard:
            return _take_from_discard_pile(state, r, seat, "upcard_taken")
        if t is PassUpcard:
            return _pass_upcard(state, r, seat)
        raise IllegalAction(f"on the first turn the upcard is taken or passed (R5), not {action.type}",
                            code="wrong_phase", rule="R5.1")
    if r.phase == "draw":
        if t is DrawStock:
            return _draw_stock(state, r, seat)
        if t is DrawDiscard:
            if r.upcard_refused:
                raise IllegalAction("both players passed the upcard: the non-dealer must draw from the stock",
                                    code="upcard_unavailable", rule="R5.4")
            return _take_from_discard_pile(state, r, seat, "drew_discard")
        raise IllegalAction(f"draw first: draw_stock or draw_discard, not {action.type}",
                            code="wrong_phase", rule="R6.1")
    if r.phase == "discard":
        if t is Discard:
            return _discard(state, r, seat, action.card)
        if t is Knock:
            return _knock(state, r, seat, action)
        raise IllegalAction(f"you have drawn: discard or knock, not {action.type}",
                            code="wrong_phase", rule="R6.2")
    raise IllegalAction(f"no action in phase {r.phase!r}", code="wrong_phase")  # pragma: no cover


def _with_hand(hands, seat, hand):
    return (hand, hands[1]) if seat == 0 else (hands[0], hand)


def _pass_upcard(state, r, seat):
    ev = Event("upcard_passed", seat, {})
    passes = r.upcard_passes + 1
    if passes == 1:
        nr = replace(r, upcard_passes=1, to_act=r.dealer, history=r.history + (ev,))
    else:
        nr = replace(r, upcard_passes=2, to_act=1 - r.dealer, phase="draw", history=r.history + (ev,))
    return replace(state, round=nr), [ev]


def _draw_stock(state, r, seat):
    card = r.stock[0]
    ev = Event("drew_stock", seat, {"card": card.code})
    nr = replace(r, hands=_with_hand(r.hands, seat, sort_cards(r.hands[seat] + (card,))),
                 stock=r.stock[1:], phase="discard", taken_from_discard=None, history=r.history + (ev,))
    return replace(state, round=nr), [ev]


def _take_from_discard_pile(state, r, seat, event_type: str):
    """Take the top of the discard pile: the first upcard (R5) or a normal draw (R6.1).

    The card becomes known to hold (public) and may not be discarded this turn (R6.3)."""
    card = r.discard_pile[-1]
    ev = Event(event_type, seat, {"card": card.code})
    known = _with_hand(r.known, seat, r.known[seat] | {card})
    nr = replace(r, hands=_with_hand(r.hands, seat, sort_cards(r.hands[seat] + (card,))),
                 discard_pile=r.discard_pile[:-1], phase="discard", taken_from_discard=card,
                 known=known, history=r.history + (ev,))
    return replace(state, round=nr), [ev]


def _check_discard(state, r, seat, card: Card, what: str) -> tuple[Card, ...]:
    hand = r.hands[seat]
    if card not in hand:
        raise IllegalAction(f"{card.code} is not in your hand", code="card_not_in_hand", rule="R6.2")
    if state.rules.forbid_discarding_drawn_upcard and card is r.taken_from_discard:
        raise IllegalAction(f"{card.code} was just taken from the discard pile and may not be "
                            f"{what} this turn", code="discard_taken_card", rule="R6.3")
    return tuple(c for c in hand if c is not card)


def _discard(state, r, seat, card):
    rest = _check_discard(state, r, seat, card, "discarded")
    ev = Event("discarded", seat, {"card": card.code})
    known = _with_hand(r.known, seat, r.known[seat] - {card})
    nr = replace(r, hands=_with_hand(r.hands, seat, rest), discard_pile=r.discard_pile + (card,),
                 phase="draw", to_act=1 - seat, taken_from_discard=None, known=known,
                 history=r.history + (ev,))
    if len(nr.stock) <= 2:  # R8.1: the wall
        return _end_round_wall(state, nr, [ev])
    return replace(state, round=nr), [ev]


def _end_round_wall(state, r, events):
    result = RoundResult(
        number=r.number, dealer=r.dealer, outcome="wall", knocker=None, winner=None, points=0,
        hands=r.hands, discard=None, knocker_melds=(), knocker_deadwood=(),
        defender_melds=(), defender_deadwood=(), lay_offs=(),
        deadwood=(best_arrangement(r.hands[0]).deadwood_count, best_arrangement(r.hands[1]).deadwood_count),
        knock_limit=r.knock_limit, multiplier=state.rules.multiplier_for(r.first_upcard), scores_after=state.scores,
    )
    ev = Event("round_ended", None, {"result": result.to_dict()})
    # R3.3: the same dealer deals again
    return replace(state, round=None, results=state.results + (result,)), events + [ev]


def _validate_knock_melds(melds, hand_after: tuple[Card, ...]):
    seen: set[Card] = set()
    hand_set = set(hand_after)
    for m in melds:
        validate_meld(m)
        for c in m:
            if c not in hand_set:
                raise InvalidMeld(f"meld card {c.code} is not among the ten cards you keep", rule="R7.4")
            if c in seen:
                raise InvalidMeld(f"{c.code} is in two melds", rule="R2.3")
            seen.add(c)
    return tuple(c for c in hand_after if c not in seen)


def _knock(state, r, seat, action: Knock):
    rest = _check_discard(state, r, seat, action.card, "discarded on a knock")
    if action.melds is None:  # the engine arranges: RULES.md, note to R7.4
        hand = cards_mask(rest)
        live = FULL_MASK & ~cards_mask(r.hands[seat]) & ~cards_mask(r.discard_pile)
        arr = arrangement_from_masks(hand, mask_knock_arrangement(hand, live, cards_mask(r.known[1 - seat])))
        k_melds, k_dead, k_count = arr.melds, arr.deadwood, arr.deadwood_count
    else:
        k_dead = _validate_knock_melds(action.melds, rest)
        k_melds = tuple(tuple(m) for m in action.melds)
        k_count = mask_value(cards_mask(k_dead))
    if k_count > r.knock_limit:
        best = best_arrangement(rest).deadwood_count
        hint = "" if best > r.knock_limit else f" (your best arrangement has {best})"
        raise KnockOverLimit(f"knocking needs at most {r.knock_limit} deadwood points; these melds leave "
                             f"{k_count}{hint}")
    knocker, defender = seat, 1 - seat
    gin = k_count == 0
    defence = best_defence(k_melds, r.hands[defender], allow_lay_offs=not gin)  # R7.6, R9.4
    d_count = defence.deadwood_count
    rules = state.rules
    mult = rules.multiplier_for(r.first_upcard)
    if gin:  # R9.4
        outcome, winner, points = "gin", knocker, d_count + rules.gin_bonus
    elif k_count < d_count:  # R9.2
        outcome, winner, points = "knock", knocker, d_count - k_count
    else:  # R9.3
        outcome, winner, points = "undercut", defender, k_count - d_count + rules.undercut_bonus
    points *= mult
    scores = list(state.scores)
    scores[winner] += points
    scores = (scores[0], scores[1])
    deadwood = [0, 0]
    deadwood[knocker], deadwood[defender] = k_count, d_count
    hands = _with_hand(r.hands, seat, rest)
    result = RoundResult(
        number=r.number, dealer=r.dealer, outcome=outcome, knocker=knocker, winner=winner,
        points=points, hands=hands, discard=action.card, knocker_melds=k_melds,
        knocker_deadwood=k_dead, defender_melds=defence.melds, defender_deadwood=defence.deadwood,
        lay_offs=defence.lay_offs, deadwood=(deadwood[0], deadwood[1]), knock_limit=r.knock_limit,
        multiplier=mult, scores_after=scores,
    )
    events = [Event("knocked", seat, {"card": action.card.code, "gin": gin, "deadwood": k_count}),
              Event("round_ended", None, {"result": result.to_dict()})]
    new = replace(state, round=None, scores=scores, dealer=winner, results=state.results + (result,))  # R3.2
    if scores[winner] >= rules.target_score:  # R10.1
        new = replace(new, winner=winner)
        events.append(Event("match_ended", None, {"winner": winner, "scores": list(scores)}))
    return new, events


def replay(rules: RuleSet, first_dealer: int, decks: Iterable[Sequence[Card | str]],
           moves: Iterable[tuple[int, Action | dict]]) -> MatchState:
    """Rebuild a match from its rules, first dealer, the deck order of each round and the moves
    (``(seat, action)`` pairs, in order). Each time a round is needed the next deck is dealt;
    a deck left over after the last move is dealt too, as the server deals at once.

    Raises what :func:`new_match`, :func:`deal` and :func:`apply` raise, and :class:`BadArgument`
    when ``decks`` or ``moves`` is not iterable, a move is not a ``(seat, action)`` pair, or the
    decks run out before the moves."""
    try:
        decks = iter(decks)
        moves = iter(moves)
    except TypeError:
        raise BadArgument("decks and moves must be iterables") from None
    state = new_match(rules, first_dealer)
    for move in moves:
        if not isinstance(move, (tuple, list)) or len(move) != 2:
            raise BadArgument(f"a move is a (seat, action) pair, got {move!r}")
        seat, action = move
        if state.phase == "deal":
            deck = next(decks, None)
            if deck is None:
                raise BadArgument("the moves need another round but no deck order is left")
            state, _ = deal(state, deck)
        state, _ = apply(state, seat, action)
    if state.phase == "deal":
        nxt = next(decks, None)
        if nxt is not None:
            state, _ = deal(state, nxt)
    return state
