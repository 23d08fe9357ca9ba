"""The tasks the games services queue, named in one place.

Services never import ``games.tasks`` (the tasks import the services): they call these functions,
which name the task as registered with Celery and queue it after the current transaction commits
(``okgin_project.celery.enqueue_after_commit``), so a worker only ever sees committed rows.
"""
from __future__ import annotations

from okgin_project.celery import enqueue_after_commit

AI_TURN_PLAY = "games.ai_turn_play"  # games.tasks.ai_turn_play


def ai_turn_queue(*, game_id: int, expected_version: int) -> None:
    """After commit, queue ``games.tasks.ai_turn_play`` for ``game_id`` at ``expected_version`` (a
    duplicate or stale delivery is a no-op there)."""
    enqueue_after_commit(AI_TURN_PLAY, game_id=game_id, expected_version=expected_version)

REVIEW_RUN = "games.review_run"  # games.tasks.review_run


def review_queue(*, review_id: int) -> None:
    """After commit, queue ``games.tasks.review_run`` for ``review_id`` (a done review makes a
    duplicate a no-op there)."""
    enqueue_after_commit(REVIEW_RUN, review_id=review_id)
