"""AI opponents (issue 5): plain policy objects that see only a player view.

``get_policy(level).choose(player_view(state, seat)) -> Action``. Levels (:data:`LEVELS`):

- ``"random"``: a uniformly random legal action (:class:`RandomPolicy`).
- ``"simple"``: the baseline of OpenSpiel's ``simple_gin_rummy_bot`` (:class:`SimplePolicy`).
- ``"strong"``: card tracking, opponent-hand estimation, discard safety, expected-value knocking
  and determinized Monte Carlo search bounded by a time budget per turn (:class:`StrongPolicy`).

No framework imports here: the engine stays framework-free.
"""

from __future__ import annotations

import time
from typing import Callable

from .base import Policy
from .random_policy import RandomPolicy
from .simple import SimplePolicy
from .strong import StrongPolicy

LEVELS: tuple[str, ...] = ("random", "simple", "strong")


def get_policy(level: str, *, seed: int | None = None, time_budget: float = 0.2,
               clock: Callable[[], float] = time.perf_counter) -> Policy:
    """The policy of ``level`` (one of :data:`LEVELS`).

    ``seed``: an int makes decisions reproducible (a function of the view and the seed);
    ``time_budget``: seconds of search per turn (draw and discard) for ``"strong"`` (default 0.2);
    ``clock``: the time source (seconds) the strong search reads, injectable for tests.
    Raises ``ValueError`` for an unknown level.
    """
    if level == "random":
        return RandomPolicy(seed=seed)
    if level == "simple":
        return SimplePolicy(seed=seed)
    if level == "strong":
        return StrongPolicy(seed=seed, time_budget=time_budget, clock=clock)
    raise ValueError(f"unknown AI level {level!r}; expected one of {', '.join(LEVELS)}")


__all__ = ["LEVELS", "Policy", "RandomPolicy", "SimplePolicy", "StrongPolicy", "get_policy"]
