"""The embedded default (SQLite) under concurrent requests: registrations all succeed, eight
racing copies of one action give one 200 and seven 409 stale_version, eight retries with one
Idempotency-Key all get the same 200, and a write lock held past the busy timeout answers 503
``busy`` with Retry-After (never a 500 "database is locked")."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import assert_error

ROOT = Path(__file__).resolve().parents[2]


class _Answer:
    """A JSON answer the subprocess saw (status, body), as ``assert_error`` reads a response."""

    def __init__(self, status, body):
        self.status_code, self.text = status, json.dumps(body)
        self.headers = {"Content-Type": "application/json" if body is not None else "text/html"}


@pytest.mark.error_code("busy")
def test_concurrent_requests_on_sqlite(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.local",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "DEBUG": "0",
        "ALLOWED_HOSTS": "testserver",
        "PYTHONPATH": str(ROOT),
    })
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("sqlite_concurrency.py"))],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["register"] == [201] * 8
    assert sorted(report["race"]) == [200] + [409] * 7
    assert report["retry"] == [200] * 8 and report["retry_same_body"]
    status, body, retry_after = report["locked"]
    assert_error(_Answer(status, body), "busy")
    assert int(retry_after) >= 1
