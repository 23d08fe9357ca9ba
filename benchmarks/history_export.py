"""games.ndjson: time to stream a player's whole history, next to reading the same games one by one.

Creates a throw-away test database (``test_<name>`` of DATABASE_URL, PostgreSQL), a player with
``--games`` finished matches (each: dealt from a shuffle, ``--actions`` random legal actions, then a
resignation), then measures in-process through the WSGI stack (Django's test client, JWT auth):

- ``GET /api/v1/players/{name}/games.ndjson`` read to the end (time, lines, bytes, peak Python memory
  while streaming, tracemalloc);
- the reference: ``GET /api/v1/games/{id}/export/`` for each game, one after another.

Usage: DATABASE_URL=postgres://... .venv/bin/python benchmarks/history_export.py [--games 200] [--actions 12]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.test")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--actions", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        run(args)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run(args) -> None:
    from rest_framework.test import APIClient

    from games import engine, services
    from games.models import Game
    from players.services import player_register

    rng = random.Random(args.seed)
    ann = player_register(username="ann-bench", password="s3cret-pass-ann")
    ben = player_register(username="ben-bench", password="s3cret-pass-ben")
    t0 = time.perf_counter()
    for _ in range(args.games):
        game = services.game_create(creator=ann, kind="invite", opponent_name=ben.name)
        game = services.invitation_accept(game_id=game.pk, player=ben)
        for _ in range(args.actions):
            game = Game.objects.get(pk=game.pk)
            state = engine.MatchState.from_dict(game.state)
            if game.status != "active" or state.to_act is None:
                break
            action = rng.choice([a for a in engine.legal_actions(state) if a.type != "knock"])
            services.action_submit(game_id=game.pk, player=(ann, ben)[state.to_act], expected_version=game.version,
                                   action=action.to_dict())
        if Game.objects.get(pk=game.pk).status == "active":
            services.game_resign(game_id=game.pk, player=rng.choice((ann, ben)))
    setup_s = time.perf_counter() - t0
    client = APIClient()
    token = client.post("/api/v1/auth/token/", {"username": "ann-bench", "password": "s3cret-pass-ann"},
                        format="json").json()["access"]
    client.credentials(HTTP_AUTHORIZATION="Bearer " + token)

    tracemalloc.start()
    t0 = time.perf_counter()
    r = client.get("/api/v1/players/ann-bench/games.ndjson")
    size = lines = 0
    for chunk in r.streaming_content:
        size += len(chunk)
        lines += chunk.count(b"\n")
    stream_s = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    ids = list(Game.objects.filter(status="finished").order_by("-finished_at", "-id").values_list("pk", flat=True))
    t0 = time.perf_counter()
    ref_size = 0
    for gid in ids:
        ref_size += len(client.get(f"/api/v1/games/{gid}/export/").content)
    ref_s = time.perf_counter() - t0
    print(f"games: {args.games} finished ({setup_s:.1f} s to create), {lines} lines, {size / 1024:.0f} KiB")
    print(f"games.ndjson stream: {stream_s:.3f} s, peak Python memory while streaming {peak / 1024:.0f} KiB")
    print(f"reference, {len(ids)} x GET games/{{id}}/export/: {ref_s:.3f} s ({ref_size / 1024:.0f} KiB)")
    print(f"ratio stream / reference: {stream_s / ref_s:.2f}")


if __name__ == "__main__":
    main()
