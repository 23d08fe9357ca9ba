"""Liveness (``/healthz``) and readiness (``/readyz``), built on django-health-check's checks.

``GET /healthz``: 200 ``{"status": "ok"}`` as long as the process answers; touches nothing else
(no database, no Redis), so a restart is only ever asked for a process that is itself stuck.

``GET /readyz``: runs every check of :func:`readiness_checks` at once and answers 200
``{"status": "ready", "down": [], "checks": {...}}`` when all pass, else 503 with the names of the
failing parts in ``"down"`` and ``"status"``: ``"degraded"`` when only the broker side is down
(``redis``, ``celery``: requests are still served -- actions, reads and game creation work, rate
limits count in process memory -- while AI turns, pushes and webhook deliveries wait for the sweeps
once the broker is back), ``"not_ready"`` when the database or its migrations are. Each entry of
``"checks"`` is ``{"status": "ok" | "down", "error"?: str, "seconds": float}``. The parts:

- ``database``: PostgreSQL answers ``SELECT 1``;
- ``migrations``: every migration of the installed code is applied (no plan left to run);
- ``redis``: the Celery broker (``REDIS_URL``) answers PING;
- ``celery``: a worker consuming the default queue answered a ping now, or did within
  ``READYZ_WORKER_MAX_AGE`` seconds (default 30; the time of the last answer is kept in the cache),
  so one busy moment does not take the web tier out of a load balancer.

``redis`` and ``celery`` are left out when tasks run in-process (the embedded default: no broker).

:class:`HealthMiddleware` answers both paths first in ``MIDDLEWARE``: before host validation (a
probe from inside a container asks for ``127.0.0.1``, whatever ``ALLOWED_HOSTS`` says), sessions,
authentication and the request log. To add a part, add a ``(name, check)`` pair to
:func:`readiness_checks`; how results become the answer is decided in :func:`readiness_answer`.
"""
from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
import time

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connections
from django.http import JsonResponse
from health_check.base import HealthCheck, HealthCheckResult
from health_check.checks import Database
from health_check.contrib.celery import Ping
from health_check.contrib.redis import Redis
from health_check.exceptions import ServiceUnavailable

logger = logging.getLogger(__name__)

WORKER_ANSWER_CACHE_KEY = "okgin:health:worker_answered_at"
_MIGRATED_ALIASES: set[str] = set()  # database aliases seen fully migrated by this process


@dataclasses.dataclass
class Migrated(HealthCheck):
    """Passes when the database has every migration of the installed apps applied. Raises
    ``ServiceUnavailable`` naming how many are unapplied, or that the database cannot be read.
    A pass is remembered for the life of the process (code, and so migrations, cannot change under
    a running process)."""

    alias: str = "default"

    def run(self) -> None:
        if self.alias in _MIGRATED_ALIASES:
            return
        from django.db.migrations.executor import MigrationExecutor

        connection = connections[self.alias]
        try:
            executor = MigrationExecutor(connection)
            plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        except DatabaseError as exc:
            raise ServiceUnavailable("cannot read the applied migrations") from exc
        finally:
            connection.close()  # this runs on a short-lived executor thread
        if plan:
            raise ServiceUnavailable(f"{len(plan)} migrations not applied (run migrate)")
        _MIGRATED_ALIASES.add(self.alias)


@dataclasses.dataclass
class WorkerAnswered(Ping):
    """django-health-check's Celery ping (a worker answers, and one consumes the default queue),
    passing also when a worker last answered at most ``max_age`` ago. Each answer's time
    (``time.time()``, seconds) is stored in the default cache under ``WORKER_ANSWER_CACHE_KEY``."""

    timeout: datetime.timedelta = dataclasses.field(default=datetime.timedelta(seconds=2), repr=False)
    limit: int | None = dataclasses.field(default=1, repr=False)
    max_age: datetime.timedelta = dataclasses.field(default=datetime.timedelta(seconds=30), repr=False)

    def run(self) -> None:
        try:
            super().run()
        except ServiceUnavailable:
            answered_at = self._last_answer()
            if answered_at is not None and time.time() - answered_at <= self.max_age.total_seconds():
                return
            raise
        try:
            cache.set(WORKER_ANSWER_CACHE_KEY, time.time(), timeout=None)
        except Exception:  # noqa: BLE001 - the cache (Redis) has its own part in the answer
            logger.warning("could not record the worker's answer in the cache", exc_info=True)

    @staticmethod
    def _last_answer() -> float | None:
        try:
            return cache.get(WORKER_ANSWER_CACHE_KEY)
        except Exception:  # noqa: BLE001
            return None


def _broker_client():
    from redis.asyncio import Redis as RedisClient

    return RedisClient.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2)


#: The parts whose loss degrades the service (work queued for the worker waits) without stopping it.
BROKER_PARTS = frozenset({"redis", "celery"})


def readiness_checks() -> list[tuple[str, HealthCheck]]:
    """The parts of readiness, in answer order: ``(name, django-health-check check)`` pairs. When
    tasks run in-process (``task_always_eager``: the embedded default) there is no broker and no
    worker to wait for, so only the database parts are checked."""
    from okgin_project.celery import app

    checks: list[tuple[str, HealthCheck]] = [("database", Database()), ("migrations", Migrated())]
    if not app.conf.task_always_eager:
        max_age = datetime.timedelta(seconds=settings.OKGIN_READYZ_WORKER_MAX_AGE)
        checks += [("redis", Redis(client_factory=_broker_client)), ("celery", WorkerAnswered(app=app, max_age=max_age))]
    return checks


async def _run_all(checks: list[tuple[str, HealthCheck]]) -> list[HealthCheckResult]:
    return await asyncio.gather(*(check.get_result() for _, check in checks))


def readiness_answer(names: list[str], results: list[HealthCheckResult]) -> tuple[int, dict]:
    """The HTTP status and JSON body of ``/readyz`` from each part's result (see the module)."""
    parts = {}
    for name, result in zip(names, results):
        part = {"status": "down" if result.error else "ok", "seconds": round(result.time_taken, 3)}
        if result.error:
            part["error"] = str(result.error)
        parts[name] = part
    down = [name for name, part in parts.items() if part["status"] == "down"]
    if not down:
        status = "ready"
    elif set(down) <= BROKER_PARTS:
        status = "degraded"
    else:
        status = "not_ready"
    body = {"status": status, "down": down, "checks": parts}
    return (503 if down else 200), body


def readyz() -> JsonResponse:
    """Runs the readiness checks (concurrently) and answers as described in the module."""
    checks = readiness_checks()
    status, body = readiness_answer([name for name, _ in checks], async_to_sync(_run_all)(checks))
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    response._has_been_logged = True  # each failing check logged its own warning; no 503 error line
    return response


def healthz() -> JsonResponse:
    """Liveness: 200 ``{"status": "ok"}``, nothing checked."""
    response = JsonResponse({"status": "ok"})
    response["Cache-Control"] = "no-store"
    return response


class HealthMiddleware:
    """Answers ``GET``/``HEAD`` ``/healthz`` and ``/readyz`` before any other middleware."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in ("GET", "HEAD"):
            if request.path_info == "/healthz":
                return healthz()
            if request.path_info == "/readyz":
                return readyz()
        return self.get_response(request)
