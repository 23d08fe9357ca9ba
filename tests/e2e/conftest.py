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
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
from django.conf import settings

from tests.processes import ProcessGroup, wait_for  # noqa: F401 (wait_for: used by other tests)

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


class WorkerProcess(ProcessGroup):
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


@contextmanager
def _tasks_sent_to_worker(url: str):
    """While inside: this process sends its tasks to the e2e worker (broker ``url``, the e2e queue,
    not eager). The app's own configuration comes back afterwards, so tests outside the e2e ones
    (which run later in the same session) keep running tasks in-process."""
    from okgin_project.celery import app

    keys = ("broker_url", "result_backend", "task_always_eager", "task_default_queue")
    saved = {k: app.conf[k] for k in keys}

    def reconnect():  # forget connections and routing built from the previous configuration
        app._pool = None
        app.__dict__.pop("amqp", None)

    app.conf.update(broker_url=url, result_backend=url, task_always_eager=False, task_default_queue=E2E_QUEUE)
    reconnect()
    try:
        yield
    finally:
        app.conf.update(saved)
        reconnect()


@pytest.fixture(scope="session")
def fake_webpush():
    """The fake Web Push service (tests/notifications/fake_push.py) on loopback for the whole
    session, with a VAPID key: the worker is pointed at it by WEBPUSH_POST_URL."""
    from tests.notifications.fake_push import FakeWebPush, vapid_private_key_b64

    with FakeWebPush() as fake:
        fake.vapid_key = vapid_private_key_b64()
        yield fake


@pytest.fixture(scope="session")
def fake_fcm(tmp_path_factory):
    """The fake FCM (tests/notifications/fake_providers.py) for the whole session: the worker's
    firebase-admin is pointed at it by FCM_CREDENTIALS_FILE (token_uri) and FCM_ENDPOINT."""
    from tests.notifications.fake_providers import FakeFCM

    with FakeFCM() as fake:
        fake.credentials_path = fake.credentials_file(tmp_path_factory.mktemp("fcm"))
        yield fake


@pytest.fixture(scope="session")
def fake_apns(tmp_path_factory):
    """The fake APNs (HTTP/2 over TLS) for the whole session: the worker's aioapns is pointed at
    it by APNS_ENDPOINT and trusts its certificate through SSL_CERT_FILE."""
    from tests.notifications.fake_providers import FakeAPNs

    directory = tmp_path_factory.mktemp("apns")
    with FakeAPNs(directory) as fake:
        fake.key_path = fake.auth_key_file(directory)
        yield fake


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker, tmp_path_factory, fake_webpush, fake_fcm, fake_apns):
    """A real worker against the test database and the e2e Redis database, for the whole session.
    Yields the ``WorkerProcess`` (tests may kill and restart it); the ``e2e`` fixture makes this
    process send its tasks there (not eager) during each e2e test."""
    import redis
    from django.db import connection

    from okgin_project.celery import app

    url = e2e_redis_url()
    problem = _redis_ok(url)
    if problem:
        if REQUIRED:
            pytest.fail(f"Redis is required for the e2e tests (OKGIN_REQUIRE_SERVICES=1): {problem}")
        pytest.skip(f"Redis unreachable: {problem}")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV_"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.test",
        "DATABASE_URL": database_url_of(connection.settings_dict),
        "REDIS_URL": url,
        "LIVE_REDIS_URL": settings.OKGIN_LIVE_REDIS_URL,  # the worker wakes this process's long-polls
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_TASK_DEFAULT_QUEUE": E2E_QUEUE,
        "WEBHOOK_BACKOFF_SECONDS": "0.2",
        "WEBHOOK_ALLOW_PRIVATE": "1",  # the webhook test's receiver is on loopback,
        "WEBHOOK_PORTS": "any",  # on a port of its own
        "PYTHONUNBUFFERED": "1",
        "WEBPUSH_POST_URL": fake_webpush.base_url,  # the real library, pointed at the fake service
        "WEBPUSH_VAPID_PRIVATE_KEY": fake_webpush.vapid_key,
        "PUSH_BACKOFF_SECONDS": "0.2",
        "FCM_CREDENTIALS_FILE": str(fake_fcm.credentials_path),  # its token_uri: the fake's OAuth endpoint
        "FCM_ENDPOINT": fake_fcm.base_url,
        "APNS_AUTH_KEY_FILE": str(fake_apns.key_path),
        "APNS_AUTH_KEY_ID": fake_apns.key_id,
        "APNS_TEAM_ID": fake_apns.team_id,
        "APNS_TOPIC": fake_apns.topic,
        "APNS_ENDPOINT": fake_apns.endpoint,
        "SSL_CERT_FILE": str(fake_apns.ca_file),  # trust the fake's self-signed certificate
    })
    worker = WorkerProcess(app, env, tmp_path_factory.mktemp("celery") / "worker.log")
    try:
        with _tasks_sent_to_worker(url):  # the start-up ping goes through the e2e broker
            worker.start()
    except RuntimeError as exc:
        pytest.fail(f"{exc}\n{worker.log_tail()}")
    try:
        yield worker
    finally:
        worker.stop()
        redis.Redis.from_url(url).delete(E2E_QUEUE)


@pytest.fixture
def e2e(celery_worker, live_server):
    """A running worker (restarted if a test killed it) and the live server's base URL; during the
    test this process's tasks go to that worker."""
    with _tasks_sent_to_worker(e2e_redis_url()):
        if celery_worker.proc is None or celery_worker.proc.poll() is not None:
            celery_worker.start()
        yield live_server.url


def queue_length() -> int:
    import redis

    return redis.Redis.from_url(e2e_redis_url()).llen(E2E_QUEUE)
