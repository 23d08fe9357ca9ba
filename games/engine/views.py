"""The one door through which state reaches a player: ``player_view`` and ``public_view``.

A seat sees its own hand, the discard pile, the opponent's card count and the cards the
opponent is known to hold (taken from the discard pile), the stock size, phase, turn, knock
limit, scores, this round's history redacted for it, its legal actions, and every finished
round in full. It never sees the opponent's other cards, the stock order or the deck.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action, action_from_dict
from .cards import Card, card_codes, parse_cards, sort_cards
from .melds import Arrangement, best_arrangement
from .rules import RuleSet
from .state import (MatchState, RoundResult, _check_seat, _check_state, _json_object, _json_shape, _redact,
                    legal_actions)


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What ``seat`` may know (``seat`` None: the public view, with no hand).

    Shapes: ``hand``/``discard_pile``/``opponent_known_cards`` are tuples of cards (discard pile
    bottom..top); ``scores`` (points) and ``hand_sizes`` are per seat; ``history`` is this
    round's events as redacted dicts; ``legal_actions`` the seat's actions (empty when it is not
    its turn); ``last_result`` the last finished round, in full.
    """

    seat: int | None
    rules: RuleSet
    phase: str
    to_act: int | None
    dealer: int
    round_number: int
    scores: tuple[int, int]
    knock_limit: int | None
    first_upcard: Card | None
    hand: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    stock_size: int
    hand_sizes: tuple[int, int]
    known_cards: tuple[tuple[Card, ...], tuple[Card, ...]]
    taken_from_discard: Card | None
    upcard_refused: bool
    history: tuple[dict, ...]
    legal_actions: tuple[Action, ...]
    last_result: RoundResult | None
    winner: int | None

    @property
    def upcard(self) -> Card | None:
        """The top of the discard pile, or None when it is empty."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def opponent_known_cards(self) -> tuple[Card, ...]:
        """Cards the opponent took from the discard pile and still holds."""
        return () if self.seat is None else self.known_cards[1 - self.seat]

    @property
    def opponent_hand_size(self) -> int:
        return 0 if self.seat is None else self.hand_sizes[1 - self.seat]

    @property
    def arrangement(self) -> Arrangement | None:
        """The best arrangement of the own hand (R2.4), or None for the public view."""
        return best_arrangement(self.hand) if self.seat is not None and self.hand else None

    def to_dict(self) -> dict:
        """JSON form (what the API returns for this seat)."""
        arr = self.arrangement
        return {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "phase": self.phase,
            "to_act": self.to_act,
            "dealer": self.dealer,
            "round_number": self.round_number,
            "scores": list(self.scores),
            "knock_limit": self.knock_limit,
            "first_upcard": self.first_upcard.code if self.first_upcard else None,
            "hand": card_codes(self.hand),
            "melds": arr.to_dict()["melds"] if arr else [],
            "deadwood": card_codes(arr.deadwood) if arr else [],
            "deadwood_count": arr.deadwood_count if arr else None,
            "upcard": self.upcard.code if self.upcard else None,
            "discard_pile": card_codes(self.discard_pile),
            "stock_size": self.stock_size,
            "hand_sizes": list(self.hand_sizes),
            "opponent_hand_size": self.opponent_hand_size,
            "known_cards": [card_codes(k) for k in self.known_cards],
            "opponent_known_cards": card_codes(self.opponent_known_cards),
            "taken_from_discard": self.taken_from_discard.code if self.taken_from_discard else None,
            "upcard_refused": self.upcard_refused,
            "history": list(self.history),
            "legal_actions": [a.to_dict() for a in self.legal_actions],
            "last_result": self.last_result.to_dict() if self.last_result else None,
            "winner": self.winner,
        }

    @classmethod
    def from_dict(cls, d: dict) -> "PlayerView":
        """Rebuild a view from its JSON form (for bots that play over the API); raises
        :class:`BadArgument` (or the parsing errors of cards, actions and rules) for another shape."""
        with _json_shape("a player view"):
            d = _json_object(d)
            return cls(
                seat=d["seat"], rules=RuleSet.from_dict(d["rules"]), phase=d["phase"], to_act=d["to_act"],
                dealer=d["dealer"], round_number=d["round_number"], scores=tuple(d["scores"]),
                knock_limit=d["knock_limit"],
                first_upcard=Card.parse(d["first_upcard"]) if d["first_upcard"] else None,
                hand=parse_cards(d["hand"]), discard_pile=parse_cards(d["discard_pile"]),
                stock_size=d["stock_size"], hand_sizes=tuple(d["hand_sizes"]),
                known_cards=tuple(parse_cards(k) for k in d["known_cards"]),
                taken_from_discard=Card.parse(d["taken_from_discard"]) if d["taken_from_discard"] else None,
                upcard_refused=d["upcard_refused"], history=tuple(d["history"]),
                legal_actions=tuple(action_from_dict(a) for a in d["legal_actions"]),
                last_result=RoundResult.from_dict(d["last_result"]) if d["last_result"] else None,
                winner=d["winner"],
            )


def player_view(state: MatchState, seat: int | None) -> PlayerView:
    """The state as ``seat`` (0 or 1) may see it; ``seat=None`` gives the public view.

    The only function that turns secret state into something a client or an AI receives.
    Raises :class:`BadArgument` unless ``state`` is a :class:`MatchState` and ``seat`` 0, 1 or None.
    """
    _check_state(state)
    _check_seat(seat, none_ok=True)
    r = state.round
    last = state.results[-1] if state.results else None
    if r is None:
        return PlayerView(
            seat=seat, rules=state.rules, phase=state.phase, to_act=None, dealer=state.dealer,
            round_number=state.round_number, scores=state.scores, knock_limit=None, first_upcard=None,
            hand=(), discard_pile=(), stock_size=0, hand_sizes=(0, 0), known_cards=((), ()),
            taken_from_discard=None, upcard_refused=False, history=(), legal_actions=(),
            last_result=last, winner=state.winner,
        )
    return PlayerView(
        seat=seat, rules=state.rules, phase=r.phase, to_act=r.to_act, dealer=r.dealer,
        round_number=r.number, scores=state.scores, knock_limit=r.knock_limit,
        first_upcard=r.first_upcard, hand=r.hands[seat] if seat is not None else (),
        discard_pile=r.discard_pile, stock_size=len(r.stock),
        hand_sizes=(len(r.hands[0]), len(r.hands[1])),
        known_cards=(sort_cards(r.known[0]), sort_cards(r.known[1])),
        taken_from_discard=r.taken_from_discard, upcard_refused=r.upcard_refused,
        history=tuple(_redact(e.to_dict(), seat) for e in r.history),
        legal_actions=tuple(legal_actions(state, seat)) if seat is not None else (),
        last_result=last, winner=state.winner,
    )


def public_view(state: MatchState) -> PlayerView:
    """The view of a spectator: no hand at all (:class:`BadArgument` for a non-state)."""
    return player_view(state, None)
