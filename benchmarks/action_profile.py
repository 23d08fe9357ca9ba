"""Where an action POST and a game-view GET spend their time, in-process (issue 14).

Two players play person-vs-person games through the API with Django's test client (the whole
middleware, DRF, JWT authentication and JSON stack; no network, no AI task) on a throw-away
PostgreSQL database, every action with an ``Idempotency-Key``. Prints the CPU milliseconds per
action POST and per game-view GET (``time.process_time``: this process only, PostgreSQL's CPU not
counted), PostgreSQL's CPU and WAL bytes per action (its backend's CPU; the WAL of the whole
server, so run it alone), the action POST's wall-clock p50, the SQL statements of one action POST, and with ``--profile`` the functions with the most
CPU time under cProfile (``--sort cumulative`` or ``tottime``).

    .venv/bin/python benchmarks/action_profile.py [--actions 400] [--profile]
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=400, help="action POSTs measured (and as many GETs)")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions (CPU time)")
    parser.add_argument("--sort", default="cumulative", choices=("cumulative", "tottime"),
                        help="--profile's order: time under a function, or in its own code")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/okgin_bench_profile")
    args = parser.parse_args()
    import psycopg
    from load import _cpu_seconds  # benchmarks/load.py: CPU seconds of processes, from /proc

    name = args.database_url.rsplit("/", 1)[1]
    with psycopg.connect(args.database_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.test")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.test.utils import CaptureQueriesContext, setup_test_environment

    setup_test_environment()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.test import APIClient

    from tests.helpers import register

    settings.CELERY_TASK_ALWAYS_EAGER = True
    call_command("migrate", verbosity=0)
    alice, bob = register(APIClient(), "alice"), register(APIClient(), "bob")

    def new_game():
        gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
        bob.post(f"/api/v1/games/{gid}/accept/")
        return gid

    def mover(gid):
        view = alice.get(f"/api/v1/games/{gid}/").json()
        return alice if view["is_your_turn"] else bob

    gid, post_cpu, get_cpu, sample = new_game(), 0.0, 0.0, None
    profiler = cProfile.Profile(time.process_time) if args.profile else None
    client = mover(gid)
    view = client.get(f"/api/v1/games/{gid}/").json()
    done, post_walls = 0, []
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    meter = psycopg.connect(args.database_url, autocommit=True)  # the WAL position, outside Django's transactions
    wal0, pg_cpu0 = meter.execute("SELECT pg_current_wal_lsn()").fetchone()[0], _cpu_seconds([backend])
    while done < args.actions:
        legal = view["view"]["legal_actions"]
        action = next((a for a in legal if a["type"] == "knock"), None) or \
            next((a for a in legal if a["type"] in ("pass", "draw_stock")), None) or legal[-1]
        body = {"version": view["version"], "action": action}
        headers = {"HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex}
        capture = CaptureQueriesContext(connection) if sample is None and done >= 20 else None
        if capture is not None:
            capture.__enter__()
        if profiler:
            profiler.enable()
        t0, w0 = time.process_time(), time.perf_counter()
        r = client.post(f"/api/v1/games/{gid}/actions/", body, format="json", **headers)
        post_cpu += time.process_time() - t0
        post_walls.append(time.perf_counter() - w0)
        if profiler:
            profiler.disable()
        if capture is not None:
            capture.__exit__(None, None, None)
            sample = [q["sql"] for q in capture.captured_queries]
        assert r.status_code == 200, r.content
        done += 1
        game = r.json()["game"]
        if game["status"] != "active":
            gid = new_game()
        client = mover(gid) if game["status"] != "active" or not game["is_your_turn"] else client
        if profiler:
            profiler.enable()
        t0 = time.process_time()
        view = client.get(f"/api/v1/games/{gid}/").json()
        get_cpu += time.process_time() - t0
        if profiler:
            profiler.disable()
    pg_cpu = _cpu_seconds([backend]) - pg_cpu0
    wal = meter.execute("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), %s)", [wal0]).fetchone()[0]
    meter.close()
    print(f"{done} action POSTs: {post_cpu * 1000 / done:.2f} ms CPU each; "
          f"{done} game-view GETs: {get_cpu * 1000 / done:.2f} ms CPU each (this process)")
    print(f"PostgreSQL per action POST and game-view GET: {pg_cpu * 1000 / done:.2f} ms CPU (this connection's "
          f"backend), {float(wal) / done:,.0f} bytes of WAL (the whole server's: run it alone)")
    post_walls.sort()
    print(f"action POST wall-clock p50: {post_walls[len(post_walls) // 2] * 1000:.2f} ms (PostgreSQL on loopback)")
    print(f"SQL statements of one action POST: {len(sample)}")
    for sql in sample:
        print("   ", sql[:150])
    if profiler:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(45)


if __name__ == "__main__":
    main()
