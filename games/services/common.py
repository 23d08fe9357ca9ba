"""Helpers shared by the game services: the game row lock, the turn clock, dealing a round, starting
and finishing a match, applying one engine action to the locked row, and queueing the AI's turn.

Nothing here opens a transaction: every function expects its caller to be inside
``transaction.atomic`` holding the game's row lock (``_game_lock``), as the package docstring says.
"""
from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games import engine
from notifications.live import live_game_publish_after_commit
from notifications.services import events_create
from okgin_project.errors import NotFound
from okgin_project.rows import row_insert, row_update, rows_insert
from players.models import Player

from .. import fairness
from .. import notices as game_notices
from .. import ratings
from ..models import EndReason, Game, GameStatus, Move, Round
from ..queue import ai_turn_queue
from ..rows import game_with_players

_system_random = secrets.SystemRandom()


def _game_lock(*, game_id: int) -> Game:
    """Lock and return the game row (caller must be inside ``transaction.atomic``), with its
    players and ``current_round_id`` (the id of the ``Round`` in play or last dealt, None before the
    first deal), read in the same statement (``games.rows.game_with_players``: SQL written once, not
    compiled by the ORM at each lock, issue 14). Only the game's row is locked
    (``SELECT ... FOR UPDATE OF`` the game on PostgreSQL; SQLite has no row locks and the clause is
    left out there, the write transaction serializing instead), not its players'.

    Raises ``NotFound`` if there is no such game.
    """
    game = game_with_players(game_id=game_id, lock=True)
    if game is None:
        raise NotFound("No such game.")
    return game


# How the services lock a player's row (``select_for_update`` arguments): FOR NO KEY UPDATE on
# PostgreSQL (see ``_players_lock``); SQLite ignores row locks (its write transactions serialize).
PLAYER_LOCK = {"no_key": True}


def _players_lock(*, player_ids) -> dict[int, Player]:
    """Lock the rows of the people among ``player_ids`` (None and AI players skipped: an AI is never
    on vacation) in id order and return them by id, read after the lock (caller inside
    ``transaction.atomic``).

    Starting a match reads its players' vacations (``_match_start``: a player on vacation starts
    it paused) and ``vacation_start`` locks the player's row before it pauses their active games.
    A service that starts a match takes this lock before the game's (the order of the vacation
    services and of account deletion: players, then games), so the two serialize: either the start
    sees the vacation, or the vacation sees the started game and pauses it.

    The lock is PostgreSQL's ``FOR NO KEY UPDATE`` (:data:`PLAYER_LOCK`), which serializes the
    services that take it but not the writes of rows that merely refer to a player (an event, a
    rating: the foreign key's ``FOR KEY SHARE`` check): an action or a resignation that holds a
    game's lock writes those without waiting for a player's lock, so it cannot deadlock with a
    service that holds that player's row and waits for the game (as it did with ``FOR UPDATE``)."""
    ids = sorted({pk for pk in player_ids if pk is not None})
    return {p.pk: p for p in Player.objects.select_for_update(**PLAYER_LOCK).filter(pk__in=ids, is_ai=False)
            .order_by("pk")}


def _game_players_lock(*, game_id: int, joining: Player | None = None) -> None:
    """``_players_lock`` for the players of ``game_id`` (seats 0 and 1, and ``joining``, who is
    about to take an open challenge's empty seat 1), before ``_game_lock``; nothing for no such
    game (``_game_lock`` raises ``NotFound`` next). Seats never change once taken, so reading them
    without the game's lock is safe."""
    seats = Game.objects.filter(pk=game_id).values_list("player0_id", "player1_id").first()
    if seats is not None:
        _players_lock(player_ids=(*seats, joining.pk if joining is not None else None))


def _version_bump(game: Game) -> None:
    """Record a change of the locked ``game`` that its players can see: ``version`` + 1 (the game
    view's ETag, the ``version`` an action must name) and, after commit, wake the requests
    long-polling the game (``GET games/{id}/?wait=``). Every such change goes through here (a test
    checks that no service bumps the version by hand); the caller saves the row."""
    game.version += 1
    live_game_publish_after_commit(game.pk)


def _state_of(game: Game) -> engine.MatchState:
    return game.match_state()


def _turn_clear(game: Game) -> None:
    game.to_act_seat = None
    game.turn_started_at = None
    game.turn_deadline = None
    game.turn_reminder_at = None
    game.turn_time_left = None
    game.turn_reminder_left = None
    game.paused_until = None
    game.awaiting_ai = False


def _seconds_up(delta: timedelta) -> int:
    """Whole seconds of ``delta``, rounded up; never below 0."""
    return max(0, math.ceil(delta.total_seconds()))


def _turn_seconds_left(game: Game, now) -> int | None:
    """Seconds left on the current turn's clock at ``now`` (0 once expired; the kept seconds while
    the game is paused), or None when the turn has no clock (no limit, an AI to act)."""
    if game.turn_time_left is not None:
        return game.turn_time_left
    if game.turn_deadline is None:
        return None
    return _seconds_up(game.turn_deadline - now)


def _turn_clock_seconds(game: Game, seat: int) -> int | None:
    """Seconds on the clock of a turn of ``seat`` that starts now: its time bank, else
    ``move_time_limit``; None for an AI seat or without a time control."""
    if game.player_at(seat).is_ai:
        return None
    if game.time_bank_initial is not None:
        return game.bank(seat)
    return game.move_time_limit or None


def _turn_clock_start(game: Game, seconds: int | None, now) -> None:
    """Start the clock of the turn beginning at ``now`` with ``seconds`` on it (None: no clock):
    the deadline and the ``deadline_near`` reminder (at ``OKGIN_DEADLINE_REMINDER_FRACTION`` of
    it), or, while the game is paused, the same kept as seconds left for the resume."""
    game.turn_deadline = game.turn_reminder_at = None
    game.turn_time_left = game.turn_reminder_left = None
    if seconds is None:
        return
    reminder = math.ceil(seconds * settings.OKGIN_DEADLINE_REMINDER_FRACTION)
    if game.paused_until is not None:
        game.turn_time_left, game.turn_reminder_left = seconds, reminder
    else:
        game.turn_deadline = now + timedelta(seconds=seconds)
        game.turn_reminder_at = now + timedelta(seconds=reminder)


def _bank_credit(game: Game, seat: int, now, *, increment: bool = True) -> None:
    """The turn of ``seat`` ends at ``now``: with a time bank, its seconds left (0 after a timeout)
    plus ``time_bank_increment`` (unless not ``increment``: the match ended), at most
    ``time_bank_max``, become its bank."""
    if game.time_bank_initial is None or game.player_at(seat).is_ai:
        return
    left = _turn_seconds_left(game, now) or 0
    game.bank_set(seat, min(game.time_bank_max, left + (game.time_bank_increment if increment else 0)))


def _set_turn(game: Game, state: engine.MatchState, *, restart: bool = False) -> bool:
    """Copy the engine's seat to act into the row; when a new turn starts (the seat changes, or
    ``restart``: a round was dealt) end the previous turn (with a time bank: credit its seconds
    left plus the increment, capped) and start the new one's clock: ``turn_started_at`` now, and
    for a person under a time control ``turn_deadline`` after ``move_time_limit`` seconds or the
    seat's bank, with the reminder at ``OKGIN_DEADLINE_REMINDER_FRACTION`` of it (while the game is
    paused, those seconds are kept for the resume instead). Returns True if a new turn started."""
    seat = state.to_act if game.status == GameStatus.ACTIVE else None
    if seat is None:
        _turn_clear(game)
        return False
    started = restart or seat != game.to_act_seat or game.turn_started_at is None
    now = timezone.now()
    if started and game.to_act_seat is not None and game.turn_started_at is not None:
        _bank_credit(game, game.to_act_seat, now)
    game.to_act_seat = seat
    player = game.player_at(seat)
    game.awaiting_ai = player.is_ai
    if started:
        game.turn_started_at = now
        _turn_clock_start(game, _turn_clock_seconds(game, seat), now)
    return started


def _turn_expired(game: Game, now=None) -> bool:
    """True if ``game`` is active and the deadline of the person to act has passed."""
    return (
        game.status == GameStatus.ACTIVE
        and game.turn_deadline is not None
        and game.turn_deadline <= (now or timezone.now())
    )


def _round_deal(*, game: Game, state: engine.MatchState) -> tuple[engine.MatchState, list, Round]:
    """Deal the next round (R4) from the next staff-preset deck or a server shuffle (SystemRandom),
    with a fresh secret salt and the public commitment to both (``games.fairness``; also copied to
    ``game.deck_commitment``). Creates the ``Round`` row; returns ``(state, events, round)``.
    """
    index = state.round_number  # 0-based index of the round about to be dealt
    preset = index < len(game.preset_decks)
    if preset:
        deck = engine.validate_deck(game.preset_decks[index])
    else:
        deck = engine.shuffled_deck(_system_random)
    state, events = engine.deal(state, deck)
    codes = [c.code for c in deck]
    salt = fairness.salt_new()
    game.deck_commitment = fairness.deck_commitment(codes, salt)
    rnd = Round.objects.create(
        game=game,
        number=state.round.number,
        dealer=state.round.dealer,
        deck=codes,
        salt=salt,
        commitment=game.deck_commitment,
        preset_deck=preset,
        upcard=state.round.first_upcard.code,
        knock_limit=state.round.knock_limit,
    )
    game.round_number = state.round_number
    game.dealer = state.round.dealer
    game.current_round_id = rnd.pk
    return state, events, rnd


def _match_start(*, game: Game) -> None:
    """Choose the first dealer (R3.1, at random unless preset by staff), deal round 1, go active."""
    if game.first_dealer is None:
        game.first_dealer = _system_random.randrange(2)
    state = engine.new_match(engine.RuleSet.from_dict(game.rules), game.first_dealer)
    state, _events, _rnd = _round_deal(game=game, state=state)
    game.match_state_set(state)
    game.status = GameStatus.ACTIVE
    game.started_at = timezone.now()
    if game.time_bank_initial is not None:
        game.bank0 = game.bank1 = game.time_bank_initial
    game.paused_until = _vacation_pause_until(game)
    _set_turn(game, state, restart=True)


def _vacation_pause_until(game: Game):
    """The latest ``vacation_until`` of the seated people on vacation (the game stays paused until
    then at the latest), or None when nobody seated is on vacation."""
    ends = [p.vacation_until for p in (game.player0, game.player1)
            if p is not None and p.vacation_until is not None]
    return max(ends, default=None)


def _game_pause(game: Game, *, until) -> None:
    """Pause the locked, active ``game`` until ``until`` at the latest (a later end already set is
    kept): the running turn's deadline and reminder become seconds left (rounded up), kept in
    ``turn_time_left``/``turn_reminder_left``; nothing expires while paused."""
    if game.paused_until is None:
        now = timezone.now()
        if game.turn_deadline is not None:
            game.turn_time_left = _seconds_up(game.turn_deadline - now)
            game.turn_reminder_left = (_seconds_up(game.turn_reminder_at - now)
                                       if game.turn_reminder_at is not None else None)
        game.turn_deadline = game.turn_reminder_at = None
        game.paused_until = until
    else:
        game.paused_until = max(game.paused_until, until)


def _game_resume(game: Game, *, at) -> None:
    """Restart the paused ``game``'s clock at ``at``: the deadline is ``at`` plus the kept seconds
    left, the reminder ``at`` plus its kept seconds (not sent again once sent)."""
    if game.turn_time_left is not None:
        game.turn_deadline = at + timedelta(seconds=game.turn_time_left)
        game.turn_reminder_at = (at + timedelta(seconds=game.turn_reminder_left)
                                 if game.turn_reminder_left is not None else None)
    game.turn_time_left = game.turn_reminder_left = None
    game.paused_until = None


def _match_finish(*, game: Game, winner_seat: int, reason: str) -> None:
    """Finish the locked ``game``: winner, reason, time; with a time bank, the seat whose turn was
    running keeps the seconds its clock had left (0 after a timeout; no increment); a rated match
    updates both players' Glicko-2 ratings here, in the transaction that finishes it (``games.ratings.match_rate``)."""
    game.status = GameStatus.FINISHED
    game.winner_seat = winner_seat
    game.end_reason = reason
    game.finished_at = timezone.now()
    if game.to_act_seat is not None:  # the clock of the turn in progress stops where it stood
        _bank_credit(game, game.to_act_seat, game.finished_at, increment=False)
    _turn_clear(game)
    ratings.match_rate(game=game)


# The game row's columns an action changes while the match goes on (the rest is written when it ends).
_ACTION_FIELDS = (
    "state", "version", "move_count", "score0", "score1", "round_number", "dealer", "deck_commitment",
    "to_act_seat", "turn_started_at", "turn_deadline", "turn_reminder_at", "awaiting_ai", "auto_played0",
    "auto_played1", "updated_at", "bank0", "bank1", "turn_time_left", "turn_reminder_left",
)


def _action_apply(*, game: Game, seat: int, action: Any, auto_played: bool = False,
                  pending: list | None = None) -> list[dict]:
    """Apply one action to the locked ``game`` row: append the Move, close the round and deal the
    next one when it ends (R3.2, R3.3), finish the match (R10.1), start the next turn's clock, bump
    the version, save the row and write the notification events. An action the player chose (not
    ``auto_played`` for them after a timeout) resets their count of consecutive auto-played turns.

    ``pending``: a ``PendingWrites`` that collects the Move and the events' notices instead, the
    Move's insert, the row's save and the events being left to the caller (``_actions_written``,
    once for a run of actions under one lock: the AI's turn, issue 14). Returns the events
    (unredacted dicts). Raises the engine's ``EngineError`` before any write.
    """
    state = _state_of(game)
    new_state, events = engine.apply(state, seat, action)
    round_id = getattr(game, "current_round_id", None)  # read with the lock (_game_lock)
    if round_id is None:
        round_id = Round.objects.filter(game_id=game.pk, number=game.round_number).values_list("pk", flat=True).get()
    game.move_count += 1
    event_dicts = [e.to_dict() for e in events]
    move = Move(game=game, round_id=round_id, seq=game.move_count, seat=seat, action=action.to_dict(),
                events=event_dicts, auto_played=auto_played)
    if pending is None:
        row_insert(move)  # issue 14: not compiled by the ORM
    else:
        pending.moves.append(move)
    if not auto_played:
        game.auto_played_set(seat, 0)
    ended = next((e for e in events if e.type == "round_ended"), None)
    if ended is not None:
        result = ended.data["result"]
        Round.objects.filter(pk=round_id).update(
            outcome=result["outcome"], knocker_seat=result["knocker"], winner_seat=result["winner"],
            points=result["points"], result=result, ended_at=timezone.now(),
        )
    game.score0, game.score1 = new_state.scores
    if new_state.phase == "match_over":
        _match_finish(game=game, winner_seat=new_state.winner, reason=EndReason.TARGET_SCORE)
    dealt = False
    if new_state.phase == "deal":
        new_state, deal_events, _ = _round_deal(game=game, state=new_state)
        event_dicts += [e.to_dict() for e in deal_events]
        dealt = True
    game.match_state_set(new_state)
    game.dealer = new_state.round.dealer if new_state.round else new_state.dealer
    turn_started = _set_turn(game, new_state, restart=dealt) if game.status == GameStatus.ACTIVE else False
    _version_bump(game)
    notices = game_notices.action_notices(
        game=game, seat=seat, action=action.to_dict(), events=event_dicts, turn_started=turn_started,
    )
    if pending is None:
        _actions_written(game=game, notices=notices)
    else:
        pending.notices += notices
    return event_dicts


@dataclass
class PendingWrites:
    """What a run of actions under one lock (``_action_apply`` with ``pending``) leaves to write
    once at its end (``_actions_written``): its ``moves`` (unsaved ``Move`` rows, in order) and
    the ``notices`` of their events."""

    moves: list = field(default_factory=list)
    notices: list = field(default_factory=list)


def _actions_written(*, game: Game, notices: list, moves: list | None = None) -> None:
    """Save the locked ``game`` row after ``_action_apply`` (while the match goes on only the
    columns an action changes, ``_ACTION_FIELDS``), insert ``moves`` (a run's ``PendingWrites``:
    one statement for all of them, issue 14) and create the events of ``notices``."""
    if moves:
        rows_insert(moves)
    if game.status == GameStatus.ACTIVE:
        row_update(game, _ACTION_FIELDS)  # not the rules, staff decks, seats... that no action changes
    else:
        game.save()
    events_create(notices=notices)


def _ai_turn_schedule_if_due(*, game: Game) -> None:
    """If an AI seat is to act, queue ``games.tasks.ai_turn_play`` for the game at its current
    version after this transaction commits (a duplicate or stale delivery is a no-op)."""
    if game.status != GameStatus.ACTIVE or not game.awaiting_ai:
        return
    ai_turn_queue(game_id=game.pk, expected_version=game.version)
