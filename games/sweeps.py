"""Expired deadlines applied without waiting for beat.

Two halves, so that every screen shows a game's state with its expired deadlines already applied,
whether or not a beat process runs:

- ``deadlines_apply_for_player``: called by every read that can show a player's games (games
  list and its filters, statistics, lobby, event feed, history and exports) *before* it queries.
  One indexed query finds the player's games with something due (a turn deadline passed, an
  invitation expired, a ``deadline_near`` reminder due); when nothing is due that query is all it
  costs. What is due is applied by the same services as the beat sweep (``turn_timeout``,
  ``invitations_expire``, ``deadline_reminder_send``), each under the game's row lock.
- ``SweepScheduler``: the embedded default (no broker, tasks in-process) has no beat, so each
  web process runs the beat schedule (``CELERY_BEAT_SCHEDULE``: the same task functions, the same
  intervals) on a daemon thread. Only the process holding the database lease ``beat``
  (``SchedulerLease``) runs them, so two processes never sweep at once; and every timeout is
  applied under the game's row lock after re-checking the deadline, so even a sweep and a read
  (or two sweeps after a lease takeover) apply one timeout once.
"""
from __future__ import annotations

import atexit
import logging
import os
import socket
import threading
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connections
from django.db.models import Q
from django.utils import timezone

from players.models import Player

from . import services
from .models import Game, GameStatus, SchedulerLease

logger = logging.getLogger(__name__)

DUE_BATCH = 200  # games fetched per query; the loop continues until nothing is due


def _due_for_player(*, player: Player, now: datetime) -> list[tuple]:
    """``(id, status, turn_deadline, turn_reminder_at, paused_until)`` of ``player``'s games with
    something due at ``now``: an expired turn, an expired invitation, a due reminder or a pause
    whose vacation ran out (one query; the seat
    indexes ``game_p0_status_created``/``game_p1_status_created`` narrow it to the player's
    active and invited games)."""
    due = (
        Q(status=GameStatus.ACTIVE, turn_deadline__lte=now)
        | Q(status=GameStatus.ACTIVE, turn_reminder_at__lte=now)
        | Q(status=GameStatus.INVITED, invitation_expires_at__lte=now)
        | Q(status=GameStatus.ACTIVE, paused_until__lte=now)
    )
    seated = Q(player0=player) | Q(player1=player)
    return list(
        Game.objects.filter(seated, status__in=(GameStatus.ACTIVE, GameStatus.INVITED))
        .filter(due)
        .order_by("pk")
        .values_list("pk", "status", "turn_deadline", "turn_reminder_at", "paused_until")[:DUE_BATCH]
    )


def deadlines_apply_for_player(*, player: Player) -> int:
    """Apply everything due in ``player``'s games before a read shows them: timeouts of expired
    turns (by each game's timeout policy: forfeit or auto-play), expiry of unanswered invitations
    and challenges, due ``deadline_near`` reminders, and vacations that ran out (the player's own,
    and the opponents' in their paused games: the clocks restart at the vacation's end, and a turn
    that then expired times out in the next pass). Returns how many changes were applied (0, after
    one query, when nothing is due).

    Safe against beat, the in-process scheduler and other readers running at once: each change is
    made by its service under the game's row lock after re-checking that it is still due.
    """
    applied = 0
    if player.vacation_until is not None and player.vacation_until <= timezone.now():
        applied += services.vacation_expire(player_id=player.pk)
    seen: set[int] = set()
    while True:
        now = timezone.now()
        rows = [row for row in _due_for_player(player=player, now=now) if row[0] not in seen]
        if not rows:
            return applied
        invitations = False
        for game_id, status, deadline, reminder, paused_until in rows:
            seen.add(game_id)  # a row that stays due (a race lost to a move) is not retried forever
            if paused_until is not None and paused_until <= now:
                if services.game_vacations_expire(game_id=game_id, now=now):
                    applied += 1
                    seen.discard(game_id)  # resumed: its turn may now be due too
            elif status == GameStatus.INVITED:
                invitations = True
            elif deadline is not None and deadline <= now:
                applied += services.turn_timeout(game_id=game_id) is not None
            elif reminder is not None:
                applied += services.deadline_reminder_send(game_id=game_id)
        if invitations:
            applied += services.invitations_expire(now=now)


# --- the in-process scheduler (embedded default) ----------------------------------------------

LEASE_NAME = "beat"


def lease_acquire(*, name: str, owner: str, seconds: float, now: datetime | None = None) -> bool:
    """Take or renew the lease ``name`` for ``owner`` until ``now + seconds``; True if ``owner``
    holds it afterwards. It is taken only when free or expired (a conditional ``UPDATE``, so two
    processes racing for it cannot both succeed)."""
    now = now or timezone.now()
    SchedulerLease.objects.get_or_create(name=name, defaults={"owner": "", "expires_at": now})
    taken = (
        SchedulerLease.objects.filter(name=name)
        .filter(Q(owner=owner) | Q(expires_at__lte=now) | Q(owner=""))
        .update(owner=owner, expires_at=now + timedelta(seconds=seconds))
    )
    return taken == 1


def lease_release(*, name: str, owner: str) -> None:
    """Give up the lease ``name`` if ``owner`` holds it (another process may take it at once)."""
    SchedulerLease.objects.filter(name=name, owner=owner).update(owner="", expires_at=timezone.now())


def beat_jobs() -> dict[str, float]:
    """``{task name: interval in seconds}`` from ``CELERY_BEAT_SCHEDULE``: what beat runs."""
    return {entry["task"]: float(entry["schedule"]) for entry in settings.CELERY_BEAT_SCHEDULE.values()}


class SweepScheduler:
    """Runs the beat schedule's tasks in this process while it holds the database lease.

    ``jobs``: ``{task name: interval seconds}`` (default: ``beat_jobs()``). ``tick()`` renews (or
    tries to take) the lease and, if held, runs each job whose interval has passed, calling the
    task's function in-process (an error is logged and the job retried on the next tick). The
    lease lasts ``lease_seconds`` (default: three ticks, at least 30 s), so a process that dies
    is replaced after that long. ``start()`` runs ``tick()`` every ``tick_seconds`` on a daemon
    thread; ``stop()`` ends it and releases the lease.
    """

    def __init__(self, *, jobs: dict[str, float] | None = None, tick_seconds: float | None = None,
                 lease_seconds: float | None = None, owner: str | None = None):
        self.jobs = dict(jobs if jobs is not None else beat_jobs())
        self.tick_seconds = tick_seconds or min(self.jobs.values(), default=5.0)
        self.lease_seconds = lease_seconds or max(30.0, 3 * self.tick_seconds)
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._next_run: dict[str, datetime] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> list[str]:
        """One round: returns the names of the jobs run (empty when another process holds the
        lease or nothing was due)."""
        from okgin_project.celery import app

        try:
            if not lease_acquire(name=LEASE_NAME, owner=self.owner, seconds=self.lease_seconds):
                self._next_run.clear()  # on a takeover later, run everything at once
                return []
            app.loader.import_default_modules()
            ran = []
            for name, interval in self.jobs.items():
                now = timezone.now()
                if self._next_run.get(name, now) > now:
                    continue
                self._next_run[name] = now + timedelta(seconds=interval)
                try:
                    app.tasks[name].run()
                    ran.append(name)
                except Exception:  # noqa: BLE001 - logged; the next tick tries again
                    logger.exception("in-process sweep %s failed", name)
            return ran
        finally:
            connections.close_all()  # this thread's connections only

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception:  # noqa: BLE001 - database unreachable: keep trying
                logger.exception("in-process scheduler tick failed")
            self._stop.wait(self.tick_seconds)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="okgin-sweeps", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        try:
            lease_release(name=LEASE_NAME, owner=self.owner)
        finally:
            connections.close_all()


_process_scheduler: SweepScheduler | None = None
_process_lock = threading.Lock()


def scheduler_start_if_embedded() -> SweepScheduler | None:
    """Start this process's ``SweepScheduler`` (once per process) when
    ``OKGIN_INPROCESS_SCHEDULER`` is on (default: when tasks run in-process, i.e. no broker and no
    beat); called by the WSGI/ASGI entry points. Returns it, or None when off."""
    global _process_scheduler
    if not settings.OKGIN_INPROCESS_SCHEDULER:
        return None
    with _process_lock:
        if _process_scheduler is None:
            _process_scheduler = SweepScheduler()
            _process_scheduler.start()
            atexit.register(_process_scheduler.stop)
        return _process_scheduler
