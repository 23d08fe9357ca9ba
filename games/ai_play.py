"""Choosing the AI's action: the engine's policies when present, else a random legal action.

The policy only ever sees the acting seat's ``player_view`` (never the full state), so the AI plays
by the same information a person has. Used by ``games.services.ai_turn_play`` (AI seats) and by
the ``auto_play`` timeout policy (playing for a person who ran out of time).
"""
from __future__ import annotations

import logging
import secrets

from django.conf import settings

from games import engine

logger = logging.getLogger(__name__)

_system_random = secrets.SystemRandom()


def _get_policy_factory():
    try:
        from games.engine.ai import get_policy  # the AI issue's policies
    except ImportError:
        return None
    return get_policy


def _policy(level: str):
    get_policy = _get_policy_factory()
    if get_policy is None:
        return None
    kwargs = {}
    if settings.OKGIN_AI_TIME_BUDGET is not None:
        kwargs["time_budget"] = settings.OKGIN_AI_TIME_BUDGET
    if getattr(settings, "OKGIN_AI_ITERATIONS", None) is not None:
        kwargs["iterations"] = settings.OKGIN_AI_ITERATIONS  # replaces the time budget
    return get_policy(level, **kwargs)


def ai_policy_describe(level: str) -> str:
    """Which policy plays ``level`` in this process, e.g. ``"games.engine.ai strong (StrongPolicy,
    time_budget=0.2 s)"``, ``"... (StrongPolicy, iterations=32)"`` or ``"fallback: uniformly random
    legal action"``."""
    policy = _policy(level)
    if policy is None:
        return "fallback: uniformly random legal action (games.engine.ai not available)"
    budget = getattr(policy, "time_budget", settings.OKGIN_AI_TIME_BUDGET)
    budget_text = f", time_budget={budget} s" if budget is not None else ""
    if budget is None and getattr(policy, "max_iterations", None) is not None:
        budget_text = f", iterations={policy.max_iterations}"
    return f"games.engine.ai {level} ({type(policy).__name__}{budget_text})"


def ai_action_choose(*, level: str, view: engine.PlayerView, results=()) -> engine.Action:
    """The action the AI of ``level`` (random, simple, strong) plays from ``view`` (one seat's
    player view). ``results``: the match's finished rounds (``MatchState.results``, revealed in
    full, R9: public), from which the strong level's opponent model learns the opponent's style
    (its knocks and the knocks it let pass; the policy is made afresh for each action). A policy
    that fails or answers an action that is not legal is logged and replaced by a random legal
    action, so an AI turn never gets stuck."""
    legal = list(view.legal_actions)
    policy = _policy(level)
    if policy is not None:
        try:
            model = getattr(policy, "model", None)
            if model is not None and results and view.seat is not None:
                model.learn_results(results, view.seat, forbid=view.rules.forbid_discarding_drawn_upcard)
            action = policy.choose(view)
        except Exception:  # noqa: BLE001 - a broken policy must not stall the game
            logger.exception("AI policy %s failed; playing a random legal action", level)
        else:
            if action in legal or (isinstance(action, engine.Knock) and any(
                isinstance(a, engine.Knock) and a.card == action.card for a in legal
            )):
                return action
            logger.error("AI policy %s chose %r, not a legal action; playing a random one", level, action)
    return _system_random.choice(legal)
