"""Fault tests: real processes (gunicorn, a Celery worker, beat, with production settings) over a
Redis and a PostgreSQL of their own, clients playing over HTTP, and the servers stopped under them:

- PostgreSQL stopped for 15 s;
- the worker SIGKILLed in the middle of an AI turn (three times);
- beat stopped while Redis loses every queued task, then started again;
- Redis stopped for 30 s, 20 times (``OKGIN_FAULTS_REDIS_CYCLES``, ``OKGIN_FAULTS_REDIS_DOWN_SECONDS``).

After each: every action the server accepted (200) is stored exactly once and in order, no other
move of the clients' seat exists, every AI turn was played (no game left waiting for the AI) and
exactly once (``verify_games`` replays every game: a doubled turn cannot replay), clients only ever
got 200, 201, 409 or 503 (503s with ``Retry-After``), and the worker never died on its own. In the
Redis outages one more, slower player has a webhook (a receiver on loopback,
``tests/notifications/receiver.py``) and a Web Push device (``tests/notifications/fake_push.py``,
the real library pointed at it): every one of its events reaches the receiver exactly once and
every push the device exactly once, those of events written while Redis was down included.

The processes run from the wheel installed in a throw-away virtualenv, with docker-compose.yml's
commands and the production settings (``tests/faults/stack.py``).

Slow (about 15 minutes, most of it the Redis outages). Skipped without redis-server or the
PostgreSQL server binaries, unless ``OKGIN_REQUIRE_SERVICES=1`` (CI), where that fails.
"""
from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections import Counter
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
import requests

from tests.faults.players import OK_STATUSES, AcceptingClient, PlayingClient, summary
from tests.faults.stack import Stack, missing_tools
from tests.notifications.fake_push import FakeWebPush, vapid_private_key_b64
from tests.notifications.receiver import Receiver
from tests.processes import wait_for

pytestmark = pytest.mark.faults

REQUIRED = os.environ.get("OKGIN_REQUIRE_SERVICES") == "1"
REDIS_CYCLES = int(os.environ.get("OKGIN_FAULTS_REDIS_CYCLES", "20"))
REDIS_DOWN_SECONDS = float(os.environ.get("OKGIN_FAULTS_REDIS_DOWN_SECONDS", "30"))
STUCK_AFTER_SECONDS = 3  # an AI turn due for longer than this (sweep: 1 s interval, 2 s age) is stuck


@pytest.fixture(scope="module")
def receiver():
    """The webhook receiver on loopback (always 200)."""
    with Receiver() as r:
        yield r


@pytest.fixture(scope="module")
def fake_webpush():
    """The fake Web Push service on loopback, with the VAPID key the stack signs with."""
    with FakeWebPush() as fake:
        fake.vapid_key = vapid_private_key_b64()
        yield fake


@pytest.fixture(scope="module")
def stack(fake_webpush):
    problem = missing_tools()
    if problem:
        if REQUIRED:
            pytest.fail(f"fault tests need their own servers (OKGIN_REQUIRE_SERVICES=1): {problem}")
        pytest.skip(problem)
    s = Stack({
        # webhooks to the loopback receiver, pushes to the fake Web Push service; quick retries
        "WEBHOOK_ALLOW_PRIVATE": "1", "WEBHOOK_PORTS": "any", "WEBHOOK_BACKOFF_SECONDS": "1",
        "WEBPUSH_POST_URL": fake_webpush.base_url, "WEBPUSH_VAPID_PRIVATE_KEY": fake_webpush.vapid_key,
        "PUSH_BACKOFF_SECONDS": "1",
        "SWEEP_INTERVAL_SECONDS": "1",
        "AI_SWEEP_AFTER_SECONDS": "2",
        "AI_TIME_BUDGET": "0.3",
        # rate limits on (counted in Redis, then in memory while it is down) but never reached
        "THROTTLE_ANON": "100000/min", "THROTTLE_USER": "100000/min",
        "THROTTLE_AUTH": "100000/min", "THROTTLE_ACTIONS": "100000/min",
    })
    try:
        s.start()
    except Exception:
        s.close()
        raise
    yield s
    s.close()
    shutil.rmtree(s.workdir, ignore_errors=True)


_names = iter(range(1, 1_000_000))


class Notified:
    """Two slower people playing each other (one game at a time, a pause after each action: the
    webhook stays under its per-destination rate; an AI makes no move while Redis is down, a person
    does), the first of whom has its events sent to ``receiver`` and its pushes to ``fake``;
    ``outages`` collects the ``(start, end)`` UTC times of each Redis outage."""

    def __init__(self, receiver: Receiver, fake: FakeWebPush):
        self.receiver, self.fake = receiver, fake
        self.outages: list[tuple[datetime, datetime]] = []
        self.token = f"faults-device-{os.getpid()}"

    def clients(self, stack: Stack, stop: threading.Event) -> list[PlayingClient]:
        other = AcceptingClient(stack.base, f"m{next(_names)}x{os.getpid()}", stop, seed=98, games=1, pause=3.0)
        self.player = PlayingClient(stack.base, f"n{next(_names)}x{os.getpid()}", stop, seed=99, games=1,
                                    pause=3.0, opponent=other.player)
        return [self.player, other]

    def register(self) -> None:
        """The webhook and the Web Push device of the player (once it is logged in)."""
        r = self.player.call("POST", "/webhooks/", {"url": self.receiver.url}, persist=True)
        assert r.status_code == 201, r.text
        self.secret = r.json()["secret"]
        sub = self.fake.subscribe(self.token)
        r = self.player.call("POST", "/devices/", {"platform": "webpush", "registration_id": self.token,
                                                   "keys": {"p256dh": sub.p256dh, "auth": sub.b64auth}}, persist=True)
        assert r.status_code == 201, r.text

    @staticmethod
    def pending_rows(conn, name: str) -> str:
        """The player's webhook deliveries and pushes not yet delivered, one line each (for a failure)."""
        lines = []
        for table in ("notifications_webhookdelivery", "notifications_pushdelivery"):
            rows = conn.execute(
                f"SELECT d.id, e.kind, d.status, d.attempts, d.created_at, d.next_attempt_at, d.lease_until, "
                f"d.last_error, now() FROM {table} d JOIN notifications_event e ON e.id = d.event_id "
                "JOIN players_player p ON p.id = e.player_id WHERE p.name = %s AND d.status <> 'delivered' "
                "ORDER BY d.id", [name]).fetchall()
            lines += [f"{table}: {row}" for row in rows]
        return "\n".join(lines)

    def check(self, stack: Stack) -> None:
        """Every event of the player reached the receiver once, every push the device once, and
        some of them were written during an outage."""
        name = self.player.player
        with stack.postgres.connect() as conn:
            def pending() -> int:
                return conn.execute(
                    "SELECT (SELECT count(*) FROM notifications_webhookdelivery d JOIN notifications_event e "
                    "ON e.id = d.event_id JOIN players_player p ON p.id = e.player_id "
                    "WHERE p.name = %s AND d.status = 'pending') + (SELECT count(*) FROM "
                    "notifications_pushdelivery d JOIN notifications_event e ON e.id = d.event_id JOIN "
                    "players_player p ON p.id = e.player_id WHERE p.name = %s AND d.status IN ('pending', 'held'))",
                    [name, name]).fetchone()[0]

            # Deliveries whose task was lost wait for their sweep (every SWEEP_INTERVAL_SECONDS, 30 s grace).
            try:
                wait_for(lambda: pending() == 0, timeout=240, interval=1, what="webhooks and pushes still pending")
            except AssertionError as exc:
                raise AssertionError(f"{exc}\n{self.pending_rows(conn, name)}\n{delivery_log(stack)}\n"
                                     f"{stack.logs()}") from None
            events = dict(conn.execute(
                "SELECT e.id, e.created_at FROM notifications_event e JOIN players_player p ON p.id = e.player_id "
                "WHERE p.name = %s", [name]).fetchall())
            pushed = [r[0] for r in conn.execute(
                "SELECT d.event_id FROM notifications_pushdelivery d JOIN notifications_event e ON e.id = d.event_id "
                "JOIN players_player p ON p.id = e.player_id WHERE p.name = %s AND d.status = 'delivered'",
                [name]).fetchall()]
            failed = conn.execute(
                "SELECT count(*) FROM notifications_webhookdelivery d JOIN notifications_event e ON e.id = d.event_id "
                "JOIN players_player p ON p.id = e.player_id WHERE p.name = %s AND d.status <> 'delivered'",
                [name]).fetchone()[0]
        assert events and failed == 0
        hooks = Counter(body["id"] for body in self.receiver.verified(self.secret))
        assert set(hooks) == set(events), (sorted(set(events) - set(hooks))[:20], sorted(set(hooks) - set(events))[:20])
        assert set(hooks.values()) == {1}, [k for k, v in hooks.items() if v > 1][:20]
        pushes = Counter(p["event_id"] for p in self.fake.payloads(self.token))
        assert pushes and self.fake.refused == [], self.fake.refused[:5]
        assert set(pushes) == set(pushed) and set(pushes.values()) == {1}, pushes
        during = {pk for pk, at in events.items() if any(start <= at <= end for start, end in self.outages)}
        assert during and during & set(pushes), "no event written during an outage"


def delivery_log(stack: Stack, last: int = 60) -> str:
    """The worker log's last ``last`` lines about delivery sweeps and deliveries (and dropped,
    expired or skipped tasks), for a failure message."""
    pattern = re.compile(r"deliveries_sweep|webhook_deliver|push_deliver|expired|[Rr]evoked|skipped|Discard")
    lines = [line for line in stack.worker.log().splitlines() if pattern.search(line)]
    return "--- worker: deliveries ---\n" + "\n".join(lines[-last:])


@contextmanager
def playing(stack: Stack, n: int, notified: Notified | None = None, **kwargs):
    """``n`` clients playing until the block ends (and ``notified``'s player); then the checks of
    the module docstring."""
    stop = threading.Event()
    clients = [PlayingClient(stack.base, f"p{next(_names)}x{os.getpid()}", stop, seed=i, **kwargs)
               for i in range(n)]
    if notified is not None:
        clients += notified.clients(stack, stop)
    for c in clients:
        c.login()
    if notified is not None:
        notified.register()
    for c in clients:
        c.start()
    try:
        yield clients
    finally:
        stop.set()
        for c in clients:
            c.join(timeout=120)
    check_all(stack, clients)
    if notified is not None:
        notified.check(stack)


def accepted_count(clients) -> int:
    return sum(len(moves) for c in clients for moves in c.accepted.values())


def stuck_ai_games(stack: Stack) -> int:
    """Active games where an AI has been due to act for more than ``STUCK_AFTER_SECONDS``."""
    with stack.postgres.connect() as conn:
        return conn.execute(
            "SELECT count(*) FROM games_game WHERE status = 'active' AND awaiting_ai "
            "AND turn_started_at < now() - make_interval(secs => %s)", [STUCK_AFTER_SECONDS]).fetchone()[0]


def check_all(stack: Stack, clients: list[PlayingClient]) -> None:
    statuses, errors = summary(clients)
    assert not errors, errors[:10]
    assert set(statuses) <= OK_STATUSES, statuses
    assert all(not c.is_alive() for c in clients), "a client did not stop"
    # Every AI turn is played once the clients stop: no game is left waiting for the AI.
    with stack.postgres.connect() as conn:
        wait_for(lambda: conn.execute("SELECT count(*) FROM games_game WHERE status = 'active' "
                                        "AND awaiting_ai").fetchone()[0] == 0,
                   timeout=90, interval=0.2, what=lambda: "the AI turns still due\n" + stack.logs())
        for c in clients:
            for gid, accepted in c.accepted.items():
                rows = conn.execute("SELECT seq, seat, action, auto_played FROM games_move WHERE game_id = %s "
                                    "ORDER BY seq", [gid]).fetchall()
                assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), (gid, "move numbers")
                # The client's stored moves are exactly its accepted actions, in order.
                mine = [action for _seq, seat, action, _auto in rows if seat == c.seat]
                assert mine == [action for _version, action in accepted], gid
                assert not any(auto for *_rest, auto in rows)
    verified = stack.verify_games()
    assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]
    assert re.search(r"verified \d+ game\(s\), 0 mismatch", verified.stdout), verified.stdout
    for proc in (stack.web, stack.worker, stack.beat):
        assert proc.alive(), f"{proc.name} died:\n{stack.logs()}"
    assert "Unrecoverable error" not in stack.worker.log(), stack.logs()


def test_postgres_stopped_for_15_seconds(stack):
    with playing(stack, 3) as clients:
        wait_for(lambda: accepted_count(clients) >= 10, timeout=60, what="play to start")
        stack.postgres.stop()
        time.sleep(15)
        stack.postgres.start()
        # The first request after the database is back succeeds (stale pooled connections are
        # checked and replaced, not handed out).
        probe = requests.get(f"{stack.base}/api/v1/games/", headers=clients[0].http.headers, timeout=30)
        assert probe.status_code == 200, probe.text
        before = accepted_count(clients)
        wait_for(lambda: accepted_count(clients) >= before + 10, timeout=90, what="play to resume")
    statuses, _ = summary(clients)
    assert statuses[503] > 0  # the outage was seen: retryable 503s, not 500s


_RECEIVED = re.compile(r"Task games\.ai_turn_play\[([0-9a-f-]+)\] received")
_DONE = re.compile(r"Task games\.ai_turn_play\[([0-9a-f-]+)\] (?:succeeded|raised|retry)")


def running_ai_turns(log: str) -> set[str]:
    """Ids of ``ai_turn_play`` tasks the worker log shows received and not finished."""
    return set(_RECEIVED.findall(log)) - set(_DONE.findall(log))


def test_worker_killed_mid_turn(stack):
    with playing(stack, 3, ai_level="strong") as clients:
        for _ in range(3):
            wait_for(lambda: running_ai_turns(stack.worker.log()), timeout=60, interval=0.01,
                       what="an AI turn in progress")
            stack.worker.kill()
            assert running_ai_turns(stack.worker.log()), "the kill came after the turn finished"
            stack.worker.start()
            wait_for(lambda: stack.worker.log().count("ready.") >= 1, timeout=60, interval=0.2, what="worker restart")
            before = accepted_count(clients)
            wait_for(lambda: accepted_count(clients) >= before + 5, timeout=90, what="play to resume")


def test_beat_stopped_and_restarted(stack):
    with playing(stack, 3) as clients:
        wait_for(lambda: accepted_count(clients) >= 10, timeout=60, what="play to start")
        stack.beat.stop()
        stack.redis.stop()  # every queued AI turn is lost with it
        time.sleep(2)
        stack.redis.start()
        # Without beat nothing finds the lost turns again...
        wait_for(lambda: stuck_ai_games(stack) > 0, timeout=30, interval=0.2, what="a lost AI turn")
        stack.beat.start()
        # ...and once it runs again, the sweep does.
        wait_for(lambda: stuck_ai_games(stack) == 0, timeout=60, interval=0.2, what="the sweep to re-queue lost AI turns")
        before = accepted_count(clients)
        wait_for(lambda: accepted_count(clients) >= before + 10, timeout=90, what="play to resume")


def test_redis_stopped_for_30_seconds_20_times(stack, receiver, fake_webpush):
    worker_pid = stack.worker.proc.pid
    accepted_while_down = 0
    notified = Notified(receiver, fake_webpush)
    with playing(stack, 4, notified) as clients:
        for cycle in range(REDIS_CYCLES):
            before = accepted_count(clients)
            wait_for(lambda: accepted_count(clients) >= before + 3, timeout=60,
                       what=lambda cycle=cycle: f"play before outage {cycle + 1}\n{stack.logs()}")
            stack.redis.stop()
            down_at = datetime.now(UTC)
            down_from = accepted_count(clients)
            time.sleep(REDIS_DOWN_SECONDS)
            accepted_while_down += accepted_count(clients) - down_from
            assert stack.worker.alive(), f"worker died during outage {cycle + 1}:\n{stack.logs()}"
            notified.outages.append((down_at, datetime.now(UTC)))
            stack.redis.start()
            # AI turns queued (and lost) meanwhile are played again with no manual step.
            wait_for(lambda: stuck_ai_games(stack) == 0, timeout=90, interval=0.5,
                       what=lambda cycle=cycle: f"AI turns after outage {cycle + 1}\n{stack.logs()}")
    assert accepted_while_down > 0  # actions were accepted while Redis was down
    assert stack.worker.proc.pid == worker_pid  # the same worker survived every outage
