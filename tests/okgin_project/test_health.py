"""/healthz answers without touching anything; /readyz names each part that is down (503) and is
200 only when PostgreSQL is migrated, the Redis broker answers and a worker answered recently.

Tests run tasks in-process; the tests of the broker parts turn that off (``broker_mode``). No
Celery worker listens on the test run's broker (tests/e2e/test_readyz.py has one), so the
``celery`` part is down here unless a recent answer is on record."""
import socket
import time

import pytest
from django.core.cache import cache

from okgin_project.health import WORKER_ANSWER_CACHE_KEY

pytestmark = pytest.mark.django_db


@pytest.fixture
def broker_mode(monkeypatch):
    """Tasks go through the broker (as in production) for this test."""
    from okgin_project.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", False)


@pytest.fixture(autouse=True)
def _no_recorded_answer():
    cache.delete(WORKER_ANSWER_CACHE_KEY)
    yield
    cache.delete(WORKER_ANSWER_CACHE_KEY)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed when the socket is: nothing listens there


def test_healthz_answers_with_no_query_and_for_any_host(client, django_assert_max_num_queries, settings):
    settings.ALLOWED_HOSTS = ["games.example.org"]
    with django_assert_max_num_queries(0):
        response = client.get("/healthz", HTTP_HOST="10.1.2.3:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response["Cache-Control"] == "no-store"


def test_readyz_without_a_worker_is_503_naming_only_celery(client, broker_mode):
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded" and body["down"] == ["celery"]
    assert list(body["checks"]) == ["database", "migrations", "redis", "celery"]
    for part in ("database", "migrations", "redis"):
        assert body["checks"][part]["status"] == "ok" and "error" not in body["checks"][part]
    assert body["checks"]["celery"]["status"] == "down"
    assert "Celery workers unavailable" in body["checks"]["celery"]["error"]


def test_readyz_counts_a_worker_that_answered_within_the_max_age(client, broker_mode, settings):
    settings.OKGIN_READYZ_WORKER_MAX_AGE = 30.0
    cache.set(WORKER_ANSWER_CACHE_KEY, time.time() - 10, timeout=None)
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "ready" and response.json()["down"] == []
    assert {p["status"] for p in response.json()["checks"].values()} == {"ok"}


def test_readyz_does_not_count_an_answer_older_than_the_max_age(client, broker_mode, settings):
    settings.OKGIN_READYZ_WORKER_MAX_AGE = 30.0
    cache.set(WORKER_ANSWER_CACHE_KEY, time.time() - 31, timeout=None)
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["down"] == ["celery"]


def test_readyz_names_redis_when_the_broker_is_unreachable(client, broker_mode, settings):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    cache.set(WORKER_ANSWER_CACHE_KEY, time.time(), timeout=None)  # the worker is not the question
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded" and body["down"] == ["redis"]
    assert "Unable to connect to Redis" in body["checks"]["redis"]["error"]
    assert body["checks"]["database"]["status"] == "ok"


def test_readyz_with_tasks_in_process_checks_only_the_database(client, settings):
    # The embedded default has no broker: an unreachable one must not make it unready.
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{_closed_port()}/0"
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "ready"
    assert list(response.json()["checks"]) == ["database", "migrations"]


def test_health_paths_only_answer_reads(client):
    response = client.post("/healthz")
    assert response.status_code == 404


@pytest.mark.parametrize(("down", "status", "code"), [
    ([], "ready", 200),
    (["redis"], "degraded", 503),
    (["celery"], "degraded", 503),
    (["redis", "celery"], "degraded", 503),
    (["database"], "not_ready", 503),
    (["migrations", "celery"], "not_ready", 503),
])
def test_readiness_is_degraded_only_when_the_broker_side_alone_is_down(down, status, code):
    from health_check.base import HealthCheckResult
    from health_check.exceptions import ServiceUnavailable

    from okgin_project.health import readiness_answer

    names = ["database", "migrations", "redis", "celery"]
    results = [HealthCheckResult(check=None, error=ServiceUnavailable("x") if name in down else None,
                                 time_taken=0.01) for name in names]
    answer_code, body = readiness_answer(names, results)
    assert (answer_code, body["status"], body["down"]) == (code, status, down)
    assert [body["checks"][n]["status"] for n in names] == ["down" if n in down else "ok" for n in names]
