"""Writes for games (HackSoft style: keyword-only arguments, ``<entity>_<verb>`` names).

Every write opens its transaction here and locks the game row with ``select_for_update()`` before
deciding anything; the lock is what serializes two racing actions on one game. Rejected requests
raise before anything is written (the transaction rolls back). Work for other processes (the AI's
turn, webhook deliveries) is queued after commit (``enqueue_after_commit``) so it only ever sees
committed state. Notification events are written in the same transaction as the change.

Turns and deadlines: a turn is the run of consecutive actions of one seat; it starts when the seat
to act changes or a round is dealt (``Game.turn_started_at``). A person's turn under a time limit
has a ``turn_deadline``; when it passes, ``turn_timeout`` ends the turn by the game's
``timeout_policy`` under the same row lock as an action, so a move arriving at the deadline and the
timeout never both apply. Without a beat process the timeout is applied the next time anyone reads
or acts on the game (``game_deadline_enforce``, ``action_submit``).
"""
from __future__ import annotations

import hashlib
import json
import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import engine
from okgin_project.errors import Conflict, Forbidden, NotFound, ServiceError, StaleVersion
from players.models import Player
from players.selectors import player_find_by_name
from players.services import player_ai_get_or_create

from notifications.models import EventKind
from notifications.services import events_create
from okgin_project.celery import enqueue_after_commit
from players.services import AI_LEVEL_DEFAULT

from . import notices as game_notices
from .ai_play import ai_action_choose
from .models import EndReason, Game, GameKind, GameStatus, IdempotencyRecord, Move, Round, TimeoutPolicy
from .presenters import game_detail_dict

logger = logging.getLogger(__name__)

_system_random = secrets.SystemRandom()


# --- helpers ---------------------------------------------------------------------------------


def _game_lock(*, game_id: int) -> Game:
    """Lock and return the game row (caller must be inside ``transaction.atomic``).

    Raises ``NotFound`` if there is no such game.
    """
    try:
        return (
            Game.objects.select_related("player0", "player1")
            .select_for_update(of=("self",))
            .get(pk=game_id)
        )
    except Game.DoesNotExist:
        raise NotFound("No such game.") from None


def _state_of(game: Game) -> engine.MatchState:
    return engine.MatchState.from_dict(game.state)


def _turn_clear(game: Game) -> None:
    game.to_act_seat = None
    game.turn_started_at = None
    game.turn_deadline = None
    game.turn_reminder_at = None
    game.awaiting_ai = False


def _set_turn(game: Game, state: engine.MatchState, *, restart: bool = False) -> bool:
    """Copy the engine's seat to act into the row; when a new turn starts (the seat changes, or
    ``restart``: a round was dealt) start its clock: ``turn_started_at`` now, and for a person
    under a time limit ``turn_deadline`` after ``move_time_limit`` seconds and the reminder at
    ``OKGIN_DEADLINE_REMINDER_FRACTION`` of it. Returns True if a new turn started."""
    seat = state.to_act if game.status == GameStatus.ACTIVE else None
    if seat is None:
        _turn_clear(game)
        return False
    started = restart or seat != game.to_act_seat or game.turn_started_at is None
    game.to_act_seat = seat
    player = game.player_at(seat)
    game.awaiting_ai = player.is_ai
    if started:
        now = timezone.now()
        game.turn_started_at = now
        if game.move_time_limit and not player.is_ai:
            limit = game.move_time_limit
            game.turn_deadline = now + timedelta(seconds=limit)
            game.turn_reminder_at = now + timedelta(seconds=limit * settings.OKGIN_DEADLINE_REMINDER_FRACTION)
        else:
            game.turn_deadline = None
            game.turn_reminder_at = None
    return started


def _turn_expired(game: Game, now=None) -> bool:
    """True if ``game`` is active and the deadline of the person to act has passed."""
    return (
        game.status == GameStatus.ACTIVE
        and game.turn_deadline is not None
        and game.turn_deadline <= (now or timezone.now())
    )


def _round_deal(*, game: Game, state: engine.MatchState) -> tuple[engine.MatchState, list, Round]:
    """Deal the next round (R4) from the next staff-preset deck or a server shuffle (SystemRandom).

    Creates the ``Round`` row; returns ``(state, events, round)``.
    """
    index = state.round_number  # 0-based index of the round about to be dealt
    if index < len(game.preset_decks):
        deck = engine.validate_deck(game.preset_decks[index])
    else:
        deck = engine.shuffled_deck(_system_random)
    state, events = engine.deal(state, deck)
    rnd = Round.objects.create(
        game=game,
        number=state.round.number,
        dealer=state.round.dealer,
        deck=[c.code for c in deck],
        upcard=state.round.first_upcard.code,
        knock_limit=state.round.knock_limit,
    )
    game.round_number = state.round_number
    game.dealer = state.round.dealer
    return state, events, rnd


def _match_start(*, game: Game) -> None:
    """Choose the first dealer (R3.1, at random unless preset by staff), deal round 1, go active."""
    if game.first_dealer is None:
        game.first_dealer = _system_random.randrange(2)
    state = engine.new_match(engine.RuleSet.from_dict(game.rules), game.first_dealer)
    state, _events, _rnd = _round_deal(game=game, state=state)
    game.state = state.to_dict()
    game.status = GameStatus.ACTIVE
    game.started_at = timezone.now()
    _set_turn(game, state, restart=True)


def _ai_turn_schedule_if_due(*, game: Game) -> None:
    """If an AI seat is to act, queue ``games.tasks.ai_turn_play`` for the game at its current
    version after this transaction commits (a duplicate or stale delivery is a no-op)."""
    if game.status != GameStatus.ACTIVE or not game.awaiting_ai:
        return
    from .tasks import ai_turn_play as ai_turn_play_task

    enqueue_after_commit(ai_turn_play_task, game_id=game.pk, expected_version=game.version)


def _request_hash(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# --- creating and joining games --------------------------------------------------------------


def _validate_decks(decks: list | None) -> list[list[str]]:
    out = []
    for deck in decks or []:
        try:
            out.append([c.code for c in engine.validate_deck(deck)])
        except engine.CardParseError as exc:
            raise ServiceError(exc.message, code="bad_deck", rule=exc.rule) from None
    return out


@transaction.atomic
def game_create(
    *,
    creator: Player,
    kind: str,
    opponent_name: str | None = None,
    ai_level: str = AI_LEVEL_DEFAULT,
    rules: dict | None = None,
    move_time_limit: int | None = None,
    timeout_policy: str = TimeoutPolicy.FORFEIT,
    auto_play_limit: int | None = None,
    invitation_ttl: int | None = None,
    decks: list | None = None,
    first_dealer: int | None = None,
    allow_preset_deal: bool = False,
) -> Game:
    """Create a match with ``creator`` in seat 0.

    ``kind``: ``"ai"`` (starts at once against the AI of ``ai_level``), ``"invite"`` (the player
    named ``opponent_name`` accepts or declines before ``invitation_ttl`` seconds) or ``"open"``
    (an open challenge any other player may accept from the lobby). ``rules``: a RuleSet dict
    (RULES.md options). ``move_time_limit``: seconds per turn (``OKGIN_MOVE_TIME_LIMIT_MIN`` to
    ``_MAX``: a minute to 14 days) or None; ``timeout_policy``: ``forfeit`` or ``auto_play`` (at most
    ``auto_play_limit`` consecutive auto-played turns, default ``OKGIN_AUTO_PLAY_LIMIT_DEFAULT``, then
    the next timeout forfeits). ``decks`` (52 card codes
    each, used for rounds 1, 2, ...) and ``first_dealer`` (0/1) are for staff only
    (``allow_preset_deal``). Raises ``ServiceError`` (``bad_rules``, ``bad_deck``, ``bad_ai_level``),
    ``NotFound`` (no such opponent), ``Forbidden`` (``staff_only``), ``Conflict`` (``invalid_opponent``),
    ``ServiceError`` ``validation_error`` (time limit or policy out of range).
    """
    if (decks or first_dealer is not None) and not allow_preset_deal:
        raise Forbidden("Only staff may choose the deck order or the first dealer.", code="staff_only")
    try:
        ruleset = engine.RuleSet.from_dict(rules or {})
    except engine.RuleSetError as exc:
        raise ServiceError(exc.message, code="bad_rules", rule=exc.rule) from None
    if kind not in GameKind.values:
        raise ServiceError("Unknown kind of game.", code="validation_error")
    if first_dealer is not None and first_dealer not in (0, 1):
        raise ServiceError("first_dealer must be 0 or 1.", code="validation_error")
    if move_time_limit is not None and not (
        settings.OKGIN_MOVE_TIME_LIMIT_MIN <= move_time_limit <= settings.OKGIN_MOVE_TIME_LIMIT_MAX
    ):
        raise ServiceError("move_time_limit must be from 60 seconds to 14 days.", code="validation_error")
    if timeout_policy not in TimeoutPolicy.values:
        raise ServiceError("Unknown timeout_policy.", code="validation_error")
    if auto_play_limit is None:
        auto_play_limit = settings.OKGIN_AUTO_PLAY_LIMIT_DEFAULT
    if not 0 <= auto_play_limit <= 100:
        raise ServiceError("auto_play_limit must be from 0 to 100.", code="validation_error")
    game = Game(
        kind=kind,
        player0=creator,
        rules=ruleset.to_dict(),
        variant=ruleset.variant,
        move_time_limit=move_time_limit,
        timeout_policy=timeout_policy,
        auto_play_limit=auto_play_limit,
        preset_decks=_validate_decks(decks),
        first_dealer=first_dealer,
    )
    game.version = 1
    if kind == GameKind.AI:
        game.player1 = player_ai_get_or_create(level=ai_level)
        game.status = GameStatus.ACTIVE
        game.save()  # the rounds need the game's id
        _match_start(game=game)
    else:
        if kind == GameKind.INVITE:
            if not opponent_name:
                raise ServiceError("Name the player to invite.", code="validation_error")
            opponent = player_find_by_name(name=opponent_name)
            if opponent is None:
                raise NotFound("No player with this name.")
            if opponent.pk == creator.pk or opponent.is_ai:
                raise Conflict("Invite another person (play the AI with kind 'ai').", code="invalid_opponent")
            game.player1 = opponent
        ttl = invitation_ttl or settings.OKGIN_INVITATION_TTL_SECONDS
        game.status = GameStatus.INVITED
        game.invitation_expires_at = timezone.now() + timedelta(seconds=ttl)
    game.save()
    if kind == GameKind.INVITE:
        events_create(notices=game_notices.invitation_notice(game, EventKind.INVITATION_RECEIVED))
    elif kind == GameKind.AI:
        events_create(notices=game_notices.start_notices(game))
    _ai_turn_schedule_if_due(game=game)
    return game


@transaction.atomic
def invitation_accept(*, game_id: int, player: Player) -> Game:
    """Accept an invitation addressed to ``player`` or an open challenge; the match starts (R3.1, R4).

    Raises ``NotFound`` (not invited), ``Conflict`` ``not_invited`` (not waiting for an answer),
    ``invitation_expired``, ``own_challenge``.
    """
    game = _game_lock(game_id=game_id)
    if game.kind == GameKind.INVITE and player.pk != game.player1_id:
        raise NotFound("No such invitation.")
    if game.kind == GameKind.OPEN and player.pk == game.player0_id:
        raise Conflict("You cannot accept your own challenge.", code="own_challenge")
    if game.status != GameStatus.INVITED or game.kind == GameKind.AI:
        raise Conflict("This game is not waiting for an answer.", code="not_invited")
    if game.invitation_expires_at and game.invitation_expires_at <= timezone.now():
        raise Conflict("This invitation has expired.", code="invitation_expired")
    if game.kind == GameKind.OPEN:
        game.player1 = player
    _match_start(game=game)
    game.invitation_expires_at = None
    game.version += 1
    game.save()
    events_create(notices=game_notices.invitation_notice(game, EventKind.INVITATION_ACCEPTED)
                  + game_notices.start_notices(game))
    return game


@transaction.atomic
def invitation_decline(*, game_id: int, player: Player) -> Game:
    """Decline an invitation addressed to ``player``. Raises ``NotFound``, ``Conflict`` ``not_invited``."""
    game = _game_lock(game_id=game_id)
    if game.kind != GameKind.INVITE or player.pk != game.player1_id:
        raise NotFound("No such invitation.")
    if game.status != GameStatus.INVITED:
        raise Conflict("This game is not waiting for an answer.", code="not_invited")
    game.status = GameStatus.DECLINED
    game.version += 1
    game.save()
    events_create(notices=game_notices.invitation_notice(game, EventKind.INVITATION_DECLINED))
    return game


@transaction.atomic
def invitation_abort(*, game_id: int, player: Player) -> Game:
    """The creator withdraws an unanswered invitation or open challenge.

    Raises ``NotFound`` (not the creator's), ``Conflict`` ``not_invited`` (already started or answered).
    """
    game = _game_lock(game_id=game_id)
    if player.pk != game.player0_id:
        raise NotFound("No such invitation.")
    if game.status != GameStatus.INVITED:
        raise Conflict("Only an unanswered invitation can be aborted.", code="not_invited")
    game.status = GameStatus.ABORTED
    game.version += 1
    game.save()
    return game


def invitations_expire(*, now=None) -> int:
    """Abort every invitation or open challenge still unanswered at its ``invitation_expires_at``
    (status ``aborted``, end reason ``expired``, version bumped); returns how many. Run by the
    deadlines sweep; an expired invitation already cannot be accepted (``invitation_expired``).
    Each game is locked and re-checked, so an acceptance that got there first wins."""
    now = now or timezone.now()
    ids = list(Game.objects.filter(status=GameStatus.INVITED, invitation_expires_at__lte=now)
               .values_list("pk", flat=True)[:500])
    expired = 0
    for game_id in ids:
        with transaction.atomic():
            game = _game_lock(game_id=game_id)
            if game.status != GameStatus.INVITED or not game.invitation_expires_at \
                    or game.invitation_expires_at > now:
                continue
            game.status = GameStatus.ABORTED
            game.end_reason = EndReason.INVITATION_EXPIRED
            game.version += 1
            game.save()
            expired += 1
    return expired


@transaction.atomic
def game_resign(*, game_id: int, player: Player) -> Game:
    """``player`` resigns an active match: the opponent wins the match (end reason ``resigned``).

    Raises ``NotFound`` (not seated), ``Conflict`` ``game_not_active``.
    """
    game = _game_lock(game_id=game_id)
    seat = game.seat_of(player)
    if seat is None:
        raise NotFound("No such game.")
    if game.status != GameStatus.ACTIVE:
        raise Conflict("The game is not in play.", code="game_not_active")
    _match_finish(game=game, winner_seat=1 - seat, reason=EndReason.RESIGNED)
    game.version += 1
    game.save()
    events_create(notices=game_notices.match_over_notices(game))
    return game


def _match_finish(*, game: Game, winner_seat: int, reason: str) -> None:
    game.status = GameStatus.FINISHED
    game.winner_seat = winner_seat
    game.end_reason = reason
    game.finished_at = timezone.now()
    _turn_clear(game)


# --- actions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionResponse:
    """What ``action_submit`` answers: an HTTP ``status`` and the JSON ``body`` (``replayed``: this is
    the stored first response to an earlier request with the same Idempotency-Key)."""

    status: int
    body: dict
    replayed: bool = False


def _action_apply(*, game: Game, seat: int, action: Any, auto_played: bool = False) -> list[dict]:
    """Apply one action to the locked ``game`` row: append the Move, close the round and deal the
    next one when it ends (R3.2, R3.3), finish the match (R10.1), start the next turn's clock, bump
    the version, and write the notification events. An action the player chose (not
    ``auto_played`` for them after a timeout) resets their count of consecutive auto-played turns.

    Returns the events (unredacted dicts). Raises the engine's ``EngineError`` before any write.
    """
    state = _state_of(game)
    new_state, events = engine.apply(state, seat, action)
    rnd = Round.objects.get(game_id=game.pk, number=game.round_number)
    game.move_count += 1
    Move.objects.create(
        game=game,
        round=rnd,
        seq=game.move_count,
        seat=seat,
        action=action.to_dict(),
        events=[e.to_dict() for e in events],
        auto_played=auto_played,
    )
    if not auto_played:
        game.auto_played_set(seat, 0)
    event_dicts = [e.to_dict() for e in events]
    ended = next((e for e in events if e.type == "round_ended"), None)
    if ended is not None:
        result = ended.data["result"]
        rnd.outcome = result["outcome"]
        rnd.knocker_seat = result["knocker"]
        rnd.winner_seat = result["winner"]
        rnd.points = result["points"]
        rnd.result = result
        rnd.ended_at = timezone.now()
        rnd.save(update_fields=["outcome", "knocker_seat", "winner_seat", "points", "result", "ended_at"])
    game.score0, game.score1 = new_state.scores
    if new_state.phase == "match_over":
        _match_finish(game=game, winner_seat=new_state.winner, reason=EndReason.TARGET_SCORE)
    dealt = False
    if new_state.phase == "deal":
        new_state, deal_events, _ = _round_deal(game=game, state=new_state)
        event_dicts += [e.to_dict() for e in deal_events]
        dealt = True
    game.state = new_state.to_dict()
    game.dealer = new_state.round.dealer if new_state.round else new_state.dealer
    turn_started = _set_turn(game, new_state, restart=dealt) if game.status == GameStatus.ACTIVE else False
    game.version += 1
    game.save()
    events_create(notices=game_notices.action_notices(
        game=game, seat=seat, action=action.to_dict(), events=event_dicts, turn_started=turn_started,
    ))
    return event_dicts


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
    auto_played: bool = False,
    schedule_ai: bool = True,
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
    turn's deadline had passed: then the timeout is applied and committed (under the same lock)
    instead of the action.

    Used for people's requests, for the AI's turns (``ai_turn_play``) and for turns auto-played
    after a timeout (``auto_played=True``: no deadline check, the player's count of consecutive
    auto-played turns is kept). ``schedule_ai=False``: the caller queues the AI's next turn itself.
    """
    with transaction.atomic():
        response = _action_submit_locked(
            game_id=game_id, player=player, expected_version=expected_version, action=action,
            idempotency_key=idempotency_key, auto_played=auto_played, schedule_ai=schedule_ai,
        )
    if response is None:
        raise TurnExpired()
    return response


def _action_submit_locked(
    *, game_id, player, expected_version, action, idempotency_key, auto_played, schedule_ai,
) -> ActionResponse | None:
    game = _game_lock(game_id=game_id)
    seat = game.seat_of(player)
    if seat is None:
        raise NotFound("No such game.")
    request_hash = _request_hash({"version": expected_version, "action": action})
    if idempotency_key:
        record = IdempotencyRecord.objects.filter(player=player, game=game, key=idempotency_key).first()
        if record is not None:
            if record.request_hash != request_hash:
                raise ServiceError(
                    "This Idempotency-Key was used for a different request.",
                    code="idempotency_key_reused",
                    status=422,
                )
            return ActionResponse(status=record.response_status, body=record.response_body, replayed=True)
    if game.status != GameStatus.ACTIVE:
        raise Conflict("The game is not in play.", code="game_not_active")
    if not auto_played and _turn_expired(game):
        _turn_timeout_apply(game=game)
        return None
    if expected_version != game.version:
        raise StaleVersion(detail={"current_version": game.version})
    parsed = engine.action_from_dict(action)
    events = _action_apply(game=game, seat=seat, action=parsed, auto_played=auto_played)
    body = {
        "game": game_detail_dict(game, seat),
        "events": [engine.redact_event(e, seat) for e in events],
    }
    if idempotency_key:
        IdempotencyRecord.objects.create(
            player=player,
            game=game,
            key=idempotency_key,
            request_hash=request_hash,
            response_status=200,
            response_body=body,
        )
    if schedule_ai:
        _ai_turn_schedule_if_due(game=game)
    return ActionResponse(status=200, body=body)


AI_TURN_MAX_ACTIONS = 40  # per task; a longer run is continued by a fresh task


def ai_turn_play(*, game_id: int, expected_version: int) -> int:
    """Play the AI seat's actions in ``game_id`` while it keeps the turn (the upcard protocol, draw
    and discard, the first turn of the next round), starting at ``expected_version``.

    Each action: lock the game row, check that it is still at the expected version with an AI to
    act (else stop: a duplicate or stale delivery is a no-op), ask the AI policy using only that
    seat's ``player_view``, and submit through ``action_submit`` like a person's request, in one
    transaction. Returns the number of actions played (0 for a no-op). Safe to run twice, late,
    or concurrently: each version gets at most one action.
    """
    played = 0
    version = expected_version
    while True:
        with transaction.atomic():
            game = _game_lock(game_id=game_id)
            if game.version != version or game.status != GameStatus.ACTIVE or not game.awaiting_ai:
                return played
            if played >= AI_TURN_MAX_ACTIONS:
                _ai_turn_schedule_if_due(game=game)
                return played
            seat = game.to_act_seat
            ai = game.player_at(seat)
            view = engine.player_view(_state_of(game), seat)
            action = ai_action_choose(level=ai.ai_level, view=view)
            response = _ai_submit(game_id=game_id, player=ai, version=version, action=action, view=view)
            version = response.body["game"]["version"]
            played += 1


def _ai_submit(*, game_id: int, player: Player, version: int, action, view, auto_played: bool = False):
    """Submit the AI's ``action``; if the engine refuses it (a policy bug), log and submit a random
    legal action instead so the turn cannot get stuck."""
    try:
        with transaction.atomic():
            return action_submit(game_id=game_id, player=player, expected_version=version,
                                 action=action.to_dict(), auto_played=auto_played, schedule_ai=False)
    except engine.EngineError as exc:
        logger.error("AI action %r refused (%s); playing a random legal action", action, exc)
        fallback = _system_random.choice(list(view.legal_actions))
        return action_submit(game_id=game_id, player=player, expected_version=version,
                             action=fallback.to_dict(), auto_played=auto_played, schedule_ai=False)


# --- deadlines -------------------------------------------------------------------------------


def _turn_timeout_apply(*, game: Game) -> str:
    """End the expired turn of the locked ``game`` by its timeout policy; returns ``"forfeit"`` or
    ``"auto_played"``.

    ``forfeit``: the opponent wins the match (end reason ``timeout``). ``auto_play``: the AI
    (``OKGIN_AUTO_PLAY_LEVEL``, from the absent player's view only) plays the whole turn for them
    through ``action_submit``; when they already had ``auto_play_limit`` consecutive auto-played
    turns the match is forfeited instead. Writes ``timeout`` (and ``match_over``) events.
    """
    seat = game.to_act_seat
    player = game.player_at(seat)
    count = game.auto_played(seat)
    if game.timeout_policy == TimeoutPolicy.FORFEIT or count >= game.auto_play_limit:
        _match_finish(game=game, winner_seat=1 - seat, reason=EndReason.TIMEOUT)
        game.version += 1
        game.save()
        events_create(notices=game_notices.timeout_notices(game=game, seat=seat, result="forfeit")
                      + game_notices.match_over_notices(game))
        return "forfeit"
    game.auto_played_set(seat, count + 1)
    game.save(update_fields=["auto_played0", "auto_played1"])
    events_create(notices=game_notices.timeout_notices(game=game, seat=seat, result="auto_played"))
    turn = game.turn_started_at
    while game.status == GameStatus.ACTIVE and game.to_act_seat == seat and game.turn_started_at == turn:
        view = engine.player_view(_state_of(game), seat)
        action = ai_action_choose(level=settings.OKGIN_AUTO_PLAY_LEVEL, view=view)
        _ai_submit(game_id=game.pk, player=player, version=game.version, action=action, view=view,
                   auto_played=True)
        game = _game_lock(game_id=game.pk)  # the row as action_submit left it (lock already held)
    _ai_turn_schedule_if_due(game=game)
    return "auto_played"


def turn_timeout(*, game_id: int, expected_version: int | None = None) -> str | None:
    """End ``game_id``'s turn if its deadline has passed (and, given ``expected_version``, the game
    is still at it): see ``_turn_timeout_apply``. Takes the game's row lock, like an action, so a
    move that arrives at the deadline and the timeout never both apply: whichever locks first wins
    and the other finds the deadline moved (or the version changed) and does nothing.

    Returns ``"forfeit"``, ``"auto_played"``, or None when there was nothing to do.
    """
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        if expected_version is not None and game.version != expected_version:
            return None
        if not _turn_expired(game):
            return None
        return _turn_timeout_apply(game=game)


def game_deadline_enforce(*, game: Game) -> Game:
    """Without beat, deadlines are enforced on access: if ``game`` (as just read) has an expired
    turn, apply the timeout and return the game read again; else return ``game`` unchanged (no
    query)."""
    if not _turn_expired(game):
        return game
    turn_timeout(game_id=game.pk)
    return Game.objects.select_related("player0", "player1").get(pk=game.pk)


def deadline_reminder_send(*, game_id: int) -> bool:
    """Write the ``deadline_near`` event of ``game_id``'s current turn if its reminder time has
    passed and it was not sent yet (once per turn: ``turn_reminder_at`` is cleared). Returns True
    if sent."""
    with transaction.atomic():
        game = _game_lock(game_id=game_id)
        now = timezone.now()
        if game.status != GameStatus.ACTIVE or game.turn_reminder_at is None or game.turn_reminder_at > now:
            return False
        if game.turn_deadline is None or game.turn_deadline <= now:
            return False  # the timeout itself is due; it says more than a reminder
        game.turn_reminder_at = None
        game.save(update_fields=["turn_reminder_at"])
        events_create(notices=game_notices.deadline_near_notice(
            game, (game.turn_deadline - now).total_seconds()))
        return True
