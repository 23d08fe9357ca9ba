"""Beat's heartbeat in Redis and its command line check (the compose healthcheck of beat). A real
beat process ticking is checked by tests/deploy/test_production_smoke.py."""
import socket
import time
import uuid

import pytest
import redis
from django.conf import settings

from okgin_project import heartbeat


@pytest.fixture
def redis_url(monkeypatch):
    # A key of this test's own: the suite's parallel processes share the Redis database.
    monkeypatch.setattr(heartbeat, "BEAT_HEARTBEAT_KEY", f"{heartbeat.BEAT_HEARTBEAT_KEY}:test-{uuid.uuid4().hex}")
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield settings.REDIS_URL
    client.delete(heartbeat.BEAT_HEARTBEAT_KEY)


def test_no_heartbeat_fails(redis_url, capsys):
    assert heartbeat.seconds_since_beat_tick(redis_url) is None
    assert heartbeat.main(["--redis-url", redis_url]) == 1
    assert "no heartbeat" in capsys.readouterr().err


def test_a_recent_tick_passes_and_an_old_one_fails(redis_url, capsys):
    heartbeat.record_beat_tick(redis_url, at=time.time() - 20)
    assert 20 <= heartbeat.seconds_since_beat_tick(redis_url) < 80
    assert heartbeat.main(["--redis-url", redis_url, "--max-age", "60"]) == 0
    assert heartbeat.main(["--redis-url", redis_url, "--max-age", "10"]) == 1
    assert "more than 10 s" in capsys.readouterr().err
    ttl = redis.Redis.from_url(redis_url).ttl(heartbeat.BEAT_HEARTBEAT_KEY)
    assert 0 < ttl <= heartbeat.BEAT_HEARTBEAT_TTL_SECONDS


def test_unreachable_redis_fails(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert heartbeat.main(["--redis-url", f"redis://127.0.0.1:{port}/0"]) == 1
    assert "cannot read the heartbeat" in capsys.readouterr().err


def test_beat_uses_the_heartbeat_scheduler():
    from okgin_project.celery import app

    assert app.conf.beat_scheduler == "okgin_project.heartbeat:HeartbeatScheduler"
    assert app.conf.beat_max_loop_interval == 10
