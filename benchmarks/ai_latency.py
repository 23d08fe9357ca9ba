"""AI reply latency with the real worker and broker (issue 4).

Measures, over N person turns (default 200) that hand the turn to the AI, the time from the
response to the person's action (POST /games/{id}/actions/) until the AI's reply is visible in the
game view (GET /games/{id}/ shows it is the person's turn again, or the match is over). Prints p50,
p95, mean and max in milliseconds, and which AI policy and time budget played. Target: p95 < 250 ms.

What runs: a scratch PostgreSQL database (``okgin_bench_latency``, dropped and re-created), the
API served by gunicorn (2 sync workers), one ``celery -A okgin_project worker`` (prefork,
concurrency 2) consuming a queue of its own on Redis database 13. The person plays a plain
strategy (knock when allowed, pass the upcard, draw from the stock, discard to the least deadwood)
against the AI level ``--level`` (default strong, with the policy's default time budget unless
``AI_TIME_BUDGET`` is set). The game view is polled every ``--poll-ms`` (default 2) with
If-None-Match, so a poll costs a 304.

    .venv/bin/python benchmarks/ai_latency.py [--turns 200] [--level strong]
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    rank = max(1, int(-(-q * len(ordered) // 100)))
    return ordered[rank - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--level", default="strong", choices=("random", "simple", "strong"))
    parser.add_argument("--poll-ms", type=float, default=2.0)
    parser.add_argument("--db", default="okgin_bench_latency")
    args = parser.parse_args()

    import psycopg
    import redis
    import requests

    pg = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
    base_redis = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    redis_url = urlunsplit((base_redis.scheme, base_redis.netloc, "/13", "", ""))
    queue = f"okgin-bench-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.test",
        "DATABASE_URL": f"{pg}/{args.db}",
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "LOG_LEVEL": "WARNING",
        # the service's time budget, not the test settings' iteration budget (unless asked for)
        "AI_ITERATIONS": os.environ.get("AI_ITERATIONS", "0"),
    }
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL",
                                           "CELERY_TASK_ALWAYS_EAGER", "CELERY_TASK_DEFAULT_QUEUE",
                                           "AI_ITERATIONS")})
    import django

    django.setup()
    from django.conf import settings

    from games.ai_play import ai_policy_describe
    from tests.e2e.client import Player, simple_choice

    port = _free_port()
    procs = []
    try:
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "okgin_project", "worker", "-l", "WARNING", "-Q", queue,
             "-n", f"{queue}@localhost", "--pool=prefork", "--concurrency=2", "--without-gossip",
             "--without-mingle"], cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL))
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "okgin_project.wsgi", "--bind", f"127.0.0.1:{port}",
             "--workers", "2", "--log-level", "warning"], cwd=ROOT, env=env, start_new_session=True))
        from okgin_project.celery import app

        deadline = time.monotonic() + 240  # the worker and the web server start slowly on a busy machine
        while not app.control.ping(destination=[f"{queue}@localhost"], timeout=0.5):
            if time.monotonic() > deadline:
                raise SystemExit("worker did not start")
        base = f"http://127.0.0.1:{port}"
        while True:
            try:
                requests.get(base + "/api/schema/", timeout=30)
                break
            except (requests.ConnectionError, requests.Timeout):  # not up yet, or slow on a busy machine
                if time.monotonic() > deadline:
                    raise SystemExit("web server did not start") from None
                time.sleep(0.1)

        me = Player(base, name=f"bench{uuid.uuid4().hex[:6]}")
        samples: list[float] = []
        matches = 0
        poll = args.poll_ms / 1000

        def wait_reply(gid: int) -> dict:
            etag = None
            while True:
                r = me.http.get(f"{me.base}/games/{gid}/", headers={"If-None-Match": etag} if etag else {},
                                timeout=30)
                if r.status_code == 200:
                    game = r.json()
                    etag = r.headers.get("ETag")
                    if game["status"] != "active" or game["is_your_turn"]:
                        return game
                time.sleep(poll)

        while len(samples) < args.turns:
            r = me.post("/games/new/", {"kind": "ai", "ai_level": args.level})
            assert r.status_code == 201, r.text
            matches += 1
            gid = r.json()["id"]
            game = wait_reply(gid)
            while game["status"] == "active" and len(samples) < args.turns:
                r = me.act(gid, game["version"], simple_choice(game["view"]))
                t0 = time.perf_counter()
                assert r.status_code == 200, r.text
                after = r.json()["game"]
                if after["status"] == "active" and not after["is_your_turn"]:
                    game = wait_reply(gid)
                    samples.append((time.perf_counter() - t0) * 1000)
                else:
                    game = after
        p50, p95 = _percentile(samples, 50), _percentile(samples, 95)
        budget = settings.OKGIN_AI_TIME_BUDGET
        print(f"AI policy: {ai_policy_describe(args.level)}"
              + ("" if budget is None else f" (AI_TIME_BUDGET={budget})"))
        print(f"turns measured: {len(samples)} in {matches} match(es); poll every {args.poll_ms} ms")
        print(f"latency action response -> AI reply visible: p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
              f"mean {statistics.mean(samples):.1f} ms, max {max(samples):.1f} ms "
              f"(target p95 < 250 ms: {'met' if p95 < 250 else 'NOT met'})")
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        redis.Redis.from_url(redis_url).delete(queue)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
