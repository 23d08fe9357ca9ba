"""Typed errors of the rules engine.

Every error is a ``ValueError`` carrying a stable machine-readable ``code`` and, when a rule of
``RULES.md`` is broken, the rule number (``rule``, e.g. ``"R7.2"``). Parsing errors
(:class:`CardParseError`, :class:`MalformedAction`, :class:`RuleSetError`, :class:`BadArgument`)
are kept apart from legality errors (:class:`NotYourTurn`, :class:`IllegalAction` and its
subclasses), as in python-chess. Every public engine function raises only these for bad input.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class: ``code`` (stable, snake_case), ``rule`` (``"R7.2"`` or None), ``message``."""

    code: str = "engine_error"
    rule: str | None = None

    def __init__(self, message: str, *, code: str | None = None, rule: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if rule is not None:
            self.rule = rule

    def to_dict(self) -> dict:
        """JSON form: ``{"code": str, "message": str, "rule": str | None}``."""
        return {"code": self.code, "message": self.message, "rule": self.rule}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, rule={self.rule!r})"


class CardParseError(EngineError):
    """A card code such as ``"11X"`` could not be parsed (R1.2)."""

    code = "bad_card"
    rule = "R1.2"


class RuleSetError(EngineError):
    """A rule set (variant or option) is malformed. ``field``: the option at fault (``"gin_bonus"``;
    for options that contradict each other, the one that would have to change), or None when the
    rule set as a whole is not an object."""

    code = "bad_rules"

    def __init__(self, message: str, *, field: str | None = None, **kwargs):
        super().__init__(message, **kwargs)
        self.field = field


class MalformedAction(EngineError):
    """An action is not of a known shape (unknown type, missing or extra fields, bad card)."""

    code = "malformed_action"


class BadArgument(EngineError):
    """An engine function was called with an argument of the wrong type or out of range (a
    state that is not a :class:`~.state.MatchState`, a seat other than 0 or 1, a hand holding a
    card twice, a JSON form that is not an object of the expected shape). JSON requests never
    produce it: it guards the engine as a Python library."""

    code = "bad_argument"


class NotYourTurn(EngineError):
    """The seat that sent the action is not the seat to act (R5, R6)."""

    code = "not_your_turn"


class IllegalAction(EngineError):
    """A well-formed action that the rules forbid in this state; ``code`` names the case."""

    code = "illegal_action"


class KnockOverLimit(IllegalAction):
    """A knock whose deadwood exceeds the round's knock limit (R7.2, R4.4)."""

    code = "knock_over_limit"
    rule = "R7.2"


class InvalidMeld(IllegalAction):
    """A meld attached to a knock is not a valid set or run, or melds overlap (R2)."""

    code = "invalid_meld"
    rule = "R2"
