"""Sweeps are single-flight (a run while another holds the lock does nothing), never retried, and
expire (beat's ``expires``); work they queue again is queued once per key per window."""
import hashlib

import psycopg
import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from games import tasks
from notifications import tasks as notification_tasks
from players import tasks as player_tasks
from okgin_project.celery import SweepTask, requeue_once
from tests.games.factories import game_make

SWEEPS = [tasks.ai_turns_sweep, tasks.deadlines_sweep, tasks.idempotency_records_prune,
          notification_tasks.webhook_deliveries_sweep, notification_tasks.records_prune,
          notification_tasks.push_deliveries_sweep, player_tasks.expired_tokens_flush]


def _lock_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(f"okgin:{name}".encode()).digest()[:8], "big", signed=True)


@pytest.mark.django_db
@pytest.mark.parametrize("sweep", SWEEPS, ids=lambda t: t.name)
def test_a_sweep_does_nothing_while_another_run_holds_its_lock(sweep):
    params = connection.get_connection_params()
    other = psycopg.connect(host=params.get("host"), port=params.get("port"), user=params.get("user"),
                            password=params.get("password"), dbname=params["dbname"], autocommit=True)
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [_lock_key(sweep.name)])
        assert sweep() is None  # skipped
        other.execute("SELECT pg_advisory_unlock(%s)", [_lock_key(sweep.name)])
        assert sweep() is not None  # runs once the lock is free
    finally:
        other.close()


def test_sweeps_expire_and_are_never_retried():
    for sweep in SWEEPS:
        assert isinstance(sweep, SweepTask) and sweep.max_retries == 0
        assert not getattr(sweep, "autoretry_for", ())
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["options"]["expires"] == entry["schedule"]
    assert {e["task"] for e in settings.CELERY_BEAT_SCHEDULE.values()} == {s.name for s in SWEEPS}


@pytest.mark.django_db
def test_lost_work_is_queued_again_once_per_window():
    cache.clear()
    game = game_make()
    stale = {"game_id": game.pk, "expected_version": game.version + 5}  # a no-op when it runs
    assert requeue_once(tasks.ai_turn_play, key="g:v", within=30, **stale) is True
    assert requeue_once(tasks.ai_turn_play, key="g:v", within=30, **stale) is False
    assert requeue_once(tasks.ai_turn_play, key="g:v2", within=30, **stale) is True
    cache.clear()  # the window is over
    assert requeue_once(tasks.ai_turn_play, key="g:v", within=30, **stale) is True
