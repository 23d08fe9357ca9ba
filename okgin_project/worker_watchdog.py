"""A worker whose shutdown wedges exits anyway, so its supervisor restarts it (issue 14).

Compose's ``restart: unless-stopped`` and systemd's ``Restart=always`` act when the worker process
exits. After an ``Unrecoverable error`` (the consumer died; ``okgin_project/worker_pool.py`` fixes
the one seen) Celery runs a warm shutdown, and that shutdown was seen to hang with the broker
connection half open (Celery's own ``WorkController._shutdown`` says "a silent broker can still
wedge a warm shutdown"): the process stayed alive, consumed nothing, and nothing restarted it.

``StopWatchdog`` is a worker bootstep. When the worker's shutdown begins (the blueprint's
``on_close``, before any step is closed or stopped, whatever the steps' order) it starts a timer on
a daemon thread; only in a worker process of Celery's command line (``celery.apps.worker.Worker``),
never in a worker embedded in another process. If the process is still alive when the timer runs
out, it kills the pool's child processes, logs ``worker_stop_wedged`` at CRITICAL (from another
thread, waiting at most 2 s: logging itself may be what is stuck) and leaves with ``os._exit`` (the worker's exit code, 1 when it had none), so the
supervisor restarts it. Tasks are acknowledged late (``CELERY_TASK_ACKS_LATE``), so the message
of a killed task is delivered again after the broker's visibility timeout, and the periodic sweeps
queue its work sooner (AI turns after ``AI_SWEEP_AFTER_SECONDS``); every task being safe to run
twice, it is played once.

The grace: ``OKGIN_WORKER_FAILED_STOP_SECONDS`` (30) after an unrecoverable error (the worker set
a non-zero exit code: there is nothing to wait for), else ``OKGIN_WORKER_STOP_SECONDS``; 0 (the
default) means the longest hard time limit of the registered tasks plus 30 seconds, so a normal
warm shutdown (SIGTERM) still lets every running task finish. Registered on the Celery app in
``okgin_project.celery``.
"""
from __future__ import annotations

import logging
import os
import signal
import threading

from celery import bootsteps

logger = logging.getLogger(__name__)

STOP_MARGIN_SECONDS = 30  # added to the longest task's hard time limit for a normal warm shutdown


def stop_grace_seconds(worker) -> float:
    """Seconds the shutdown of ``worker`` (a Celery ``WorkController``) may take before the watchdog
    ends the process: ``OKGIN_WORKER_FAILED_STOP_SECONDS`` when the worker is stopping with a
    non-zero exit code that no signal asked for (an unrecoverable error; Celery's warm shutdown on
    SIGINT exits with 1 too, and gets the normal grace), else ``OKGIN_WORKER_STOP_SECONDS`` or, when that
    is 0, the longest hard time limit (``time_limit``, else ``task_time_limit``) of the app's
    tasks plus ``STOP_MARGIN_SECONDS``."""
    from django.conf import settings

    from celery.worker import state

    signalled = state.should_stop is not None or state.should_terminate is not None  # SIGTERM, SIGINT, SIGQUIT
    if worker.exitcode and not signalled:
        return float(settings.OKGIN_WORKER_FAILED_STOP_SECONDS)
    if settings.OKGIN_WORKER_STOP_SECONDS:
        return float(settings.OKGIN_WORKER_STOP_SECONDS)
    app = worker.app
    limits = [task.time_limit or app.conf.task_time_limit or 0 for task in app.tasks.values()]
    return float(max(limits, default=0) + STOP_MARGIN_SECONDS)


class StopWatchdog(bootsteps.StartStopStep):
    """Worker bootstep: once the worker's shutdown begins, end the process if it is still alive
    ``stop_grace_seconds`` later (see the module docstring)."""

    label = "StopWatchdog"

    def __init__(self, worker, **kwargs):
        super().__init__(worker, **kwargs)
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        # Arm before any step is closed, whatever this step's place in the (hash-ordered) boot order.
        blueprint, closing = worker.blueprint, worker.blueprint.on_close

        def on_close():
            self.close(worker)
            if closing:
                closing()

        blueprint.on_close = on_close

    def start(self, worker) -> None:  # nothing runs until the shutdown
        pass

    def close(self, worker) -> None:
        """Called first when the worker's blueprint stops (warm or cold): arm the timer (once)."""
        from celery.apps.worker import Worker

        if not isinstance(worker, Worker):
            return  # a worker embedded in another process (tests): not ours to end
        with self._lock:
            if self._timer is not None:
                return
            grace = stop_grace_seconds(worker)
            self._timer = threading.Timer(grace, _wedged, args=(worker, grace))
            self._timer.daemon = True  # a shutdown that completes is not held up by it
            self._timer.start()

    stop = terminate = close  # (a shutdown that skipped close still arms it)

    def shutdown(self, worker) -> None:
        pass


def _wedged(worker, grace: float) -> None:
    """The timer ran out: log, kill the pool's children, leave (see the module docstring)."""
    children = _pool_children(worker)
    for pid in children:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    # Logging may be what wedged (a handler's lock held by a thread blocked on a full stdout):
    # log from another thread and leave after at most 2 s whatever it does.
    said = threading.Thread(target=_say, args=(grace, len(children)), daemon=True)
    said.start()
    said.join(2.0)
    os._exit(worker.exitcode or 1)


def _say(grace: float, children: int) -> None:
    logger.critical("worker_stop_wedged: the worker was still shutting down %.0f s after it began; "
                    "killed %d pool processes, exiting so the supervisor restarts it", grace, children,
                    extra={"event": "worker_stop_wedged", "grace_seconds": grace})
    for handler in logging.getLogger().handlers:
        try:
            handler.flush()
        except Exception:  # noqa: BLE001 - leaving regardless
            pass


def _pool_children(worker) -> list[int]:
    """The pids of ``worker``'s pool processes (prefork), or [] for a pool without any."""
    try:
        return [p.pid for p in worker.pool._pool._pool if p.pid]
    except AttributeError:
        return []
