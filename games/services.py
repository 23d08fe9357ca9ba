"""Writes for games (HackSoft style: keyword-only arguments, ``<entity>_<verb>`` names).

Every write opens its transaction here and locks the game row with ``select_for_update()`` before
deciding anything; the lock is what serializes two racing actions on one game. Rejected requests
raise before anything is written (the transaction rolls back). Work for other processes (the AI's
turn) is queued with ``transaction.on_commit`` so it only ever sees committed state.
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
from players.services import player_ai_get_or_create

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


def _set_turn(game: Game, state: engine.MatchState) -> None:
    """Copy the engine's turn into the row and start the per-move clock (deadline in seconds)."""
    game.to_act_seat = state.to_act
    if game.move_time_limit and state.to_act is not None:
        game.turn_deadline = timezone.now() + timedelta(seconds=game.move_time_limit)
    else:
        game.turn_deadline = None


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
    _set_turn(game, state)


def _ai_turn_schedule_if_due(*, game: Game) -> None:
    """Call-point "it is now an AI seat's turn": queue the AI's move after this transaction commits.

    The async work (Celery task with retries and deadlines) replaces ``games.ai_play.ai_turn_dispatch``;
    the expected version makes a duplicate delivery a no-op.
    """
    if game.status != GameStatus.ACTIVE or game.to_act_seat is None:
        return
    player = game.player0 if game.to_act_seat == 0 else game.player1
    if player is None or not player.is_ai:
        return
    from .ai_play import ai_turn_dispatch

    game_id, version = game.pk, game.version
    transaction.on_commit(lambda: ai_turn_dispatch(game_id=game_id, expected_version=version))


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
    ai_level: str = "medium",
    rules: dict | None = None,
    move_time_limit: int | None = None,
    timeout_policy: str = TimeoutPolicy.FORFEIT_MATCH,
    invitation_ttl: int | None = None,
    decks: list | None = None,
    first_dealer: int | None = None,
    allow_preset_deal: bool = False,
) -> Game:
    """Create a match with ``creator`` in seat 0.

    ``kind``: ``"ai"`` (starts at once against the AI of ``ai_level``), ``"invite"`` (the player
    named ``opponent_name`` accepts or declines before ``invitation_ttl`` seconds) or ``"open"``
    (an open challenge any other player may accept from the lobby). ``rules``: a RuleSet dict
    (RULES.md options). ``move_time_limit``: seconds per move or None. ``decks`` (52 card codes
    each, used for rounds 1, 2, ...) and ``first_dealer`` (0/1) are for staff only
    (``allow_preset_deal``). Raises ``ServiceError`` (``bad_rules``, ``bad_deck``, ``bad_ai_level``),
    ``NotFound`` (no such opponent), ``Forbidden`` (``staff_only``), ``Conflict`` (``invalid_opponent``).
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
    game = Game(
        kind=kind,
        player0=creator,
        rules=ruleset.to_dict(),
        variant=ruleset.variant,
        move_time_limit=move_time_limit,
        timeout_policy=timeout_policy,
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
            opponent = Player.objects.filter(name__iexact=opponent_name).first()
            if opponent is None:
                raise NotFound("No player with this name.")
            if opponent.pk == creator.pk or opponent.is_ai:
                raise Conflict("Invite another person (play the AI with kind 'ai').", code="invalid_opponent")
            game.player1 = opponent
        ttl = invitation_ttl or settings.OKGIN_INVITATION_TTL_SECONDS
        game.status = GameStatus.INVITED
        game.invitation_expires_at = timezone.now() + timedelta(seconds=ttl)
    game.save()
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
    return game


def _match_finish(*, game: Game, winner_seat: int, reason: str) -> None:
    game.status = GameStatus.FINISHED
    game.winner_seat = winner_seat
    game.end_reason = reason
    game.finished_at = timezone.now()
    game.to_act_seat = None
    game.turn_deadline = None


# --- actions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ActionResponse:
    """What ``action_submit`` answers: an HTTP ``status`` and the JSON ``body`` (``replayed``: this is
    the stored first response to an earlier request with the same Idempotency-Key)."""

    status: int
    body: dict
    replayed: bool = False


def _action_apply(*, game: Game, seat: int, action: Any) -> list[dict]:
    """Apply one action to the locked ``game`` row: append the Move, close the round and deal the
    next one when it ends (R3.2, R3.3), finish the match (R10.1), bump the version.

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
    )
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
    elif new_state.phase == "deal":
        new_state, deal_events, _ = _round_deal(game=game, state=new_state)
        event_dicts += [e.to_dict() for e in deal_events]
    game.state = new_state.to_dict()
    game.dealer = new_state.round.dealer if new_state.round else new_state.dealer
    if game.status == GameStatus.ACTIVE:
        _set_turn(game, new_state)
    game.version += 1
    game.save()
    return event_dicts


@transaction.atomic
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
    Nothing is written when it raises.
    """
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
    if expected_version != game.version:
        raise StaleVersion(detail={"current_version": game.version})
    parsed = engine.action_from_dict(action)
    events = _action_apply(game=game, seat=seat, action=parsed)
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
    _ai_turn_schedule_if_due(game=game)
    return ActionResponse(status=200, body=body)


@transaction.atomic
def ai_turn_play(*, game_id: int, expected_version: int) -> bool:
    """Play one action for the AI seat to act, if the game is still at ``expected_version``.

    A duplicate or late call (version moved on, not an AI's turn, game over) is a no-op returning
    False. The policy is ``games.engine.ai.get_policy(level).choose(view)`` when the engine ships
    it, else a uniformly random legal action. Queues the AI's next turn if it acts again.
    """
    game = _game_lock(game_id=game_id)
    if game.version != expected_version or game.status != GameStatus.ACTIVE or game.to_act_seat is None:
        return False
    seat = game.to_act_seat
    ai = game.player0 if seat == 0 else game.player1
    if not ai.is_ai:
        return False
    state = _state_of(game)
    action = _ai_choose(level=ai.ai_level, state=state, seat=seat)
    _action_apply(game=game, seat=seat, action=action)
    _ai_turn_schedule_if_due(game=game)
    return True


def _ai_choose(*, level: str, state: engine.MatchState, seat: int):
    view = engine.player_view(state, seat)
    try:
        from games.engine.ai import get_policy  # provided by the engine when ready
    except ImportError:
        get_policy = None
    if get_policy is not None:
        try:
            policy = get_policy(level)
        except (KeyError, ValueError):
            policy = get_policy("random") if level != "random" else None
        if policy is not None:
            return policy.choose(view)
    return _system_random.choice(list(view.legal_actions))
