"""okgin rules engine: Oklahoma Gin and classic Gin Rummy, framework-free (no Django here).

Public API (see each module's docstrings and ``RULES.md`` for the rule numbers):

- cards: :class:`Card`, :func:`parse_cards`, :data:`FULL_DECK`, :func:`shuffled_deck`
- rules: :class:`RuleSet`
- melds: :func:`best_arrangement`, :func:`best_knock`, :func:`best_defence`, :func:`min_deadwood`,
  :func:`knock_arrangement` (the knock's default melds, RULES.md note to R7.4)
- actions: :class:`TakeUpcard`, :class:`PassUpcard`, :class:`DrawStock`, :class:`DrawDiscard`,
  :class:`Discard`, :class:`Knock`, :func:`action_from_dict`
- state: :func:`new_match`, :func:`deal`, :func:`legal_actions`, :func:`apply`, :func:`replay`,
  :class:`MatchState`, :class:`RoundState`, :class:`RoundResult`, :class:`Event`, :func:`redact_event`
- views: :func:`player_view`, :func:`public_view`, :class:`PlayerView`
- errors: :class:`EngineError` and subclasses, each with a stable ``code`` and ``rule``

Every public function and class here checks its arguments at the boundary: bad input raises an
:class:`EngineError` subclass (never ``TypeError``/``AttributeError``) and changes no state.
"""

from .actions import (ACTION_TYPES, Action, Discard, DrawDiscard, DrawStock, Knock, PassUpcard,
                      TakeUpcard, action_from_dict)
from .cards import (FULL_DECK, Card, card_codes, cards_mask, mask_cards, parse_cards, shuffled_deck,
                    sort_cards, validate_deck)
from .errors import (BadArgument, CardParseError, EngineError, IllegalAction, InvalidMeld, KnockOverLimit,
                     MalformedAction, NotYourTurn, RuleSetError)
from .melds import (Arrangement, Defence, KnockOption, best_arrangement, best_defence, best_knock,
                    can_knock, is_run, is_set, knock_arrangement, meld_kind, min_deadwood, validate_meld)
from .rules import RuleSet
from .state import (Event, MatchState, RoundResult, RoundState, apply, deal, legal_actions,
                    new_match, redact_event, replay)
from .views import PlayerView, player_view, public_view

__all__ = [
    "ACTION_TYPES", "Action", "Discard", "DrawDiscard", "DrawStock", "Knock", "PassUpcard", "TakeUpcard",
    "action_from_dict",
    "FULL_DECK", "Card", "card_codes", "cards_mask", "mask_cards", "parse_cards", "shuffled_deck", "sort_cards",
    "validate_deck",
    "BadArgument", "CardParseError", "EngineError", "IllegalAction", "InvalidMeld", "KnockOverLimit",
    "MalformedAction", "NotYourTurn", "RuleSetError",
    "Arrangement", "Defence", "KnockOption", "best_arrangement", "best_defence", "best_knock", "can_knock",
    "is_run", "knock_arrangement", "is_set", "meld_kind", "min_deadwood", "validate_meld",
    "RuleSet",
    "Event", "MatchState", "RoundResult", "RoundState", "apply", "deal", "legal_actions", "new_match",
    "redact_event", "replay",
    "PlayerView", "player_view", "public_view",
]
