"""Writes for games (HackSoft style: keyword-only arguments, ``<entity>_<verb>`` names), by concern:

- ``creation``: ``game_create``, ``invitation_accept``, ``invitation_decline``, ``invitation_abort``;
- ``actions``: ``action_submit`` (``ActionResponse``, ``TurnExpired``) and ``game_resign``;
- ``deadlines``: ``turn_timeout``, ``deadline_reminder_send``, ``invitations_expire``;
- ``vacation``: ``vacation_start``, ``vacation_end``, ``vacation_state``, ``vacation_expire``,
  ``vacations_expire``, ``game_vacations_expire`` (pausing and resuming a player's games), and
  ``game_deadline_enforce`` (a run-out vacation, then an expired turn, applied on read);
- ``rematch``: ``rematch_offer``, ``rematch_accept``, ``rematch_decline`` (after a finished match),
  ``rematch_offers_close`` (account deletion);
- ``review``: ``review_request``, ``review_get``, ``review_run`` (a player's decisions judged by the
  strong evaluator after a finished match, in a Celery task);
- ``ai``: ``ai_turn_play`` (the AI seat's turn) and playing one action by an AI policy;
- ``common``: shared helpers (row lock, turn clock, dealing, starting and finishing a match,
  applying one engine action, queueing the AI's turn).

Modules import each other one way only: ``common`` <- ``ai`` <- ``deadlines`` <- ``vacation`` <-
``actions``, and
``common`` <- ``creation``. Everything public is re-exported here: ``from games import services;
services.action_submit(...)``.

Locking and transactions, the rules every service follows:

1. A write opens its transaction here (``transaction.atomic``), never in a view or task, and locks
   the game row with ``select_for_update()`` (``common._game_lock``) before deciding anything. The
   lock is what serializes two racing writes on one game (two actions, an action and its timeout,
   an acceptance and the invitation's expiry); after taking it a service re-checks what it read
   before (status, version, deadline).
   Services that lock players' rows do it before any game's, in id order: a vacation (the
   player, then their active games), an account deletion, and every start of a match
   (``invitation_accept``, a rematch, a game against the AI: ``common._players_lock``, so the start
   and a vacation turned on at the same instant serialize and the match starts paused or is
   paused). Nothing locks a game and then a player, so these cannot deadlock.
2. Helpers that take a ``game`` (``common._action_apply``, ``deadlines._turn_timeout_apply``, ...)
   expect the caller's transaction and lock; they open none of their own except a savepoint where
   a refused AI action must leave nothing behind.
3. A rejected request raises before anything is written, and the transaction rolls back: nothing
   half-written. Every accepted change bumps ``Game.version`` (the clients' ``expected_version``).
4. Notification events are written in the same transaction as the change
   (``notifications.services.events_create``): they commit or roll back with it.
5. Work for other processes (the AI's turn, webhook deliveries) is queued after commit, through
   ``games.queue`` and ``notifications.queue``, so a worker only ever sees committed state. Services
   never import task modules; tasks import services. The AI plays each action in its own
   transaction (``ai.ai_turn_play``), so a long AI turn never holds the lock for long.

Turns and deadlines: a turn is the run of consecutive actions of one seat; it starts when the seat
to act changes or a round is dealt (``Game.turn_started_at``). A person's turn under a time limit
has a ``turn_deadline``; when it passes, ``turn_timeout`` ends the turn by the game's
``timeout_policy`` under the same row lock as an action, so a move arriving at the deadline and the
timeout never both apply. Reads apply expired deadlines before they query, beat or not
(``games.sweeps.deadlines_apply_for_player``, ``game_deadline_enforce``), and without beat the web
process runs the sweeps itself (``games.sweeps.SweepScheduler``).
"""
from .actions import ActionResponse, TurnExpired, action_submit, game_resign
from .ai import AI_TURN_MAX_ACTIONS, ai_turn_play
from .creation import game_create, invitation_abort, invitation_accept, invitation_decline
from .rematch import rematch_accept, rematch_decline, rematch_offer, rematch_offers_close
from .deadlines import deadline_reminder_send, invitations_expire, turn_timeout
from .review import review_fail, review_get, review_request, review_run
from .vacation import (VacationState, game_deadline_enforce, game_vacations_expire, vacation_end, vacation_expire,
                       vacation_start, vacation_state, vacations_expire)

__all__ = [
    "AI_TURN_MAX_ACTIONS",
    "ActionResponse",
    "TurnExpired",
    "action_submit",
    "ai_turn_play",
    "deadline_reminder_send",
    "game_create",
    "game_deadline_enforce",
    "game_resign",
    "invitation_abort",
    "invitation_accept",
    "invitation_decline",
    "invitations_expire",
    "turn_timeout",
    "rematch_accept",
    "rematch_decline",
    "rematch_offer",
    "rematch_offers_close",
    "VacationState",
    "game_vacations_expire",
    "vacation_end",
    "vacation_expire",
    "vacation_start",
    "vacation_state",
    "vacations_expire",
    "review_fail",
    "review_get",
    "review_request",
    "review_run",
]
