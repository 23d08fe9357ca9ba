"""The rule set of a match: the variant and every option (RULES.md "Variants")."""

from __future__ import annotations

from dataclasses import dataclass, fields

from .cards import Card
from .errors import BadArgument, RuleSetError

VARIANTS = ("oklahoma", "classic")
# The whole-number options' allowed values (points, inclusive): gin_bonus R9.4, undercut_bonus
# R9.3, target_score R10.1.
OPTION_RANGES = {"gin_bonus": (0, 1000), "undercut_bonus": (0, 1000), "target_score": (1, 10000)}


def _cut(text: str) -> str:
    """``text`` for an error message, cut to 40 characters (a request may send megabytes)."""
    return text if len(text) <= 40 else text[:37] + "..."


def _shown(value) -> str:
    """``repr(value)``, cut (``_cut``)."""
    return _cut(repr(value))


def _check_upcard(upcard) -> None:
    if type(upcard) is not Card:
        raise BadArgument(f"upcard must be a Card, got {upcard!r}")


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The variant and options a match is played under; stored with each game so it replays.

    - ``variant``: ``"oklahoma"`` (knock limit from the first upcard, R4.4) or ``"classic"``.
    - ``knock_limit``: ``"upcard"`` (Oklahoma) or a fixed number of points 0..10; ``None`` at
      construction means the variant's default (``"upcard"`` / 10).
    - ``gin_bonus`` (points, R9.4, default 25), ``undercut_bonus`` (R9.3, 10),
      ``target_score`` (R10.1, 100).
    - ``forbid_discarding_drawn_upcard`` (R6.3, default true).
    - House rules, off by default: ``spade_doubles`` (Oklahoma: a spade first upcard doubles the
      round's points) and ``ace_requires_gin`` (Oklahoma: an ace first upcard makes the knock limit 0).

    Raises :class:`RuleSetError` (``bad_rules``) for a bad value and for options that contradict
    each other: a fixed ``knock_limit`` under the classic variant is required (R4.4), the house
    rules are Oklahoma's, and ``ace_requires_gin`` needs the knock limit to come from the upcard
    (with a fixed limit the option would do nothing).
    """

    variant: str = "oklahoma"
    knock_limit: str | int | None = None
    gin_bonus: int = 25
    undercut_bonus: int = 10
    target_score: int = 100
    forbid_discarding_drawn_upcard: bool = True
    spade_doubles: bool = False
    ace_requires_gin: bool = False

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise RuleSetError(f"unknown variant {_shown(self.variant)}; expected one of {', '.join(VARIANTS)}",
                               field="variant")
        if self.knock_limit is None:
            object.__setattr__(self, "knock_limit", "upcard" if self.variant == "oklahoma" else 10)
        kl = self.knock_limit
        if kl != "upcard" and not (isinstance(kl, int) and not isinstance(kl, bool) and 0 <= kl <= 10):
            raise RuleSetError(f"knock_limit must be 'upcard' or a number 0..10, got {_shown(kl)}", field="knock_limit")
        if self.variant == "classic" and kl == "upcard":
            raise RuleSetError("the classic variant has a fixed knock limit (R4.4)", field="knock_limit")
        for name, (lo, hi) in OPTION_RANGES.items():
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                raise RuleSetError(f"{name} must be a whole number from {lo} to {hi}, got {_shown(v)}", field=name)
        for name in ("forbid_discarding_drawn_upcard", "spade_doubles", "ace_requires_gin"):
            if not isinstance(getattr(self, name), bool):
                raise RuleSetError(f"{name} must be true or false", field=name)
        if self.variant != "oklahoma" and (self.spade_doubles or self.ace_requires_gin):
            raise RuleSetError("spade_doubles and ace_requires_gin are Oklahoma options",
                               field="spade_doubles" if self.spade_doubles else "ace_requires_gin")
        if self.ace_requires_gin and kl != "upcard":
            raise RuleSetError(f"ace_requires_gin changes the knock limit set by an ace upcard (R4.4); "
                               f"with a fixed knock_limit of {kl} it would do nothing", field="ace_requires_gin")

    def knock_limit_for(self, upcard: Card) -> int:
        """The round's knock limit in points given its first upcard (R4.4).

        Raises :class:`BadArgument` when ``upcard`` is not a ``Card``."""
        _check_upcard(upcard)
        if self.knock_limit == "upcard":
            if self.ace_requires_gin and upcard.rank == 1:
                return 0
            return upcard.value
        return int(self.knock_limit)

    def multiplier_for(self, upcard: Card) -> int:
        """The round's points multiplier: 2 for a spade first upcard under ``spade_doubles``.

        Raises :class:`BadArgument` when ``upcard`` is not a ``Card``."""
        _check_upcard(upcard)
        return 2 if self.spade_doubles and upcard.suit == "S" else 1

    def to_dict(self) -> dict:
        """JSON form: every field by name (its values are plain JSON values, so no
        ``dataclasses.asdict``, whose deep copies made it several times slower: issue 14)."""
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_dict(cls, data: dict | None) -> "RuleSet":
        """Build from JSON (an object, or None for the defaults); anything else, unknown keys or
        bad values raise :class:`RuleSetError` (``bad_rules``)."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise RuleSetError(f"rules must be a JSON object, got {_shown(data)}")
        data = dict(data)
        names = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in set(data) - names)
        if unknown:
            raise RuleSetError(f"unknown rule option(s): {_cut(', '.join(unknown))}", field=unknown[0])
        return cls(**data)
