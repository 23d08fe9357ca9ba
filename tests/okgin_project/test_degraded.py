"""Dependency outages degrade instead of failing: with the rate-limit cache on a Redis that does not
answer, requests are served and counted in process memory (with one warning); with the database
unreachable, requests answer 503 ``database_unavailable`` with Retry-After and write nothing, and
the first request after it is back succeeds. (Real connections to a closed port, not mocks; the
whole stack with outages of real servers: tests/faults/.)"""
import logging
import socket

import pytest
from django.db import connection

from games.models import Game
from okgin_project import degraded
from okgin_project.throttling import local_counts
from tests.helpers import assert_error


def closed_port() -> int:
    """A loopback TCP port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_cache_down(settings):
    settings.CACHES = {"default": {"BACKEND": "okgin_project.cache.RedisCache",
                                   "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
                                   "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}
    local_counts.clear()
    degraded.cache_breaker.succeeded()
    yield settings
    degraded.cache_breaker.succeeded()
    local_counts.clear()


@pytest.mark.django_db
def test_throttling_falls_back_to_a_local_count_when_redis_is_down(alice, redis_cache_down, caplog, throttle_clock):
    redis_cache_down.OKGIN_THROTTLE_RATES = {"user": "3/min"}
    with caplog.at_level(logging.WARNING, logger="okgin.degraded"):
        codes = [alice.get("/api/v1/games/").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]  # served, and still limited (per process)
    warnings = [r for r in caplog.records if r.name == "okgin.degraded"]
    assert len(warnings) == 1 and "cache unreachable" in warnings[0].getMessage()
    assert degraded.degraded_parts() == ["cache"]


@pytest.mark.django_db
def test_game_creation_and_actions_work_while_the_cache_is_down(alice, redis_cache_down):
    redis_cache_down.OKGIN_THROTTLE_RATES = {"user": "100/min", "actions": "100/min"}
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "first_dealer": 1}, format="json")
    assert r.status_code == 201, r.content
    game = r.json()
    action = game["view"]["legal_actions"][0]
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", {"version": game["version"], "action": action},
                   format="json")
    assert r.status_code == 200, r.content
    assert r.json()["game"]["version"] > game["version"]


@pytest.mark.error_code("database_unavailable")
@pytest.mark.django_db(transaction=True)
def test_an_unreachable_database_answers_503_and_the_next_request_succeeds(alice):
    port = connection.settings_dict["PORT"]
    games_before = Game.objects.count()
    connection.close()
    connection.settings_dict["PORT"] = closed_port()
    try:
        read = alice.get("/api/v1/games/")
        write = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json")
    finally:
        connection.close()
        connection.settings_dict["PORT"] = port
    for r in (read, write):
        assert_error(r, "database_unavailable")
        assert r["Retry-After"] == "3"
    assert Game.objects.count() == games_before  # nothing written
    assert alice.get("/api/v1/games/").status_code == 200


def test_the_breaker_reopens_redis_after_the_retry_window(settings):
    breaker = degraded.Breaker("test")
    settings.OKGIN_REDIS_RETRY_SECONDS = 0.0
    breaker.failed(OSError("refused"), "fallback")
    assert not breaker.is_open()  # window of 0 s: the next call tries Redis again
    settings.OKGIN_REDIS_RETRY_SECONDS = 60.0
    assert breaker.is_open()
    breaker.succeeded()
    assert not breaker.is_open()
