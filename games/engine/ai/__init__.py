"""AI opponents (issue 5): plain policy objects that see only a player view.

``get_policy(level).choose(player_view(state, seat)) -> Action``. Levels (:data:`LEVELS`):

- ``"random"``: a uniformly random legal action (:class:`RandomPolicy`).
- ``"simple"``: the baseline of OpenSpiel's ``simple_gin_rummy_bot`` (:class:`SimplePolicy`).
- ``"strong"``: card tracking, opponent-hand estimation, discard safety, expected-value knocking
  and determinized Monte Carlo search bounded by a time budget per turn, or an iteration budget
  per decision (:class:`StrongPolicy`).

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
               iterations: int | None = None, clock: Callable[[], float] = time.perf_counter) -> Policy:
    """The policy of ``level`` (one of :data:`LEVELS`).

    ``seed``: an int makes decisions reproducible (a function of the view and the seed);
    ``time_budget``: seconds of search per turn (draw and discard) for ``"strong"`` (default 0.2);
    ``iterations``: instead of the time budget, playouts per decision for ``"strong"``: the clock
    is not read and a seeded policy chooses the same on any machine, however loaded (tests);
    ``clock``: the time source (seconds) the strong search reads, injectable for tests.
    Raises ``ValueError`` for an unknown level or ``iterations`` below 1.
    """
    if level == "random":
        return RandomPolicy(seed=seed)
    if level == "simple":
        return SimplePolicy(seed=seed)
    if level == "strong":
        if iterations is not None:
            return StrongPolicy(seed=seed, time_budget=None, max_iterations=iterations, clock=clock)
        return StrongPolicy(seed=seed, time_budget=time_budget, clock=clock)
    raise ValueError(f"unknown AI level {level!r}; expected one of {', '.join(LEVELS)}")


__all__ = ["LEVELS", "Policy", "RandomPolicy", "SimplePolicy", "StrongPolicy", "get_policy"]
