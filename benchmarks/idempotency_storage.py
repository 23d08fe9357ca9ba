"""Bytes of storage per action with an ``Idempotency-Key`` (issue 14): plays whole games against
the ``random`` AI through the API in-process, every action with a key, on a throw-away PostgreSQL
database, then prints the idempotency table's total size (heap, TOAST and indexes:
``pg_total_relation_size``) divided by the number of action records, and the average row size.

    .venv/bin/python benchmarks/idempotency_storage.py [--games 20] [--database-url postgres://...]

The database named in ``--database-url`` (default ``okgin_bench_idem`` on the local server) is
dropped and created again: never point it at a database you want to keep.
"""
from __future__ import annotations

import argparse
import os
import sys
import uuid
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent


def _recreate(url: str) -> None:
    import psycopg

    name = urlparse(url).path.lstrip("/")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="whole games against the random AI")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/okgin_bench_idem")
    args = parser.parse_args()
    _recreate(args.database_url)
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.test")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host, in-memory mail
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.test import APIClient

    from tests.helpers import register

    call_command("migrate", verbosity=0)
    client = register(APIClient(), "bench")
    actions = 0
    for _ in range(args.games):
        game = client.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json").json()
        while game["status"] == "active":
            legal = game["view"]["legal_actions"]
            choice = next((a for a in legal if a["type"] == "knock"), None) or \
                next((a for a in legal if a["type"] in ("pass", "draw_stock")), None) or legal[-1]
            r = client.post(f"/api/v1/games/{game['id']}/actions/", {"version": game["version"], "action": choice},
                            format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)
            assert r.status_code == 200, r.content
            actions += 1
            game = client.get(f"/api/v1/games/{game['id']}/").json()
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE games_idempotencyrecord")
        cur.execute("SELECT pg_total_relation_size('games_idempotencyrecord'), "
                    "pg_relation_size('games_idempotencyrecord'), "
                    "(SELECT count(*) FROM games_idempotencyrecord WHERE operation = 'action'), "
                    "(SELECT avg(pg_column_size(r.*)) FROM games_idempotencyrecord r WHERE operation = 'action')")
        total, heap, records, avg_row = cur.fetchone()
    print(f"games: {args.games}  actions with a key: {actions}  action records: {records}")
    print(f"idempotency table total (heap+TOAST+indexes): {total} bytes, heap {heap} bytes")
    print(f"bytes per action: {total / records:.0f} total, {float(avg_row):.0f} average row")


if __name__ == "__main__":
    main()
