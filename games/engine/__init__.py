"""okgin rules engine: Oklahoma Gin and classic Gin Rummy, framework-free (no Django here).

Public API (see each module's docstrings and ``RULES.md`` for the rule numbers):

- cards: :class:`Card`, :func:`parse_cards`, :data:`FULL_DECK`, :func:`shuffled_deck`
- rules: :class:`RuleSet`
- melds: :func:`best_arrangement`, :func:`best_knock`, :func:`best_defence`, :func:`min_deadwood`
- actions: :class:`TakeUpcard`, :class:`PassUpcard`, :class:`DrawStock`, :class:`DrawDiscard`,
  :class:`Discard`, :class:`Knock`, :func:`action_from_dict`
- state: :func:`new_match`, :func:`deal`, :func:`legal_actions`, :func:`apply`, :func:`replay`,
  :class:`MatchState`, :class:`RoundState`, :class:`RoundResult`, :class:`Event`, :func:`redact_event`
- views: :func:`player_view`, :func:`public_view`, :class:`PlayerView`
- errors: :class:`EngineError` and subclasses, each with a stable ``code`` and ``rule``
"""

from .actions import (ACTION_TYPES, Action, Discard, DrawDiscard, DrawStock, Knock, PassUpcard,
                      TakeUpcard, action_from_dict)
from .cards import (FULL_DECK, Card, card_codes, cards_mask, mask_cards, parse_cards, shuffled_deck,
                    sort_cards, validate_deck)
from .errors import (CardParseError, EngineError, IllegalAction, InvalidMeld, KnockOverLimit,
                     MalformedAction, NotYourTurn, RuleSetError)
from .melds import (Arrangement, Defence, KnockOption, best_arrangement, best_defence, best_knock,
                    can_knock, is_run, is_set, meld_kind, min_deadwood, validate_meld)
from .rules import RuleSet
from .state import (Event, MatchState, RoundResult, RoundState, apply, deal, legal_actions,
                    new_match, redact_event, replay)
from .views import PlayerView, player_view, public_view

__all__ = [name for name in dir() if not name.startswith("_")]
