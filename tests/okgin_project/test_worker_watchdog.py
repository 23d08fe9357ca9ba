"""okgin_project.worker_watchdog: a worker whose shutdown hangs after an unrecoverable error still
exits, so its supervisor (compose, systemd) restarts it (issue 14). A real worker process
(production settings, prefork pool with one child) over a redis-server of its own on a free port,
whose consumer fails at start and whose shutdown then hangs (``wedged_worker.py``)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from celery.worker import state

from okgin_project import worker_watchdog
from okgin_project.celery import app
from tests.faults.stack import AppProcess, checkout_process_env, own_redis_server
from tests.processes import wait_for

GRACE = 3  # seconds (WORKER_FAILED_STOP_SECONDS)


def _pids_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (the worker and its pool children)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


@pytest.fixture
def wedged_worker():
    workdir, server = own_redis_server("okgin-watchdog-")
    marker = "wedge-" + os.urandom(6).hex()
    env = checkout_process_env(server.url, "watchdog", WORKER_FAILED_STOP_SECONDS=str(GRACE))
    worker = AppProcess("worker", [sys.executable, "-m", "celery", "-A", "tests.okgin_project.wedged_worker",
                                   "worker", "-l", "INFO", "--concurrency", "1", "--without-mingle",
                                   "--without-gossip", "-n", f"{marker}@%h"], env, workdir)
    server.start()
    worker.start()
    try:
        yield worker, marker
    finally:
        for pid in _pids_with(marker):
            os.kill(pid, signal.SIGKILL)
        worker.stop()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def test_a_wedged_shutdown_after_an_unrecoverable_error_exits_with_its_pool(wedged_worker):
    worker, marker = wedged_worker
    wait_for(lambda: "the shutdown hangs now" in worker.log(), timeout=60,
             what=lambda: f"the worker's failure and hanging shutdown; log:\n{worker.log()[-3000:]}")
    hung_at = time.monotonic()
    assert "Unrecoverable error: RuntimeError('the consumer failed (wedged_worker)')" in worker.log()
    assert len(_pids_with(marker)) == 2  # the worker and its pool child, both alive while it hangs
    code = wait_for(lambda: worker.proc.poll(), timeout=GRACE + 30,
                    what=lambda: f"the worker's exit; log:\n{worker.log()[-3000:]}")
    assert code == 1  # Celery's exit code for an unrecoverable error (EX_FAILURE)
    assert time.monotonic() - hung_at < GRACE + 30
    records = [json.loads(line) for line in worker.log().splitlines() if line.startswith("{")]
    wedged = [r for r in records if r.get("event") == "worker_stop_wedged"]
    assert len(wedged) == 1 and wedged[0]["level"] == "CRITICAL" and wedged[0]["grace_seconds"] == GRACE
    wait_for(lambda: not _pids_with(marker), timeout=10, what="the pool child's end")


def test_the_grace_of_a_normal_stop_outlasts_every_task(settings, monkeypatch):
    """A warm shutdown (exit code 0 or None) waits for the longest hard time limit plus 30 s;
    after an unrecoverable error (a non-zero exit code) only WORKER_FAILED_STOP_SECONDS."""
    import games.tasks  # noqa: F401 - registered as a worker registers them at start
    import notifications.tasks  # noqa: F401

    settings.OKGIN_WORKER_FAILED_STOP_SECONDS, settings.OKGIN_WORKER_STOP_SECONDS = 7, 0
    longest = max(t.time_limit or app.conf.task_time_limit for t in app.tasks.values())
    assert longest == app.tasks["games.review_run"].time_limit == 660  # the longest: game review
    for exitcode in (None, 0):
        assert worker_watchdog.stop_grace_seconds(SimpleNamespace(app=app, exitcode=exitcode)) == 660 + 30
    assert worker_watchdog.stop_grace_seconds(SimpleNamespace(app=app, exitcode=1)) == 7
    settings.OKGIN_WORKER_STOP_SECONDS = 120
    assert worker_watchdog.stop_grace_seconds(SimpleNamespace(app=app, exitcode=0)) == 120
    # Ctrl-C: Celery's warm shutdown on SIGINT exits with 1, but a signal asked for it: the normal grace.
    monkeypatch.setattr(state, "should_stop", 1)
    assert worker_watchdog.stop_grace_seconds(SimpleNamespace(app=app, exitcode=1)) == 120


def test_the_watchdog_is_a_step_of_every_worker():
    assert "okgin_project.worker_watchdog:StopWatchdog" in {
        s if isinstance(s, str) else f"{s.__module__}:{s.__name__}" for s in app.steps["worker"]}


def test_a_worker_embedded_in_another_process_is_never_ended():
    """Only a worker process of Celery's command line is ended: a worker started inside another
    process (a test's, with celery.contrib.testing) stops without arming the timer, so the host
    process lives on after the grace."""
    worker = SimpleNamespace(app=app, exitcode=None, blueprint=SimpleNamespace(on_close=None))
    step = worker_watchdog.StopWatchdog(worker)
    worker.blueprint.on_close()  # what the blueprint calls when the shutdown begins
    step.stop(worker)
    assert step._timer is None
