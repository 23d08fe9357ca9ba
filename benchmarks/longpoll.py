"""Long-polling clients and ongoing play on one server (issue 11).

Serves the API as deployed: gunicorn with ``okgin_project/gunicorn_conf.py`` (gthread, 2 workers
x 128 threads), production settings (pooled PostgreSQL connections), live updates through Redis
pub/sub. Players are paired in person-vs-person games; every player long-polls its event feed
(``GET /api/v1/events/?cursor=<next_cursor>&wait=30``) on its own thread and polls again at once after
each answer. A driver then plays actions (the player to act reads its view, chooses a plain
legal action and POSTs it) and measures

- the move's latency: the POST's round trip;
- the woken reply: from sending the POST until the opponent's waiting request has answered with
  the ``opponent_moved`` event of that action.

Two phases in the same run: the reference, with only the two players of one game waiting, then
``--clients`` (default 200) waiting. Prints p50 / p95 / max of both and the ratio to the reference.
Not a test: figures only (the machine is shared; see benchmarks/README.md for a measured run).

    .venv/bin/python benchmarks/longpoll.py [--clients 200] [--moves 200] [--port 20010]
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(1, int(-(-q * len(ordered) // 100)))
    return ordered[rank - 1]


def _summary(values: list[float]) -> str:
    return (f"p50 {_percentile(values, 50):7.1f} ms  p95 {_percentile(values, 95):7.1f} ms  "
            f"max {max(values):7.1f} ms  mean {statistics.mean(values):7.1f} ms  (n={len(values)})")


class Waiter:
    """One client long-polling its feed on a thread; reports each event to ``on_event``."""

    def __init__(self, base: str, access: str, player_id: int, on_event, counter):
        import requests

        self.http = requests.Session()
        self.http.headers["Authorization"] = "Bearer " + access
        self.base, self.player_id, self.on_event, self.counter = base, player_id, on_event, counter
        self.stop = threading.Event()
        self.errors = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        cursor = self.http.get(f"{self.base}/events/", params={"limit": 1}, timeout=10).json()["next_cursor"]
        while not self.stop.is_set():
            self.counter(+1)
            try:
                r = self.http.get(f"{self.base}/events/", params={"cursor": cursor, "wait": 30} if cursor else {"wait": 30}, timeout=40)
            except Exception:  # noqa: BLE001 - counted, the benchmark goes on
                self.errors += 1
                continue
            finally:
                self.counter(-1)
            now = time.perf_counter()
            if r.status_code != 200:
                self.errors += 1
                continue
            page = r.json()
            cursor = page["next_cursor"] or cursor
            for event in page["results"]:
                self.on_event(self.player_id, event, now)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200, help="waiting clients in the main phase (even)")
    parser.add_argument("--moves", type=int, default=200, help="actions measured per phase")
    parser.add_argument("--port", type=int, default=20010)
    parser.add_argument("--db", default="okgin_bench_longpoll")
    parser.add_argument("--workers", default="2")
    parser.add_argument("--threads", default="128")
    args = parser.parse_args()

    import psycopg
    import redis
    import requests

    pg = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
    base_redis = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    redis_url = urlunsplit((base_redis.scheme, base_redis.netloc, os.environ.get("BENCH_REDIS_DB", "/13"), "", ""))
    with psycopg.connect(pg + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.production",
        "SECRET_KEY": "bench-" + uuid.uuid4().hex * 2,
        "DATABASE_URL": f"{pg}/{args.db}",
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "1",  # person-vs-person play queues no task
        "THROTTLE_USER": "off", "THROTTLE_ANON": "off", "THROTTLE_AUTH": "off", "THROTTLE_ACTIONS": "off",
        "HOST": "127.0.0.1", "PORT": str(args.port), "LOG_FORMAT": "text",
        "WEB_CONCURRENCY": args.workers,
        "GUNICORN_THREADS": args.threads,
        "LOG_LEVEL": "WARNING",
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DATABASE_URL", "REDIS_URL",
                                           "CELERY_TASK_ALWAYS_EAGER")})
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from games import services as game_services
    from players.models import Player
    from players.tokens import token_pair_for
    from tests.e2e.client import simple_choice

    n = max(2, args.clients - args.clients % 2)
    users = []
    for i in range(n):  # accounts made directly (no password hashing: tokens are minted here)
        user = get_user_model().objects.create(username=f"lp{i}")
        user.set_unusable_password()
        user.save()
        Player.objects.create(user=user, name=f"lp{i}")
        users.append(user)
    players = [Player.objects.get(user=u) for u in users]
    games = []
    for i in range(0, n, 2):
        g = game_services.game_create(creator=players[i], kind="invite", opponent_name=players[i + 1].name)
        game_services.invitation_accept(game_id=g.pk, player=players[i + 1])
        games.append((g.pk, players[i], players[i + 1]))
    tokens = {p.pk: token_pair_for(u)["access"] for p, u in zip(players, users)}
    from django.db import connection

    connection.close()

    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "python:okgin_project.gunicorn_conf",
                               "okgin_project.wsgi", "--log-level", "warning"],
                              cwd=ROOT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{args.port}/api/v1"
    waiters: list[Waiter] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(f"{base}/me/", timeout=5)  # 401, cheap
                break
            except requests.RequestException:
                if time.monotonic() > deadline:
                    raise SystemExit("web server did not start") from None
                time.sleep(0.2)

        lock = threading.Lock()
        expected: dict[tuple[int, int, int], threading.Event] = {}  # (player, game, version) -> seen
        seen_at: dict[tuple[int, int, int], float] = {}
        waiting = [0, 10**9]  # now, minimum seen while measuring

        def counter(delta: int) -> None:
            with lock:
                waiting[0] += delta

        def on_event(player_id: int, event: dict, now: float) -> None:
            if event["kind"] != "opponent_moved":
                return
            key = (player_id, event["game_id"], event["data"]["version"])
            with lock:
                seen_at[key] = now
                flag = expected.get(key)
            if flag is not None:
                flag.set()

        sessions = {}

        def session(player_id: int):
            if player_id not in sessions:
                s = requests.Session()
                s.headers["Authorization"] = "Bearer " + tokens[player_id]
                sessions[player_id] = s
            return sessions[player_id]

        def start_waiters(count: int) -> None:
            for p in players[len(waiters):count]:
                w = Waiter(base, tokens[p.pk], p.pk, on_event, counter)
                waiters.append(w)
                w.thread.start()
            deadline = time.monotonic() + 60
            while True:
                with lock:
                    if waiting[0] >= count:
                        return
                if time.monotonic() > deadline:
                    raise SystemExit(f"only {waiting[0]} of {count} clients are waiting")
                time.sleep(0.05)

        def play(game_list, moves: int) -> tuple[list[float], list[float], int]:
            move_ms, woken_ms, lost = [], [], 0
            waiting[1] = 10**9
            for k in range(moves):
                gid, p0, p1 = game_list[k % len(game_list)]
                view = session(p0.pk).get(f"{base}/games/{gid}/", timeout=10).json()
                if view["status"] != "active":
                    continue
                mover, other = (p0, p1) if view["to_act"] == 0 else (p1, p0)
                if mover is not p0:
                    view = session(mover.pk).get(f"{base}/games/{gid}/", timeout=10).json()
                key = (other.pk, gid, view["version"] + 1)
                flag = threading.Event()
                with lock:
                    expected[key] = flag
                    waiting[1] = min(waiting[1], waiting[0])
                t0 = time.perf_counter()
                r = session(mover.pk).post(f"{base}/games/{gid}/actions/", timeout=10,
                                           json={"version": view["version"], "action": simple_choice(view["view"])})
                t1 = time.perf_counter()
                assert r.status_code == 200, r.text
                move_ms.append((t1 - t0) * 1000)
                if flag.wait(35):
                    woken_ms.append((seen_at[key] - t0) * 1000)
                else:
                    lost += 1
            return move_ms, woken_ms, lost

        start_waiters(2)
        ref_move, ref_woken, ref_lost = play(games[:1], args.moves)
        ref_min_waiting = waiting[1]
        start_waiters(n)
        move, woken, lost = play(games, args.moves)
        print(f"server: gunicorn gthread, {args.workers} workers x {args.threads} threads, production settings, "
              "live updates through Redis pub/sub")
        print(f"reference: 2 clients waiting (at least {ref_min_waiting} in flight at each move)")
        print(f"  move (POST action)          {_summary(ref_move)}")
        print(f"  woken reply (send -> event) {_summary(ref_woken)}  unanswered: {ref_lost}")
        print(f"{n} clients waiting (at least {waiting[1]} in flight at each move)")
        print(f"  move (POST action)          {_summary(move)}")
        print(f"  woken reply (send -> event) {_summary(woken)}  unanswered: {lost}")
        for name, a, b in (("move", ref_move, move), ("woken reply", ref_woken, woken)):
            print(f"ratio {n} waiting / reference, {name}: p50 x{_percentile(b, 50) / _percentile(a, 50):.2f}, "
                  f"p95 x{_percentile(b, 95) / _percentile(a, 95):.2f}")
        print(f"client errors: {sum(w.errors for w in waiters)}")
    finally:
        for w in waiters:
            w.stop.set()
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(server.pid, signal.SIGKILL)
        redis.Redis.from_url(redis_url).close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
