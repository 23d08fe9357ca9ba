"""Celery beat (``okgin_project.heartbeat.HeartbeatScheduler``) while its broker is down: one warning
when the broker goes away and one when it is back, no traceback meanwhile, and the periodic tasks
sent again afterwards. A real beat process (production settings, sweeps due every second) over a
redis-server of its own on a free port (never the machine's Redis)."""
from __future__ import annotations

import json
import shutil
import sys
import time

import pytest
import redis

from tests.faults.stack import AppProcess, checkout_process_env, own_redis_server
from tests.processes import wait_for



def _records(log: str) -> list[dict]:
    """The JSON log records of ``log`` (production logging: one object a line), other lines as
    ``{"message": line}`` (a traceback printed outside the logging would be one)."""
    out = []
    for line in log.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            record = {"message": line}
        out.append(record if isinstance(record, dict) else {"message": line})
    return out


@pytest.fixture
def beat_over_own_redis():
    workdir, server = own_redis_server("okgin-beat-")
    env = checkout_process_env(server.url, "beat", SWEEP_INTERVAL_SECONDS="1")
    env.pop("CELERY_TASK_DEFAULT_QUEUE", None)
    beat = AppProcess("beat", [sys.executable, "-m", "celery", "-A", "okgin_project", "beat", "-l", "INFO",
                               "-s", str(workdir / "beat-schedule")], env, workdir)
    server.start()
    beat.start()
    try:
        yield server, beat
    finally:
        beat.stop()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _sent(log: str) -> int:
    return sum("Sending due task ai-turns-sweep" in r.get("message", "") for r in _records(log))


def test_beat_logs_one_warning_per_broker_outage(beat_over_own_redis):
    server, beat = beat_over_own_redis
    wait_for(lambda: _sent(beat.log()) >= 2, timeout=60, interval=0.2, what="beat sending sweeps\n" + beat.log())
    assert redis.Redis(port=server.port).llen("celery") >= 2  # the sweeps reached the queue

    server.stop()
    down_from = len(_records(beat.log()))
    time.sleep(12)  # a dozen sweeps due, at one-second intervals, and two retry windows of 5 s
    during = _records(beat.log())[down_from:]
    assert beat.alive(), beat.log()[-3000:]
    warnings = [r for r in during if "unreachable" in r.get("message", "")]
    assert len(warnings) == 1, during
    assert warnings[0]["level"] == "WARNING" and warnings[0]["logger"] == "okgin.degraded"
    assert warnings[0]["message"].startswith("broker unreachable")
    assert not [r for r in during if r.get("level") in ("ERROR", "CRITICAL") or "Traceback" in json.dumps(r)], json.dumps(during)[-3000:]
    assert len(during) <= 3, during  # the warning, at most the sends that met the outage: no line per second

    server.start()  # an empty Redis (no persistence)
    back_from = len(_records(beat.log()))
    wait_for(lambda: any("reachable again" in r.get("message", "") for r in _records(beat.log())[back_from:]),
             timeout=30, interval=0.2, what="beat to find the broker again\n" + beat.log()[-3000:])
    wait_for(lambda: redis.Redis(port=server.port).llen("celery") >= 2, timeout=30, interval=0.2,
             what="sweeps sent after the outage")
    after = _records(beat.log())[back_from:]
    assert sum("reachable again" in r.get("message", "") for r in after) == 1
    assert not [r for r in after if r.get("level") in ("ERROR", "CRITICAL") or "Traceback" in json.dumps(r)], after
    wait_for(lambda: redis.Redis(port=server.port).get("okgin:beat:last_tick"), timeout=30, interval=0.2,
             what="beat's heartbeat recorded again")
