"""Celery tasks of the games app. Like views, they take ids, call a service, and are safe to run
twice, late, or never (see ``okgin_project.celery``):

- ``ai_turn_play(game_id, expected_version)``: queued after commit whenever an accepted change makes
  it an AI seat's turn; a duplicate or stale delivery does nothing.
- ``ai_turns_sweep()`` (beat, every ``SWEEP_INTERVAL_SECONDS``): re-queues games where an AI has been
  due for more than ``OKGIN_AI_SWEEP_AFTER_SECONDS`` (its task was lost).
- ``deadlines_sweep()`` (beat): queues ``turn_timeout`` for every expired turn and sends the
  ``deadline_near`` reminders that are due.
- ``idempotency_records_prune()`` (beat, hourly): deletes expired idempotency records.
- ``review_run(review_id)``: queued after commit by a review request; reviews one player's
  decisions of a finished match with the strong evaluator (``services.review_run``).
"""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from celery.exceptions import SoftTimeLimitExceeded

from okgin_project.celery import OkginTask, SweepTask, app, requeue_once

from . import idempotency, services
from .models import Game, GameStatus

SWEEP_BATCH = 500


@app.task(base=OkginTask, name="games.ai_turn_play", soft_time_limit=20, time_limit=30)
def ai_turn_play(game_id: int, expected_version: int) -> int:
    """Play the AI's turn of ``game_id`` queued at ``expected_version``; returns actions played."""
    return services.ai_turn_play(game_id=game_id, expected_version=expected_version)


@app.task(base=OkginTask, name="games.turn_timeout", soft_time_limit=20, time_limit=30)
def turn_timeout(game_id: int, expected_version: int | None = None) -> str | None:
    """End ``game_id``'s expired turn by its timeout policy (no-op if a move got there first)."""
    return services.turn_timeout(game_id=game_id, expected_version=expected_version)


def ai_games_due(*, min_age_seconds: float) -> list[tuple[int, int]]:
    """``(game_id, version)`` of active games where an AI seat has been due to act for more than
    ``min_age_seconds`` (uses the partial index ``game_ai_due``)."""
    cutoff = timezone.now() - timedelta(seconds=min_age_seconds)
    return list(
        Game.objects.filter(status=GameStatus.ACTIVE, awaiting_ai=True, turn_started_at__lt=cutoff)
        .order_by("turn_started_at")
        .values_list("pk", "version")[:SWEEP_BATCH]
    )


@app.task(base=SweepTask, name="games.ai_turns_sweep", soft_time_limit=50, time_limit=60)
def ai_turns_sweep(min_age_seconds: float | None = None) -> int:
    """Queue ``ai_turn_play`` again for games whose AI has been due for more than
    ``min_age_seconds`` (default ``OKGIN_AI_SWEEP_AFTER_SECONDS``): the first task was lost (broker
    down at commit, worker killed). Returns how many were queued: each game and version at most
    once every ``OKGIN_REQUEUE_WITHIN_SECONDS`` (``requeue_once``; the copy expires after as long).
    A task that was only slow makes the copy a no-op (version check), so each turn still gets
    exactly one AI move. Single-flight (``SweepTask``): None when another run is in progress."""
    if min_age_seconds is None:
        min_age_seconds = settings.OKGIN_AI_SWEEP_AFTER_SECONDS
    within = settings.OKGIN_REQUEUE_WITHIN_SECONDS
    return sum(
        requeue_once(ai_turn_play, key=f"{game_id}:{version}", within=within, game_id=game_id,
                     expected_version=version)
        for game_id, version in ai_games_due(min_age_seconds=min_age_seconds)
    )


@app.task(base=SweepTask, name="games.deadlines_sweep", soft_time_limit=50, time_limit=60)
def deadlines_sweep() -> dict:
    """End the vacations that ran out (``vacations_expire``: their games resume), queue
    ``turn_timeout`` for each active game whose turn deadline has passed, send the
    due ``deadline_near`` reminders, abort unanswered invitations past their expiry (partial indexes ``game_active_deadline``,
    ``game_active_reminder``). Returns ``{"timeouts": n, "reminders": n, "invitations_expired": n, "vacations_ended": n}``
    (timeouts queued: each game and version at most once every ``OKGIN_REQUEUE_WITHIN_SECONDS``).
    Single-flight (``SweepTask``): None when another run is in progress."""
    now = timezone.now()
    # Vacations that ran out first: their games' clocks restart at the vacation's end, so a turn
    # that expired since is queued below in the same run.
    vacations = services.vacations_expire(now=now)
    expired = list(
        Game.objects.filter(status=GameStatus.ACTIVE, turn_deadline__lte=now)
        .order_by("turn_deadline")
        .values_list("pk", "version")[:SWEEP_BATCH]
    )
    within = settings.OKGIN_REQUEUE_WITHIN_SECONDS
    timeouts = sum(
        requeue_once(turn_timeout, key=f"{game_id}:{version}", within=within, game_id=game_id,
                     expected_version=version)
        for game_id, version in expired
    )
    reminders = 0
    due = Game.objects.filter(status=GameStatus.ACTIVE, turn_reminder_at__lte=now).values_list("pk", flat=True)
    for game_id in list(due[:SWEEP_BATCH]):
        reminders += services.deadline_reminder_send(game_id=game_id)
    return {"timeouts": timeouts, "reminders": reminders,
            "invitations_expired": services.invitations_expire(now=now), "vacations_ended": vacations}


@app.task(base=SweepTask, name="games.idempotency_records_prune", soft_time_limit=300, time_limit=330)
def idempotency_records_prune() -> int:
    """Delete idempotency records older than ``OKGIN_IDEMPOTENCY_TTL_SECONDS`` (beat, hourly);
    returns how many."""
    return idempotency.idempotency_records_prune()


@app.task(base=OkginTask, name="games.review_run", soft_time_limit=600, time_limit=660)
def review_run(review_id: int) -> str | None:
    """Review the decisions of game review ``review_id`` (``services.review_run``); returns its final
    status or None (nothing to do). Past the soft time limit the review is marked failed (a new
    request queues it again)."""
    try:
        return services.review_run(review_id=review_id)
    except SoftTimeLimitExceeded:
        return services.review_fail(review_id=review_id, message="the review took longer than its time limit")
