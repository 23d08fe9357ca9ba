"""Shared pieces of the AI policies: the policy protocol, per-view random streams and hand masks.

A policy sees only a :class:`~games.engine.views.PlayerView` (what its seat may know, never the
opponent's hidden cards or the stock order) and returns one of ``view.legal_actions``.
"""

from __future__ import annotations

import hashlib
import random
from typing import Protocol

from ..actions import Action
from ..cards import cards_mask
from ..views import PlayerView


class Policy(Protocol):
    """An AI opponent: ``choose(view) -> action``, the action one of ``view.legal_actions``."""

    level: str

    def choose(self, view: PlayerView) -> Action:  # pragma: no cover - protocol
        ...


def view_key(view: PlayerView) -> str:
    """A stable text key of everything a decision depends on that the seat can see.

    Used to derive a per-decision random stream, so a seeded policy makes the same choice for the
    same view whatever it decided before (and whatever hidden cards lie behind the view).
    """
    parts = [
        str(view.seat), str(view.round_number), view.phase, str(view.scores),
        " ".join(c.code for c in view.hand), " ".join(c.code for c in view.discard_pile),
        str(view.stock_size), str(len(view.history)),
    ]
    return "|".join(parts)


def decision_rng(seed: int | None, view: PlayerView, fallback: random.Random) -> random.Random:
    """A ``random.Random`` for one decision: derived from ``seed`` and the view when seeded
    (reproducible across processes: SHA-256, not ``hash()``), else drawn from ``fallback``."""
    if seed is None:
        return random.Random(fallback.getrandbits(64))
    digest = hashlib.sha256(f"{seed}#{view_key(view)}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def hand_mask(view: PlayerView) -> int:
    """The 52-bit mask of the seat's own hand."""
    return cards_mask(view.hand)


def forbidden_mask(view: PlayerView) -> int:
    """Mask of the card the seat may not discard this turn (R6.3), or 0."""
    if view.rules.forbid_discarding_drawn_upcard and view.taken_from_discard is not None:
        return view.taken_from_discard.bit
    return 0
