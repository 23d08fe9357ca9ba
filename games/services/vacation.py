"""Vacation, as correspondence players know it (``docs/correspondence.md``): a person turns it on
and the clocks of all their active games stop at once; turning it off, or running out of days,
restarts each clock with exactly the seconds it had left.

Days and their arithmetic (``OKGIN_VACATION_DAYS_PER_YEAR`` = D, default 21):

- The balance is kept in seconds. A new player starts with the full D days. At each month start
  (UTC) D/12 days are credited (21: 1.75 days = 151200 s), never above D days.
- Turning vacation on needs at least one whole day; the vacation then runs out at its start
  plus the whole days of the balance (``Player.vacation_until``).
- Days are charged in whole days started: a vacation of 3 days costs 3 days, one of 3 days and a
  second costs 4, turning it on and off at once costs 1 (so it cannot be used to stop a clock for
  free); never more than the whole days it was allowed.

A game is paused while any seated person is on vacation (``Game.paused_until``: the end of the
longest such vacation); no clock of either seat runs (Chess.com's daily rule), moves are still
accepted. A turn that starts while paused keeps its full clock until the resume. Expired
deadlines are applied first: a turn that ran out before the vacation began times out.

Locks: the player's row first, then each game's row in id order (``common._game_lock``); nothing
locks a game and then a player, so two vacations and the sweeps cannot deadlock. Starting a match
locks its players' rows before the game's too (``common._players_lock``): a game accepted at the
instant its player turns vacation on either starts paused (the acceptance waited and saw the
vacation) or is paused by it (the vacation waited and saw the game active).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from notifications.models import EventKind
from notifications.services import Notice, events_create
from okgin_project.errors import Conflict
from players.models import Player

from ..models import Game, GameStatus
from okgin_project.timestamps import iso
from .common import (PLAYER_LOCK, _game_lock, _game_pause, _game_resume, _turn_expired, _vacation_pause_until,
                     _version_bump)
from .deadlines import _turn_timeout_apply, invitation_expire, turn_timeout

DAY = 24 * 3600  # seconds


def vacation_allowance() -> int:
    """Seconds of vacation a year (``OKGIN_VACATION_DAYS_PER_YEAR`` days): also the balance's cap."""
    return settings.OKGIN_VACATION_DAYS_PER_YEAR * DAY


def vacation_monthly_credit() -> int:
    """Seconds credited at each month start: a twelfth of the yearly allowance (exact: a day is
    86400 s, a multiple of 12)."""
    return vacation_allowance() // 12


def _month_index(moment: datetime) -> int:
    moment = moment.astimezone(dt_timezone.utc)
    return moment.year * 12 + moment.month - 1


def vacation_balance(player: Player, now: datetime) -> int:
    """``player``'s vacation balance in seconds at ``now``: the stored balance plus a monthly
    credit for each month start (UTC) since ``vacation_accrued_month``, at most the yearly
    allowance; the full allowance for a player never credited. Does not charge a vacation in
    progress (that happens when it ends)."""
    cap = vacation_allowance()
    if player.vacation_accrued_month is None:
        return cap
    months = max(0, _month_index(now) - player.vacation_accrued_month)
    return min(cap, player.vacation_balance + months * vacation_monthly_credit())


def next_credit_at(now: datetime) -> datetime:
    """The next month start (UTC) after ``now``: when the next monthly credit comes."""
    month = _month_index(now) + 1
    return datetime(month // 12, month % 12 + 1, 1, tzinfo=dt_timezone.utc)


@dataclass(frozen=True)
class VacationState:
    """What ``GET /me/vacation/`` shows: ``balance`` (seconds left now, before charging a vacation
    in progress), ``on_vacation``, ``started_at``/``ends_at`` (when it runs out), ``days_charged``
    (whole days the vacation in progress costs if ended now, or the one just ended cost)."""

    balance: int
    on_vacation: bool
    started_at: datetime | None
    ends_at: datetime | None
    days_charged: int
    now: datetime


def _days_used(started: datetime, end: datetime, until: datetime) -> int:
    """Whole days started between ``started`` and ``end`` (at least 1), at most the whole days the
    vacation was allowed (``until - started``)."""
    allowed = round((until - started).total_seconds() / DAY)
    return min(allowed, max(1, math.ceil((end - started).total_seconds() / DAY)))


def vacation_state(*, player: Player, now: datetime | None = None, days_charged: int | None = None) -> VacationState:
    """``player``'s vacation as shown to them at ``now`` (no write)."""
    now = now or timezone.now()
    on = player.vacation_started_at is not None
    if days_charged is None:
        days_charged = _days_used(player.vacation_started_at, min(now, player.vacation_until),
                                  player.vacation_until) if on else 0
    return VacationState(balance=vacation_balance(player, now), on_vacation=on,
                         started_at=player.vacation_started_at, ends_at=player.vacation_until,
                         days_charged=days_charged, now=now)


def _player_lock(player_id: int) -> Player:
    """Lock and return ``player_id``'s row (``common.PLAYER_LOCK``: rows that refer to it are not blocked)."""
    return Player.objects.select_for_update(**PLAYER_LOCK).get(pk=player_id)


def _balance_settle(player: Player, now: datetime) -> None:
    player.vacation_balance = vacation_balance(player, now)
    player.vacation_accrued_month = _month_index(now)


def _active_game_ids(player: Player, *, paused_only: bool = False) -> list[int]:
    games = Game.objects.filter(Q(player0=player) | Q(player1=player), status=GameStatus.ACTIVE)
    if paused_only:
        games = games.filter(paused_until__isnull=False)
    return list(games.order_by("pk").values_list("pk", flat=True))


def _vacation_notice(game: Game, player: Player, reason: str) -> list[Notice]:
    seat = game.seat_of(player)
    return [Notice(game.player_at(1 - seat), EventKind.VACATION_ENDED if reason != "started"
                   else EventKind.VACATION_STARTED, game.pk, {
        "version": game.version, "by": player.name, "paused_until": iso(game.paused_until),
        "turn_deadline": iso(game.turn_deadline), "reason": reason})]


def vacation_start(*, player: Player) -> VacationState:
    """Turn ``player``'s vacation on: it runs out after the whole days of the balance; every active
    game of theirs is paused (a turn already past its deadline times out first, by the game's
    policy), its version bumped, and the opponent told (``vacation_started``). Returns the state.

    Raises ``Conflict`` ``vacation_already_on`` (it is on and has not run out),
    ``vacation_no_days`` (less than one whole day left). Nothing is written when it raises.
    """
    with transaction.atomic():
        player = _player_lock(player.pk)
        now = timezone.now()
        if player.vacation_until is not None:
            if player.vacation_until > now:
                raise Conflict("You are already on vacation.", code="vacation_already_on")
            _vacation_end_locked(player=player, end=player.vacation_until, reason="ran_out", now=now)
        _balance_settle(player, now)
        days = player.vacation_balance // DAY
        if days < 1:
            raise Conflict("You have less than one whole day of vacation left.", code="vacation_no_days")
        player.vacation_started_at = now
        player.vacation_until = now + timedelta(days=days)
        player.save(update_fields=["vacation_balance", "vacation_accrued_month", "vacation_started_at",
                                   "vacation_until"])
        for game_id in _active_game_ids(player):
            game = _game_lock(game_id=game_id)
            if game.status != GameStatus.ACTIVE:
                continue
            if _turn_expired(game, now):
                _turn_timeout_apply(game=game)
                if game.status != GameStatus.ACTIVE:
                    continue
            _game_pause(game, until=_vacation_pause_until(game))
            _version_bump(game)
            game.save()
            events_create(notices=_vacation_notice(game, player, "started"))
        return vacation_state(player=player, now=now)


def _vacation_end_locked(*, player: Player, end: datetime, reason: str, now: datetime) -> int:
    """End the locked ``player``'s vacation at ``end`` (now, or when it ran out): charge the whole
    days started, then resume each of their paused games at ``end`` unless the opponent is on
    vacation too (then it stays paused until the opponent's end), bump its version and tell the
    opponent (``vacation_ended``, ``reason`` ``ended`` or ``ran_out``). Returns the days charged."""
    days = _days_used(player.vacation_started_at, end, player.vacation_until)
    _balance_settle(player, now)
    player.vacation_balance = max(0, player.vacation_balance - days * DAY)
    player.vacation_started_at = player.vacation_until = None
    player.save(update_fields=["vacation_balance", "vacation_accrued_month", "vacation_started_at",
                               "vacation_until"])
    for game_id in _active_game_ids(player, paused_only=True):
        game = _game_lock(game_id=game_id)
        if game.status != GameStatus.ACTIVE or game.paused_until is None:
            continue
        until = _vacation_pause_until(game)
        if until is None:
            _game_resume(game, at=end)
        else:
            game.paused_until = until
        _version_bump(game)
        game.save()
        events_create(notices=_vacation_notice(game, player, reason))
    return days


def vacation_end(*, player: Player) -> VacationState:
    """Turn ``player``'s vacation off now (or, if it already ran out, apply that at its end):
    charges the whole days started and resumes their games with the time each had left (see
    ``_vacation_end_locked``). Returns the state, ``days_charged`` set.

    Raises ``Conflict`` ``vacation_not_on``; nothing is written then.
    """
    with transaction.atomic():
        player = _player_lock(player.pk)
        now = timezone.now()
        if player.vacation_until is None:
            raise Conflict("You are not on vacation.", code="vacation_not_on")
        ran_out = player.vacation_until <= now
        end = player.vacation_until if ran_out else now
        days = _vacation_end_locked(player=player, end=end, reason="ran_out" if ran_out else "ended", now=now)
        return vacation_state(player=player, now=now, days_charged=days)


def vacation_expire(*, player_id: int, now: datetime | None = None) -> bool:
    """If ``player_id``'s vacation has run out by ``now``, end it at its end (``ran_out``): run by
    the deadlines sweep and by reads, like other deadlines. Returns True if it ended one."""
    with transaction.atomic():
        player = _player_lock(player_id)
        now = now or timezone.now()
        if player.vacation_until is None or player.vacation_until > now:
            return False
        _vacation_end_locked(player=player, end=player.vacation_until, reason="ran_out", now=now)
        return True


def vacations_expire(*, now: datetime | None = None, limit: int = 500) -> int:
    """End every vacation that has run out by ``now`` (partial index ``player_vacation_until``);
    returns how many."""
    now = now or timezone.now()
    ids = list(Player.objects.filter(vacation_until__lte=now).order_by("vacation_until")
               .values_list("pk", flat=True)[:limit])
    return sum(vacation_expire(player_id=pid, now=now) for pid in ids)


def game_vacations_expire(*, game_id: int, now: datetime | None = None) -> int:
    """End the run-out vacations of ``game_id``'s seated players (a read of a game whose
    ``paused_until`` has passed); returns how many."""
    now = now or timezone.now()
    ids = list(Player.objects.filter(Q(games_as_seat0__pk=game_id) | Q(games_as_seat1__pk=game_id),
                                     vacation_until__lte=now).order_by("pk").values_list("pk", flat=True))
    return sum(vacation_expire(player_id=pid, now=now) for pid in ids)


def game_deadline_enforce(*, game: Game) -> Game:
    """Without beat, deadlines are enforced on access: an invitation past its
    ``invitation_expires_at`` expires (``deadlines.invitation_expire``); if ``game`` (as just read)
    is paused past its ``paused_until`` (a vacation ran out), end the run-out vacations first (the
    clocks restart at their end); if a turn has expired, apply the timeout; return the game read
    again, or ``game`` unchanged (no query) when nothing was due."""
    now = timezone.now()
    changed = False
    if game.status == GameStatus.INVITED and game.invitation_expires_at is not None \
            and game.invitation_expires_at <= now:
        changed = invitation_expire(game_id=game.pk, now=now)
    if game.status == GameStatus.ACTIVE and game.paused_until is not None and game.paused_until <= now:
        changed = game_vacations_expire(game_id=game.pk, now=now) > 0
        game = Game.objects.select_related("player0", "player1").get(pk=game.pk)
    if _turn_expired(game):
        turn_timeout(game_id=game.pk)
        changed = True
    if not changed:
        return game
    return Game.objects.select_related("player0", "player1").get(pk=game.pk)
