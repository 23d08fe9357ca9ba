"""games/sweeps.py: the database lease and the in-process scheduler that runs the beat schedule
when there is no beat (embedded default). Two processes on one SQLite file never apply a timeout
twice, and only one of them sweeps."""
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from games import services, sweeps
from games.models import Game, SchedulerLease
from notifications.models import Event
from tests.games.factories import player_make

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_lease_is_held_by_one_owner_until_it_expires_or_is_released():
    now = timezone.now()
    assert sweeps.lease_acquire(name="beat", owner="a", seconds=30, now=now)
    assert not sweeps.lease_acquire(name="beat", owner="b", seconds=30, now=now)
    assert sweeps.lease_acquire(name="beat", owner="a", seconds=30, now=now + timedelta(seconds=10))  # renew
    assert not sweeps.lease_acquire(name="beat", owner="b", seconds=30, now=now + timedelta(seconds=39))
    assert sweeps.lease_acquire(name="beat", owner="b", seconds=30, now=now + timedelta(seconds=41))  # a died
    assert SchedulerLease.objects.get(name="beat").owner == "b"
    sweeps.lease_release(name="beat", owner="a")  # not a's any more: no effect
    assert SchedulerLease.objects.get(name="beat").owner == "b"
    sweeps.lease_release(name="beat", owner="b")
    assert sweeps.lease_acquire(name="beat", owner="a", seconds=30)


def test_the_scheduler_runs_exactly_the_beat_schedule(settings):
    assert sweeps.beat_jobs() == {e["task"]: float(e["schedule"]) for e in settings.CELERY_BEAT_SCHEDULE.values()}
    assert set(sweeps.beat_jobs()) == {"games.ai_turns_sweep", "games.deadlines_sweep",
                                       "games.idempotency_records_prune", "notifications.records_prune",
                                       "notifications.webhook_deliveries_sweep", "players.expired_tokens_flush",
                                       "notifications.push_deliveries_sweep"}


@pytest.mark.django_db(transaction=True)
def test_tick_applies_timeouts_only_in_the_lease_holder():
    p0, p1 = player_make(), player_make()
    game = services.game_create(creator=p0, kind="invite", opponent_name=p1.name, move_time_limit=60)
    game = services.invitation_accept(game_id=game.pk, player=p1)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    leader = sweeps.SweepScheduler(owner="leader")
    follower = sweeps.SweepScheduler(owner="follower")
    assert set(leader.tick()) == set(sweeps.beat_jobs())
    assert follower.tick() == []
    game.refresh_from_db()
    assert (game.status, game.end_reason) == ("finished", "timeout")
    assert leader.tick() == []  # intervals not passed yet
    assert Event.objects.filter(game=game, kind="timeout").count() == 2  # one per player, once


def test_scheduler_start_is_off_in_tests_and_without_the_setting(settings):
    settings.OKGIN_INPROCESS_SCHEDULER = False
    assert sweeps.scheduler_start_if_embedded() is None


def _env(db_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.local",
        "DATABASE_URL": f"sqlite:///{db_path}",
        "CELERY_TASK_ALWAYS_EAGER": "1",
        "INPROCESS_SCHEDULER": "1",
        "SWEEP_INTERVAL_SECONDS": "0.1",
        "DEBUG": "0",
        "PYTHONPATH": str(ROOT),
    })
    return env


def test_two_processes_on_sqlite_apply_each_timeout_once(tmp_path):
    script = str(Path(__file__).with_name("sweeps_sqlite.py"))
    env = _env(tmp_path / "db.sqlite3")
    (tmp_path / "barrier").mkdir()
    env["BARRIER_DIR"] = str(tmp_path / "barrier")
    setup = subprocess.run([sys.executable, script, "setup", "12"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=300)
    assert setup.returncode == 0, setup.stderr[-3000:]
    ids = json.loads(setup.stdout.strip().splitlines()[-1])
    procs = [subprocess.Popen([sys.executable, script, "serve"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert reports[0]["owner"] != reports[1]["owner"]
    assert [r["ran_any"] for r in reports].count(True) == 1  # one process swept, the other waited
    check = subprocess.run([sys.executable, script, "check"], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300)
    assert check.returncode == 0, check.stderr[-3000:]
    games = json.loads(check.stdout.strip().splitlines()[-1])
    assert sorted(int(k) for k in games) == sorted(ids)
    for game in games.values():
        assert game == {"status": "finished", "end_reason": "timeout", "timeout": 2, "match_over": 2}
