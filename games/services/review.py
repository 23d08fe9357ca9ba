"""Game reviews (issue 16): a participant of a finished match asks for a review of its own
decisions; a Celery task (``games.review_run``) judges each with the strong evaluator
(``games.engine.review``) from the views the player had, rebuilt from the stored decks and moves.

``review_request`` creates the ``GameReview`` (one per game and seat) and queues the task after
commit; asking again returns the existing review, and queues it again only when it failed or its
task looks lost (no progress for ``REVIEW_REQUEUE_AFTER_SECONDS``). ``review_run`` (the task's body)
is safe to run twice, late or concurrently: a done review is never redone, and only the first run
to finish writes the result.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from games import engine
from games.engine import review as engine_review
from okgin_project.errors import Conflict, NotFound
from players.models import Player

from .. import queue
from ..models import Game, GameReview, GameStatus, Move, ReviewStatus, Round
from .common import _game_lock

logger = logging.getLogger(__name__)

REVIEW_REQUEUE_AFTER_SECONDS = 300  # a queued or running review with no progress for this long is queued again


def _participant_seat(game: Game, player: Player) -> int:
    """The seat of ``player`` in the finished ``game``; ``NotFound`` for anyone else (the same answer
    as for a game that does not exist), ``Conflict`` ``game_not_finished`` before the end."""
    seat = game.seat_of(player)
    if seat is None:
        raise NotFound("No such game.")
    if game.status != GameStatus.FINISHED:
        raise Conflict("Only a finished match can be reviewed.", code="game_not_finished")
    return seat


def review_request(*, game_id: int, player: Player) -> tuple[GameReview, bool]:
    """Ask for the review of ``player``'s decisions in the finished match ``game_id``. Returns
    ``(review, queued)``: the review (new, or the existing one for this game and seat) and whether
    its task was queued now (after commit): for a new review, a failed one (retried) or one whose
    task shows no progress for ``REVIEW_REQUEUE_AFTER_SECONDS`` (lost: broker down, worker killed).

    Raises ``NotFound`` (no such game, or not seated: the same answer) and ``Conflict``
    ``game_not_finished``; nothing is written when it raises. Locks the game row first, so two
    racing requests create one review.
    """
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        seat = _participant_seat(game, player)
        review = GameReview.objects.select_for_update().filter(game=game, seat=seat).first()
        if review is None:
            review = GameReview.objects.create(game=game, player=player, seat=seat,
                                               iterations=settings.OKGIN_REVIEW_ITERATIONS)
            queue.review_queue(review_id=review.pk)
            return review, True
        stale = timezone.now() - timedelta(seconds=REVIEW_REQUEUE_AFTER_SECONDS)
        if review.status == ReviewStatus.FAILED or (review.status != ReviewStatus.DONE and review.updated_at < stale):
            review.status = ReviewStatus.QUEUED
            review.error = ""
            review.save(update_fields=["status", "error", "updated_at"])
            queue.review_queue(review_id=review.pk)
            return review, True
        return review, False


def review_get(*, game_id: int, player: Player) -> GameReview:
    """The review of ``player``'s decisions in ``game_id``. Raises ``NotFound`` (no such game, not
    seated), ``Conflict`` ``game_not_finished``, ``NotFound`` ``review_not_requested`` (no review
    was asked for; POST first)."""
    game = Game.objects.select_related("player0", "player1").filter(pk=game_id).first()
    if game is None:
        raise NotFound("No such game.")
    seat = _participant_seat(game, player)
    review = GameReview.objects.filter(game=game, seat=seat).first()
    if review is None:
        raise NotFound("No review of this match was requested; POST to this URL to start one.",
                       code="review_not_requested")
    return review


def _progress(review_id: int, done: int, total: int) -> None:
    GameReview.objects.filter(pk=review_id).exclude(status=ReviewStatus.DONE).update(
        decisions_done=done, decisions_total=total, updated_at=timezone.now())


def review_run(*, review_id: int) -> str | None:
    """Review the decisions of ``review_id`` (the body of the task ``games.review_run``) and store
    the result; returns the final status, or None when there is nothing to do (no such review, or
    already done). Replays the match from its rounds' decks and its moves
    (``games.engine.review.match_review``, with the review's ``iterations``) with no transaction
    open; progress is written after each decision. A log that does not replay (an ``EngineError``)
    marks the review ``failed`` with the message; database errors propagate (the task retries)."""
    claimed = GameReview.objects.filter(pk=review_id).exclude(status=ReviewStatus.DONE).update(
        status=ReviewStatus.RUNNING, attempts=F("attempts") + 1, updated_at=timezone.now())
    if not claimed:
        return None
    review = GameReview.objects.select_related("game").get(pk=review_id)
    game = review.game
    decks = list(Round.objects.filter(game=game).order_by("number").values_list("deck", flat=True))
    moves = [engine_review.ReviewMove(seq=m.seq, seat=m.seat, action=m.action, auto_played=m.auto_played)
             for m in Move.objects.filter(game=game).order_by("seq").only("seq", "seat", "action", "auto_played")]
    try:
        decisions = engine_review.match_review(
            rules=engine.RuleSet.from_dict(game.rules), first_dealer=game.first_dealer, decks=decks, moves=moves,
            seat=review.seat, iterations=review.iterations,
            progress=lambda done, total: _progress(review_id, done, total))
    except engine.EngineError as exc:
        logger.error("review %s of game %s failed: %s", review_id, game.pk, exc)
        return review_fail(review_id=review_id, message=str(exc))
    result = engine_review.review_summary(decisions)
    result["decisions"] = [d.to_dict() for d in decisions]
    now = timezone.now()
    GameReview.objects.filter(Q(pk=review_id) & ~Q(status=ReviewStatus.DONE)).update(
        status=ReviewStatus.DONE, result=result, error="", decisions_done=len(decisions),
        decisions_total=len(decisions), finished_at=now, updated_at=now)
    return ReviewStatus.DONE


def review_fail(*, review_id: int, message: str) -> str | None:
    """Mark ``review_id`` failed with ``message`` (kept, shown as the ``review_failed`` error) unless
    it is done; returns ``"failed"``, or None when it was done already or does not exist."""
    n = GameReview.objects.filter(pk=review_id).exclude(status=ReviewStatus.DONE).update(
        status=ReviewStatus.FAILED, error=message[:1000], updated_at=timezone.now())
    return ReviewStatus.FAILED if n else None
