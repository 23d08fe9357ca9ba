"""The ``random`` level: a uniformly random legal action (a floor for benchmarks and tests)."""

from __future__ import annotations

import random

from ..actions import Action
from ..views import PlayerView
from .base import decision_rng


class RandomPolicy:
    """Chooses uniformly among ``view.legal_actions``.

    ``seed``: an int makes every decision a function of the view alone; None draws from the
    system's entropy. Raises ``ValueError`` when the view has no legal action (not its turn).
    """

    level = "random"

    def __init__(self, *, seed: int | None = None):
        self.seed = seed
        self._rng = random.Random(seed if seed is not None else random.SystemRandom().getrandbits(64))

    def choose(self, view: PlayerView) -> Action:
        if not view.legal_actions:
            raise ValueError("no legal action in this view: it is not this seat's turn")
        return decision_rng(self.seed, view, self._rng).choice(list(view.legal_actions))
