"""AI turns: the AI seat's actions of one turn, played in one transaction, and playing a turn's action
for any seat by an AI policy (``_ai_action_play``, also used to auto-play for a person who ran out of
time: ``games.services.deadlines``).

The policy sees only the acting seat's ``player_view`` (``games.ai_play``), never the full state.
``ai_turn_play`` is run by the task ``games.tasks.ai_turn_play``, queued after commit whenever an
accepted change makes it an AI seat's turn (``common._ai_turn_schedule_if_due``).
"""
from __future__ import annotations

import logging

from django.db import transaction

from games import engine

from ..ai_play import ai_action_choose
from ..models import Game, GameStatus
from .common import (PendingWrites, _action_apply, _actions_written, _ai_turn_schedule_if_due, _game_lock,
                     _state_of, _system_random)

logger = logging.getLogger(__name__)

AI_TURN_MAX_ACTIONS = 40  # per task; a longer run is continued by a fresh task


def ai_turn_play(*, game_id: int, expected_version: int) -> int:
    """Play the AI seat's actions in ``game_id`` while it keeps the turn (the upcard protocol, draw
    and discard, the first turn of the next round), starting at ``expected_version``.

    Locks the game row once, checks that it is still at the expected version (else a duplicate or
    stale delivery: a no-op), then, while an AI seat is to act, asks the AI policy using only that
    seat's ``player_view`` and applies its action like a person's. The whole turn (at most
    ``AI_TURN_MAX_ACTIONS`` actions) is one transaction: the person's client, long-polling the game,
    is woken once with the turn done instead of once per AI action (issue 14: that halved the
    game-view requests per AI turn), the moves inserted in one statement, the game row saved and
    the events created once at the end of the turn, not after each action (issue 14), and a worker
    killed mid-turn leaves no half turn behind (the redelivered task plays it again from
    ``expected_version``). Returns the number of actions played (0 for a no-op). Safe to run twice,
    late, or concurrently: each version gets at most one action.
    """
    played = 0
    with transaction.atomic():
        game = _game_lock(game_id=game_id)  # locked until the turn commits: no need to read it again
        if game.version != expected_version:
            return 0
        pending = PendingWrites()  # the turn's moves and notices: written once, at its end
        while game.status == GameStatus.ACTIVE and game.awaiting_ai:
            if played >= AI_TURN_MAX_ACTIONS:
                _ai_turn_schedule_if_due(game=game)
                break
            _ai_action_play(game=game, seat=game.to_act_seat, level=game.player_at(game.to_act_seat).ai_level,
                            pending=pending)
            played += 1
        if played:
            _actions_written(game=game, notices=pending.notices, moves=pending.moves)
    return played


def _ai_action_play(*, game: Game, seat: int, level: str, auto_played: bool = False,
                    pending: PendingWrites | None = None) -> None:
    """Let the AI of ``level`` choose ``seat``'s next action from that seat's ``player_view`` and
    apply it to the locked ``game`` (``common._action_apply``, with ``pending`` if given: the row's
    save and the events left to the caller; ``auto_played``: for a person after a timeout). If the
    engine refuses the action (a policy bug), log it and apply a random legal action instead, so
    the turn cannot get stuck (the engine refuses before anything is written or changed, so no
    savepoint is needed). Does not queue the AI's next turn."""
    state = _state_of(game)
    view = engine.player_view(state, seat)
    action = ai_action_choose(level=level, view=view, results=state.results)
    try:
        _action_apply(game=game, seat=seat, action=action, auto_played=auto_played, pending=pending)
    except engine.EngineError as exc:
        logger.error("AI action %r refused (%s); playing a random legal action", action, exc)
        fallback = _system_random.choice(list(view.legal_actions))
        _action_apply(game=game, seat=seat, action=fallback, auto_played=auto_played, pending=pending)
