"""End-to-end fixtures: the real thing. PostgreSQL (the test database ``test_okgin`` that
pytest-django creates), the Redis broker, and a real ``celery -A okgin_project worker`` process
started here against the same test database; tests reach the API over HTTP (``live_server``).

The worker uses its own Redis database (``OKGIN_E2E_REDIS_URL``, default: ``REDIS_URL`` with
database 14) and a queue named for this session (``E2E_QUEUE``), so no other worker (of another
test session running at the same time) can take its tasks. It is stopped (then killed)
at the end of the session, before the test database is dropped. Without Redis the e2e tests are
skipped, unless ``OKGIN_REQUIRE_SERVICES=1`` (CI), where a missing Redis or a worker that does not
start is a failure.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = os.environ.get("OKGIN_REQUIRE_SERVICES") == "1"
E2E_QUEUE = f"okgin-e2e-{os.getpid()}-{uuid.uuid4().hex[:6]}"


def e2e_redis_url() -> str:
    if os.environ.get("OKGIN_E2E_REDIS_URL"):
        return os.environ["OKGIN_E2E_REDIS_URL"]
    parts = urlsplit(settings.REDIS_URL)
    return urlunsplit((parts.scheme, parts.netloc, "/14", "", ""))


def database_url_of(db: dict) -> str:
    """A DATABASE_URL for django-environ pointing at ``db`` (a settings.DATABASES entry)."""
    user = quote(db.get("USER") or "postgres")
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


def wait_for(predicate, *, timeout: float = 20.0, interval: float = 0.02, what: str = "condition"):
    """Poll ``predicate`` until it returns a truthy value (returned); AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class WorkerProcess:
    """A ``celery worker`` subprocess in its own process group (so a kill takes its children too)."""

    def __init__(self, app, env: dict[str, str], log_path: Path):
        self.app = app
        self.env = env
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None
        self.hostname = ""

    def start(self, timeout: float = 40.0) -> None:
        self.hostname = f"e2e-{uuid.uuid4().hex[:8]}@localhost"
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "okgin_project", "worker", "-l", "INFO", "-n", self.hostname,
             "-Q", E2E_QUEUE, "--pool=prefork", "--concurrency=2", "--without-gossip", "--without-mingle"],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"celery worker exited with {self.proc.returncode}; see {self.log_path}")
            if self.app.control.ping(destination=[self.hostname], timeout=0.5):
                return
        self.stop()
        raise RuntimeError(f"celery worker did not answer a ping within {timeout}s; see {self.log_path}")

    def _signal(self, sig) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once (nothing is acknowledged or cleaned up)."""
        self._signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Warm shutdown, then SIGKILL if it takes more than 10 s."""
        self._signal(signal.SIGTERM)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def _redis_ok(url: str) -> str | None:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=3).ping()
        return None
    except redis.RedisError as exc:
        return str(exc)


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real worker against the test database and the e2e Redis database; this test process sends
    its tasks there too (not eager). Yields the ``WorkerProcess`` (tests may kill and restart it)."""
    import redis
    from django.db import connection

    from okgin_project.celery import app

    url = e2e_redis_url()
    problem = _redis_ok(url)
    if problem:
        if REQUIRED:
            pytest.fail(f"Redis is required for the e2e tests (OKGIN_REQUIRE_SERVICES=1): {problem}")
        pytest.skip(f"Redis unreachable: {problem}")
    keys = ("broker_url", "result_backend", "task_always_eager", "task_default_queue")
    saved = {k: app.conf[k] for k in keys}

    def reconnect():  # forget connections and routing built from the previous configuration
        app._pool = None
        app.__dict__.pop("amqp", None)

    app.conf.update(broker_url=url, result_backend=url, task_always_eager=False, task_default_queue=E2E_QUEUE)
    reconnect()

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.test",
        "DATABASE_URL": database_url_of(connection.settings_dict),
        "REDIS_URL": url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_TASK_DEFAULT_QUEUE": E2E_QUEUE,
        "WEBHOOK_BACKOFF_SECONDS": "0.2",
        "WEBHOOK_ALLOW_PRIVATE": "1",  # the webhook test's receiver is on loopback
        "PYTHONUNBUFFERED": "1",
    })
    worker = WorkerProcess(app, env, tmp_path_factory.mktemp("celery") / "worker.log")
    try:
        worker.start()
    except RuntimeError as exc:
        pytest.fail(f"{exc}\n{worker.log_tail()}")
    try:
        yield worker
    finally:
        worker.stop()
        redis.Redis.from_url(url).delete(E2E_QUEUE)
        app.conf.update(saved)
        reconnect()


@pytest.fixture
def e2e(celery_worker, live_server):
    """A running worker (restarted if a test killed it) and the live server's base URL."""
    if celery_worker.proc is None or celery_worker.proc.poll() is not None:
        celery_worker.start()
    return live_server.url


def queue_length() -> int:
    import redis

    return redis.Redis.from_url(e2e_redis_url()).llen(E2E_QUEUE)
