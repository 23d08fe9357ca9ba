"""Actions: what a seated player does in an active match. ``action_submit`` applies one engine
action (draw, discard, knock, ... in the engine's JSON form) at an expected version, with
idempotency keys and the deadline check; ``game_resign`` ends the match for the opponent.

The engine decides legality (``games.engine.apply``); ``common._action_apply`` writes the result
(Move, Round result, next deal, turn clock, version, notification events). A person's action that
arrives after their turn's deadline applies the timeout instead (``deadlines._turn_timeout_apply``,
under the same lock).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from games import engine
from notifications.services import events_create
from okgin_project.errors import Conflict, NotFound, StaleVersion
from players.models import Player

from .. import notices as game_notices
from ..idempotency import StoredResponse, action_idempotency_store, idempotency_replay
from ..models import EndReason, Game, GameStatus
from ..presenters import game_detail_dict
from .common import (_action_apply, _ai_turn_schedule_if_due, _game_lock, _match_finish, _turn_expired,
                     _version_bump)
from .deadlines import _turn_timeout_apply
from .vacation import game_vacations_expire

_VACATION_RAN_OUT = object()  # sentinel: see _deadlines_applied (never a real answer)
_TIMED_OUT = object()  # sentinel: see _deadline_passed


class _LookupFirst(Exception):
    """Raised under the game's lock by an action whose Idempotency-Key was not looked up first
    (``_action_submit_locked``) when the action was not applied and stored cleanly; its
    transaction rolls back and ``action_submit`` runs it again with the lookup first."""


def _deadlines_applied(game_id: int, locked):
    """Run ``locked(pause_check)`` (the work under the game's lock) in a transaction. When it
    returns ``_VACATION_RAN_OUT`` (``_deadline_passed``: a vacation ran out and is not applied
    yet), end the run-out vacations (they lock players before games, so not under this game's
    lock) and run it once more, on the running clock, without that check. Returns what the last
    run returned."""
    for attempt in range(2):
        with transaction.atomic():
            result = locked(attempt == 0)
        if result is not _VACATION_RAN_OUT:
            break
        game_vacations_expire(game_id=game_id)
    return result


def _deadline_due(game: Game, pause_check: bool) -> bool:
    """Whether ``_deadline_passed`` would find something due now (reads only ``game``)."""
    return (pause_check and game.paused_until is not None and game.paused_until <= timezone.now()) \
        or _turn_expired(game)


def _deadline_passed(game: Game, pause_check: bool):
    """Under the game's lock, before a player's command: ``_VACATION_RAN_OUT`` when
    ``pause_check`` and a vacation has run out (``_deadlines_applied`` ends it), ``_TIMED_OUT``
    after applying the timeout of a turn whose deadline has passed (``_turn_timeout_apply``), or
    None when nothing was due."""
    if pause_check and game.paused_until is not None and game.paused_until <= timezone.now():
        return _VACATION_RAN_OUT
    if _turn_expired(game):
        _turn_timeout_apply(game=game)
        return _TIMED_OUT
    return None


class MatchEndedOnTime(Conflict):
    """409 ``game_not_active`` from ``game_resign``: the turn to act had run out of time and its
    timeout ended the match before the resignation arrived (the timeout is applied instead)."""

    code = "game_not_active"
    default_message = "The match ended on time before your resignation arrived."


@dataclass(frozen=True)
class ActionResponse:
    """What ``action_submit`` answers: an HTTP ``status`` and the JSON ``body`` (``replayed``: this is
    the stored first response to an earlier request with the same Idempotency-Key)."""

    status: int
    body: dict
    replayed: bool = False


class TurnExpired(Conflict):
    """The deadline of the turn passed before the action arrived (409 ``turn_expired``); the
    timeout was applied instead and the action was not."""

    code = "turn_expired"
    default_message = "The time for this turn ran out before your action arrived; the timeout was applied."


def action_submit(
    *,
    game_id: int,
    player: Player,
    expected_version: int,
    action: dict,
    idempotency_key: str | None = None,
) -> ActionResponse:
    """Apply ``player``'s ``action`` (engine JSON form) to the game if it is at ``expected_version``.

    Locks the game row first (required: it serializes concurrent submissions). With an
    ``idempotency_key`` the first successful response is stored and returned again for a retry
    with the same key and request (``replayed=True``), without applying anything.
    Returns an ``ActionResponse`` with status 200 and ``{"game": detail, "events": [...]}`` (events
    redacted for the player). Raises ``NotFound`` (not seated), ``Conflict`` ``game_not_active``,
    ``StaleVersion``, ``ServiceError`` ``idempotency_key_reused`` (422), or the engine's errors
    (``malformed_action``, ``not_your_turn``, ``illegal_action``, ``knock_over_limit``, ... with the rule).
    Nothing of the action is written when it raises. ``TurnExpired`` (409 ``turn_expired``) when the
    player's own turn's deadline had passed: then the timeout is applied and committed (under the
    same lock) instead of the action. When it was the opponent's deadline that had passed, its
    timeout is applied and committed too, and the action is refused as sent at a version that is
    gone: ``Conflict`` ``game_not_active`` when the timeout ended the match, else ``StaleVersion``.
    When the action makes it an AI seat's turn, that turn is queued after commit. (The AI's own
    actions and auto-played turns do not come through here: ``ai._ai_action_play``.)
    """
    def run(lookup_first: bool):
        return _deadlines_applied(game_id, lambda pause_check: _action_submit_locked(
            game_id=game_id, player=player, expected_version=expected_version, action=action,
            idempotency_key=idempotency_key, pause_check=pause_check, lookup_first=lookup_first,
        ))

    try:
        response = run(lookup_first=False)
    except _LookupFirst:
        response = run(lookup_first=True)
    if response is None:
        raise TurnExpired()
    if isinstance(response, Exception):  # the opponent's turn timed out: committed, then refused
        raise response
    return response


def _action_submit_locked(
    *, game_id, player, expected_version, action, idempotency_key, pause_check, lookup_first,
) -> ActionResponse | None:
    """``action_submit``'s work under the game's lock. The Idempotency-Key's stored answer is
    looked up first (a replay, or 422 ``idempotency_key_reused``, before any other answer), except
    when the action is sent at the game's current version with no deadline due and not
    ``lookup_first``: an answer stored for the key then cannot be this request's (it would have
    moved the game past this version), so the key can only be free or reused, and the lookup is
    left to the store (issue 14: one query less per action). If the key was taken after all
    (the store's unique key refuses it: reused, or an expired record not yet pruned), or the action
    is refused, ``_LookupFirst`` rolls everything back for a run with the lookup first, which
    gives the answer the lookup would have given."""
    game = _game_lock(game_id=game_id)
    seat = game.seat_of(player)
    if seat is None:
        raise NotFound("No such game.")
    request = {"version": expected_version, "action": action}
    scope = {"player": player, "operation": "action", "game_id": game.pk, "key": idempotency_key, "request": request}
    deferred = bool(idempotency_key) and not lookup_first and game.status == GameStatus.ACTIVE \
        and expected_version == game.version and not _deadline_due(game, pause_check)
    if idempotency_key and not deferred:
        replay = idempotency_replay(**scope)
        if replay is not None:
            return ActionResponse(status=replay.status, body=replay.body, replayed=True)
    if game.status != GameStatus.ACTIVE:
        raise Conflict("The game is not in play.", code="game_not_active")
    to_act = game.to_act_seat
    due = _deadline_passed(game, pause_check)
    if due is not None and deferred:
        raise _LookupFirst()  # a deadline passed since _deadline_due looked: roll its timeout back
    if due is _TIMED_OUT and to_act != seat:
        # The deadline that passed was the opponent's: its timeout is applied (and committed), and
        # this action, sent at a version that is gone, is refused as any stale one is; when the
        # timeout ended the match (forfeit: this player won), the game is no longer in play.
        if game.status != GameStatus.ACTIVE:
            return Conflict("The game is not in play: your opponent's time ran out.", code="game_not_active")
        return StaleVersion(detail={"current_version": game.version})
    if due is not None:
        return None if due is _TIMED_OUT else due
    if expected_version != game.version:
        raise StaleVersion(detail={"current_version": game.version})
    try:
        parsed = engine.action_from_dict(action)
        events = _action_apply(game=game, seat=seat, action=parsed)
    except engine.EngineError:
        if deferred:
            raise _LookupFirst() from None  # a reused key's 422 comes before the refusal
        raise
    body = {
        "game": game_detail_dict(game, seat),
        "events": [engine.redact_event(e, seat) for e in events],
    }
    if idempotency_key:
        try:
            action_idempotency_store(player=player, game=game, key=idempotency_key, request=request,
                                     response=StoredResponse(status=200, body=body))
        except IntegrityError:
            if deferred:
                raise _LookupFirst() from None
            raise
    _ai_turn_schedule_if_due(game=game)
    return ActionResponse(status=200, body=body)


def game_resign(*, game_id: int, player: Player) -> Game:
    """``player`` resigns an active match: the opponent wins the match (end reason ``resigned``).

    A deadline that has passed is applied first, as every access applies it: a vacation that ran
    out ends, and an expired turn times out (``_turn_timeout_apply``). When that timeout ends the
    match (``forfeit``), the resignation came too late: the timeout is committed and ``Conflict``
    ``game_not_active`` is raised (under an ``Idempotency-Key`` the surrounding transaction rolls
    the timeout back with it, and the next access applies it again). After an ``auto_play``
    timeout the resignation is applied to the match as it then stands. Raises ``NotFound`` (not
    seated), ``Conflict`` ``game_not_active`` (``MatchEndedOnTime`` when a timeout ended it).
    """
    game = _deadlines_applied(game_id, lambda pause_check: _game_resign_locked(
        game_id=game_id, player=player, pause_check=pause_check))
    if game is None:
        raise MatchEndedOnTime()
    return game


def _game_resign_locked(*, game_id: int, player: Player, pause_check: bool):
    game = _game_lock(game_id=game_id)
    seat = game.seat_of(player)
    if seat is None:
        raise NotFound("No such game.")
    if game.status != GameStatus.ACTIVE:
        raise Conflict("The game is not in play.", code="game_not_active")
    due = _deadline_passed(game, pause_check)
    if due is _VACATION_RAN_OUT:
        return due
    if due is _TIMED_OUT and game.status != GameStatus.ACTIVE:
        return None
    _match_finish(game=game, winner_seat=1 - seat, reason=EndReason.RESIGNED)
    _version_bump(game)
    game.save()
    events_create(notices=game_notices.match_over_notices(game))
    return game
