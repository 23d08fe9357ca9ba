"""The Celery application of okgin, and the two rules every task follows.

Configured explicitly from Django settings with the ``CELERY_`` prefix (``settings/base.py``): JSON
only, late acknowledgement (a message is acknowledged when its task has finished, and re-queued if
the worker process dies: ``task_reject_on_worker_lost``), a soft and a hard time limit, prefetch of
one. With no ``DATABASE_URL`` (the embedded default) ``CELERY_TASK_ALWAYS_EAGER`` is on and tasks
run in-process, so nothing else has to be installed to play against the AI.

Rules for tasks (``games/tasks.py``, ``notifications/tasks.py``):

- A task takes ids (and the version it was queued for), never model instances, and calls a
  service; it must be safe to run twice, late, or never (a periodic sweep re-queues lost work).
- Tasks are queued with :func:`enqueue_after_commit`, so a worker only ever sees committed rows.
  Services name the tasks they queue in one small module per app (``games/queue.py``,
  ``notifications/queue.py``) and never import a task module; task modules import services.

Run a worker: ``celery -A okgin_project worker -l INFO --without-mingle --without-gossip`` (mingle could hang a worker reconnecting after a Redis outage); the periodic sweeps: ``celery -A
okgin_project beat -l INFO``.
"""
from __future__ import annotations

import hashlib
import logging
import os
import threading
from contextlib import contextmanager

from celery import Celery, Task, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.local")

logger = logging.getLogger(__name__)

app = Celery("okgin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# A worker whose shutdown wedges still exits, for its supervisor to restart (issue 14).
app.steps["worker"].add("okgin_project.worker_watchdog:StopWatchdog")


@signals.setup_logging.connect
def _keep_django_logging(loglevel=None, **kwargs) -> None:
    """Worker and beat log through Django's ``LOGGING`` (JSON lines in production, with the task's
    id; ``okgin_project.logs``) instead of Celery's own format; ``-l/--loglevel`` still applies."""
    import logging.config

    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    if loglevel:
        logging.getLogger().setLevel(loglevel)


@signals.worker_process_init.connect
def _freeze_startup_objects(**kwargs) -> None:
    """In each prefork pool process, once started: the start-up objects (Django, the engine, the
    AI, the task modules) out of the garbage collector's full passes (``okgin_project.warm``)."""
    from okgin_project.warm import freeze_startup_objects

    freeze_startup_objects(load_urls=False)


def _connect_log_context() -> None:
    from okgin_project import logs

    signals.before_task_publish.connect(logs.on_before_task_publish, weak=False)
    signals.task_prerun.connect(logs.on_task_prerun, weak=False)
    signals.task_postrun.connect(logs.on_task_postrun, weak=False)


_connect_log_context()


def _database_errors() -> tuple[type[BaseException], ...]:
    from django.db import InterfaceError, OperationalError

    return (OperationalError, InterfaceError)


class OkginTask(Task):
    """Base class of okgin tasks: late acknowledgement, re-queued when the worker is lost, and
    retried with exponential backoff (1, 2, 4... seconds, at most 60, with jitter, 5 times) on
    database errors (connection lost, serialization failure, lock timeout)."""

    acks_late = True
    reject_on_worker_lost = True
    autoretry_for = _database_errors()
    retry_backoff = True
    retry_backoff_max = 60
    retry_jitter = True
    max_retries = 5


class SweepTask(Task):
    """Base class of the periodic sweeps that beat sends (``ai_turns_sweep``, ``deadlines_sweep``,
    ``webhook_deliveries_sweep``): single-flight and never retried.

    A run first takes the sweep's lock (:func:`single_flight`); while another run of the same sweep
    holds it, this one does nothing and returns None. A failed run is not retried: the next beat
    tick is the retry, and beat's ``expires`` (``CELERY_BEAT_SCHEDULE``) drops a sweep message that
    waited longer than one interval. So an outage (broker, database, worker) never piles sweeps up.
    """

    acks_late = False
    max_retries = 0

    def __call__(self, *args, **kwargs):
        with single_flight(self.name) as acquired:
            if not acquired:
                logger.info("%s is already running elsewhere; skipped", self.name)
                return None
            return super().__call__(*args, **kwargs)


@contextmanager
def single_flight(name: str):
    """Hold the lock ``name`` for the block; yields True if this process got it, False if another
    holds it. On PostgreSQL a session advisory lock (``pg_try_advisory_lock``): it goes with the
    connection, so a killed worker cannot leave it behind. Other databases (SQLite, the embedded
    default, whose in-process scheduler already runs one sweep at a time): always True."""
    from django.db import DatabaseError, connection

    if connection.vendor != "postgresql":
        yield True
        return
    key = int.from_bytes(hashlib.sha256(f"okgin:{name}".encode()).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        acquired = cursor.fetchone()[0]
    try:
        yield acquired
    finally:
        if acquired:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
            except DatabaseError:
                connection.close()  # the session's locks end with it


def requeue_once(task: Task, *, key: str, within: float, **kwargs) -> bool:
    """Queue ``task`` with ``kwargs`` for a sweep, at most once per ``key`` every ``within`` seconds,
    with ``expires=within`` (a copy the worker did not start by then is dropped, and the next sweep
    queues a fresh one). Returns True if queued. Keeps a stalled worker's queue from filling with
    copies of the same lost work."""
    from django.core.cache import cache

    if not cache.add(f"okgin:requeued:{task.name}:{key}", 1, timeout=within):
        return False
    task.apply_async(kwargs=kwargs, expires=within)
    return True


def task_named(name: str) -> Task:
    """The registered task called ``name`` (e.g. ``"games.ai_turn_play"``).

    Task modules are found by Celery's autodiscovery (each installed app's ``tasks`` module, loaded
    on first use), so a caller names a task without importing its module: services never import
    task modules, tasks import services. Raises ``KeyError`` for a name no task module registers.
    """
    if name not in app.tasks:
        # One thread at a time: a web process's first requests, on several threads at once, each
        # found the tasks not registered yet while another was importing them (NotRegistered).
        with _task_import_lock:
            if name not in app.tasks:
                app.loader.import_default_modules()
    return app.tasks[name]


_task_import_lock = threading.Lock()


def enqueue_after_commit(task_name: str, /, countdown: float = 0.0, **kwargs) -> None:
    """Queue the task registered as ``task_name`` with keyword arguments ``kwargs`` once the current
    transaction commits (immediately when there is none), to run ``countdown`` seconds later.
    Nothing is sent if it rolls back.

    If the broker cannot be reached the error is logged (one warning per outage), not raised: the
    change is already committed, and the periodic sweeps (``games.tasks.ai_turns_sweep``,
    ``notifications.tasks.webhook_deliveries_sweep``) find the work in the database again once the
    broker is back. For ``OKGIN_REDIS_RETRY_SECONDS`` after a failure nothing is sent at all
    (``okgin_project.degraded.broker_breaker``), so requests do not wait on a dead broker. In eager
    mode (the embedded default) the task runs in-process right after commit. Raises ``KeyError``
    at once for an unknown ``task_name``.
    """
    from django.db import transaction

    task = task_named(task_name)
    transaction.on_commit(lambda: _send(task, kwargs, countdown))


def _send(task, kwargs: dict, countdown: float = 0.0) -> None:
    from kombu.exceptions import OperationalError as BrokerError

    from okgin_project.degraded import broker_breaker, redis_errors

    if task.app.conf.task_always_eager:  # no broker: the task runs here
        task.apply_async(kwargs=kwargs, countdown=countdown or None)
        return
    if broker_breaker.is_open():
        logger.debug("broker down: %s%r left to the sweep", task.name, kwargs)
        return
    try:
        task.apply_async(kwargs=kwargs, countdown=countdown or None)
    except (BrokerError, *redis_errors()) as exc:
        broker_breaker.failed(exc, f"queued work (first: {task.name}{kwargs!r}) is left to the sweeps")
    else:
        broker_breaker.succeeded()
