"""``Idempotency-Key``: the first answer to a request is kept and returned again for a retry.

One mechanism for every POST that creates or changes something (actions, game creation,
accept/decline/abort/resign, registration, webhooks): ``idempotency_replay`` looks the key up
(scope: the player, the operation and, for operations on a game, the game) and returns the stored
answer when the request is the same (its canonical JSON hashed), or raises 422
``idempotency_key_reused`` when the key came with another request; ``idempotency_store`` keeps the
answer of a request that succeeded, in the transaction of its change. ``run_idempotent`` wraps
a view's work with both, including two racing requests with one key (the second answers the
first's result). Requests that fail are not stored: a retry runs them again. A record holds for
``OKGIN_IDEMPOTENCY_TTL_SECONDS`` (24 h): an older one is ignored (the key is free again) and
deleted by the hourly ``games.idempotency_records_prune``.

An action's record does not keep its answer (2.3 KB on average): it keeps the ``Move`` it applied
and the few fields of the game row that the move log does not hold (``ACTION_ROW_FIELDS``: the
version and times then). ``action_response_rebuild`` replays the game's moves up to that one with
the engine and presents the result for the player again, equal to the first answer even after later
moves.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction
from django.utils import timezone

from okgin_project.errors import ServiceError
from okgin_project.rows import in_range, instance, model_columns, row_insert, row_read
from okgin_project.params import idempotency_key_header

from games import engine

from .models import EndReason, Game, GameStatus, IdempotencyRecord, Move, RematchStatus, Round


@dataclass(frozen=True)
class StoredResponse:
    """An HTTP ``status`` and JSON ``body``; ``replayed``: the stored answer to an earlier request."""

    status: int
    body: dict
    replayed: bool = False


def request_hash(payload: Any) -> str:
    """SHA-256 hex of ``payload``'s canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def idempotency_replay(*, player, operation: str, game_id: int | None, key: str, request: Any) -> StoredResponse | None:
    """The stored answer for ``key`` in this scope, or None. Raises ``ServiceError`` 422
    ``idempotency_key_reused`` when the key was used for a different ``request``."""
    record = _record_read(player_id=player.pk if player is not None else None, operation=operation,
                          game_id=game_id, key=key)
    if record is not None and record.created_at < _cutoff():
        record.delete()  # expired: the key is free again (in the caller's transaction)
        record = None
    if record is None:
        return None
    if record.request_hash != request_hash(request):
        raise ServiceError("This Idempotency-Key was used for a different request.",
                           code="idempotency_key_reused", status=422)
    if record.move_seq is not None:
        return StoredResponse(status=record.response_status, replayed=True,
                              body=action_response_rebuild(record=record, player=player))
    return StoredResponse(status=record.response_status, body=record.response_body, replayed=True)


def _record_read(*, player_id: int | None, operation: str, game_id: int | None, key: str,
                 using: str = DEFAULT_DB_ALIAS) -> IdempotencyRecord | None:
    """The first ``IdempotencyRecord`` of this scope and key (None: no such record), by SQL written
    once (``okgin_project.rows``; the ORM compiled this lookup at every changing POST, issue 14).
    ``player_id`` and ``game_id`` None match records without one, as the ORM's ``=None`` filter."""
    if game_id is not None and not in_range(connections[using],
                                            IdempotencyRecord._meta.get_field("game").target_field, game_id):
        return None  # no game has such an id (SQLite's driver would raise OverflowError)
    no_player, no_game = player_id is None, game_id is None

    def build(connection):
        qn = connection.ops.quote_name
        meta = IdempotencyRecord._meta
        columns, converters = model_columns(connection, "r", IdempotencyRecord)
        where = [f"r.{qn(meta.get_field('player').column)}" + (" IS NULL" if no_player else " = %s"),
                 f"r.{qn(meta.get_field('operation').column)} = %s",
                 f"r.{qn(meta.get_field('game').column)}" + (" IS NULL" if no_game else " = %s"),
                 f"r.{qn(meta.get_field('key').column)} = %s"]
        return (f"SELECT {', '.join(columns)} FROM {qn(meta.db_table)} r WHERE {' AND '.join(where)}"
                f" ORDER BY r.{qn(meta.pk.column)} LIMIT 1", converters)

    params = [v for v in (player_id, operation, game_id, key) if v is not None]
    values = row_read(using, ("idempotency_record", no_player, no_game), build, params)
    return None if values is None else instance(IdempotencyRecord, using, values)


def _cutoff():
    """Records created before this are expired (``OKGIN_IDEMPOTENCY_TTL_SECONDS``, 24 h by default)."""
    return timezone.now() - timedelta(seconds=settings.OKGIN_IDEMPOTENCY_TTL_SECONDS)


def idempotency_records_prune(*, batch: int = 5000) -> int:
    """Delete expired idempotency records (older than ``OKGIN_IDEMPOTENCY_TTL_SECONDS``) in batches
    of ``batch`` rows (index ``idempotency_created``); returns how many. Run hourly by beat."""
    cutoff = _cutoff()
    deleted = 0
    while ids := list(IdempotencyRecord.objects.filter(created_at__lt=cutoff).values_list("pk", flat=True)[:batch]):
        deleted += IdempotencyRecord.objects.filter(pk__in=ids).delete()[0]
    return deleted


def idempotency_store(*, player, operation: str, game_id: int | None, key: str, request: Any,
                      response: StoredResponse) -> None:
    """Keep ``response`` as the answer to ``key`` (call inside the transaction of the change; a
    concurrent request that stored the same key first makes this raise ``IntegrityError``)."""
    IdempotencyRecord.objects.create(player=player, operation=operation, game_id=game_id, key=key,
                                     request_hash=request_hash(request), response_status=response.status,
                                     response_body=response.body)


# What an action's answer holds of the game row that the moves and rounds do not record.
ACTION_ROW_FIELDS = ("version", "updated_at", "server_time", "turn_started_at", "turn_deadline", "finished_at",
                     "auto_played_turns", "paused_until", "turn_time_left", "time_banks", "time_banks_left")


def action_idempotency_store(*, player, game: Game, key: str, request: Any, response: StoredResponse) -> None:
    """Keep the answer to an action (``response.body``: ``{"game": detail, "events": [...]}``, just
    applied to the locked ``game`` as its last move) compactly: the move's seq and
    ``ACTION_ROW_FIELDS`` of the answer; ``action_response_rebuild`` gives the answer back.
    Call inside the action's transaction."""
    detail = response.body["game"]
    row_insert(IdempotencyRecord(player=player, operation="action", game_id=game.pk, key=key,
                                 request_hash=request_hash(request), response_status=response.status,
                                 response_body={f: detail[f] for f in ACTION_ROW_FIELDS},
                                 move_seq=game.move_count))  # issue 14: not compiled by the ORM


def action_response_rebuild(*, record: IdempotencyRecord, player) -> dict:
    """The answer first given to the action of ``record`` (``move_seq``, ``response_body`` from
    ``action_idempotency_store``), rebuilt for ``player``: the engine replays the game's moves up to
    that move from its rounds' decks (R4 deals, then each action), the next round is dealt if that
    move ended one (as the service did), and the game row's fields are taken as they were then
    (status, scores, round, seat to act from the replayed state; version and times from the record;
    no rematch offer, since the game was in play). Returns ``{"game": detail, "events": [...]}``
    with the events redacted for the player's seat, as ``action_submit`` answered."""
    from .presenters import game_detail_dict  # presenters import the engine only; no cycle at call time

    game = Game.objects.select_related("player0", "player1").get(pk=record.game_id)
    seat = game.seat_of(player)
    rounds = list(Round.objects.filter(game_id=game.pk).order_by("number").values_list("deck", "commitment"))
    moves = list(Move.objects.filter(game_id=game.pk, seq__lte=record.move_seq).order_by("seq")
                 .values_list("seat", "action"))
    decks = iter(deck for deck, _ in rounds)
    state = engine.new_match(engine.RuleSet.from_dict(game.rules), game.first_dealer)
    events: list[dict] = []
    for mover, action in moves:
        if state.phase == "deal":
            state, _ = engine.deal(state, next(decks))
        state, applied = engine.apply(state, mover, action)
        events = [e.to_dict() for e in applied]
    if state.phase == "deal":
        state, dealt = engine.deal(state, next(decks))
        events += [e.to_dict() for e in dealt]
    then = Game(**{f.attname: getattr(game, f.attname) for f in Game._meta.concrete_fields})
    then.player0, then.player1 = game.player0, game.player1
    then.state = state.to_dict()
    over = state.phase == "match_over"
    then.status = GameStatus.FINISHED if over else GameStatus.ACTIVE
    then.winner_seat = state.winner if over else None
    then.end_reason = EndReason.TARGET_SCORE if over else ""
    then.score0, then.score1 = state.scores
    then.round_number = state.round_number
    then.dealer = state.round.dealer if state.round else state.dealer
    then.to_act_seat = None if over else state.to_act
    then.deck_commitment = rounds[state.round_number - 1][1]
    then.rematch_status, then.rematch_offered_by, then.rematch_id = RematchStatus.NONE, None, None
    detail = game_detail_dict(then, seat)
    detail.update(record.response_body)
    return {"game": detail, "events": [engine.redact_event(e, seat) for e in events]}


GAME_ID_MAX = 2**63 - 1  # the largest id a game can have (a 64-bit signed primary key)


def run_idempotent(http_request, *, player, operation: str, request: Any, perform: Callable[[], StoredResponse],
                   game_id: int | None = None) -> StoredResponse:
    """Run ``perform`` once per ``Idempotency-Key`` (header of ``http_request``; without one,
    just run it). ``request``: what identifies the request (its body, as JSON). Requests with the
    same key in the same scope run one after the other (``_key_lock``), so a retry sent while the
    first is still running waits for it and gets its answer replayed. With ``game_id`` the rows of
    its people (and ``player``'s) then the game's are locked next. Raises what
    ``perform`` raises (nothing stored), ``ServiceError`` 400 (a malformed key) or 422
    (``idempotency_key_reused``)."""
    key = idempotency_key_header(http_request)
    if key is None or (game_id is not None and not 0 < game_id <= GAME_ID_MAX):
        return perform()  # no key, or no such game (an id no database column holds): perform's 404
    scope = {"player": player, "operation": operation, "game_id": game_id, "key": key, "request": request}
    try:
        with transaction.atomic():
            _key_lock(player=player, operation=operation, game_id=game_id, key=key)
            if game_id is not None:
                # the players' rows, then the game's: the order of the services (a match started
                # here must see a vacation turned on at the same instant; services.common)
                from .services.common import _game_players_lock  # services import this module

                _game_players_lock(game_id=game_id, joining=player)
                list(Game.objects.select_for_update().filter(pk=game_id).values_list("pk", flat=True))
            replay = idempotency_replay(**scope)
            if replay is not None:
                return replay
            response = perform()
            idempotency_store(**scope, response=response)
            return response
    except IntegrityError:
        # A concurrent request with the same key committed first (our work was rolled back).
        replay = idempotency_replay(**scope)
        if replay is None:
            raise
        return replay


def _key_lock(*, player, operation: str, game_id: int | None, key: str) -> None:
    """Inside the caller's transaction, wait for any other request holding this Idempotency-Key's
    scope (player, operation, game, key) until it ends: a PostgreSQL advisory lock on a 64-bit
    hash of the scope, released at commit or rollback (two scopes sharing a hash merely wait for
    each other). Without it, a retry racing the first request ran ``perform`` too and failed on
    what the first had just created (409 ``username_taken``, ``webhook_exists``,
    ``vacation_already_on``) instead of getting the first's answer. Nothing on SQLite, whose write
    transactions already run one at a time."""
    connection = transaction.get_connection()
    if connection.vendor != "postgresql":
        return
    scope = json.dumps([player.pk if player is not None else None, operation, game_id, key])
    lock_id = int.from_bytes(hashlib.sha256(scope.encode()).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id])
