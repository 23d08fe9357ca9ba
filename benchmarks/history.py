"""GET /api/v1/games/: page time over a short and a long history (issue 14, indexed history).

Creates a throw-away test database (``test_<name>`` of DATABASE_URL, PostgreSQL) with two players,
one with ``--small`` finished games (default 300) and one with ``--large`` (default 3,000), half of
each history in each seat, against several opponents, created a minute apart. Then, for each player
and each ordering position (first page, middle page, last page, reached through cursors), times
``--repeat`` requests of a ``--limit``-game page in-process through the WSGI stack (Django's test
client, JWT auth) and prints the median milliseconds, and the same pages through the plain query
before this change (the seats' OR, ``parts=()``: the database reads and sorts the whole history)
as the reference; and the PostgreSQL buffers (8 KiB blocks) each page's queries touch, a figure the
shared machine's load does not blur. Prints the ratio large/small of each (target: about 1 for the
indexed list) and EXPLAIN ANALYZE of the first and the middle page's queries for the large history.

Usage: DATABASE_URL=postgres://... .venv/bin/python benchmarks/history.py [--small 300] [--large 3000]
       [--limit 20] [--repeat 30]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.test")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402

POSITIONS = ("first", "middle", "last")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", type=int, default=300)
    parser.add_argument("--large", type=int, default=3000)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        run(args)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def _history(player, opponents, n: int, state: dict, rules: dict) -> None:
    """``n`` finished games of ``player`` (odd ones in seat 0), each with a real match's ``state``."""
    from django.utils import timezone

    from games.models import Game

    start = timezone.now() - timedelta(days=30)
    games = Game.objects.bulk_create(
        Game(kind="invite", status="finished", player0=player if i % 2 else opponents[i % len(opponents)],
             player1=opponents[i % len(opponents)] if i % 2 else player, rules=rules, variant="oklahoma",
             state=state, move_count=40, version=42, round_number=2,
             winner_seat=i % 2, end_reason="resigned", finished_at=start, score0=100 * (i % 2),
             score1=100 * (1 - i % 2))
        for i in range(n))
    for i, game in enumerate(games):
        game.created_at = game.updated_at = start + timedelta(minutes=i)
    Game.objects.bulk_update(games, ["created_at", "updated_at"], batch_size=1000)


def _played_state(p0, p1) -> tuple[dict, dict]:
    """The stored state and rules of a real match after 40 random legal actions (the rows of the
    histories carry it, so they are as wide as real ones: the state is several KiB of JSON)."""
    import random

    from games import engine, services
    from games.models import Game

    rng = random.Random(1)
    game = services.invitation_accept(game_id=services.game_create(creator=p0, kind="invite",
                                                                   opponent_name=p1.name).pk, player=p1)
    for _ in range(40):
        game = Game.objects.get(pk=game.pk)
        state = engine.MatchState.from_dict(game.state)
        if game.status != "active" or state.to_act is None:
            break
        action = rng.choice([a for a in engine.legal_actions(state) if a.type != "knock"])
        services.action_submit(game_id=game.pk, player=(p0, p1)[state.to_act], expected_version=game.version,
                               action=action.to_dict())
    game = Game.objects.get(pk=game.pk)
    services.game_resign(game_id=game.pk, player=p0)
    return game.state, game.rules


def _client(name: str):
    from rest_framework.test import APIClient

    client = APIClient()
    token = client.post("/api/v1/auth/token/", {"username": name, "password": "s3cret-pass-" + name},
                        format="json").json()["access"]
    client.credentials(HTTP_AUTHORIZATION="Bearer " + token)
    return client


def _cursors(client, n: int, limit: int) -> dict[str, str | None]:
    """The cursor of the first, the middle and the last page of ``limit`` (walking with pages of 100)."""
    pages, position = [client.get("/api/v1/games/", {"limit": 100}).json()], 100
    while position + 100 < n // 2:
        pages.append(client.get("/api/v1/games/", {"limit": 100, "cursor": pages[-1]["next_cursor"]}).json())
        position += 100
    middle = pages[-1]["next_cursor"]
    while position + 100 < n - limit:
        pages.append(client.get("/api/v1/games/", {"limit": 100, "cursor": pages[-1]["next_cursor"]}).json())
        position += 100
    last = pages[-1]
    while position < n - limit:
        last = client.get("/api/v1/games/", {"limit": limit, "cursor": last["next_cursor"]}).json()
        position += len(last["results"])
    return {"first": None, "middle": middle, "last": last["next_cursor"]}


def _time(fn, repeat: int) -> float:
    """Median milliseconds of ``repeat`` calls of ``fn`` (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _blocks(fn) -> int:
    """Shared buffers (8 KiB blocks, hit or read) touched by the queries on games_game that ``fn`` runs."""
    import json

    with CaptureQueriesContext(connection) as queries:
        fn()
    total = 0
    for query in queries.captured_queries:
        if '"games_game"' in query["sql"]:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query["sql"])
                plan = cursor.fetchone()[0]
            plan = (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]
            total += plan["Shared Hit Blocks"] + plan["Shared Read Blocks"]
    return total


def run(args) -> None:
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from games import selectors
    from games.views import GAMES_PAGES
    from players.services import player_register

    small = player_register(username="sam", password="s3cret-pass-sam")
    large = player_register(username="lea", password="s3cret-pass-lea")
    opponents = [player_register(username=f"opp{i}", password="s3cret-pass-opp") for i in range(5)]
    t0 = time.perf_counter()
    state, rules = _played_state(opponents[0], opponents[1])
    _history(small, opponents, args.small, state, rules)
    _history(large, opponents, args.large, state, rules)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"histories: {small.name} {args.small} games, {large.name} {args.large} games "
          f"(+ the opponents' seats; {time.perf_counter() - t0:.1f} s to create); pages of {args.limit}, "
          f"median of {args.repeat} requests")
    factory = APIRequestFactory()
    figures = {}
    for player, n in ((small, args.small), (large, args.large)):
        client = _client(player.name)
        cursors = _cursors(client, n, args.limit)
        for where, cursor in cursors.items():
            params = {"limit": args.limit, **({"cursor": cursor} if cursor else {})}
            r = client.get("/api/v1/games/", params)
            assert r.status_code == 200 and len(r.json()["results"]) == args.limit, r.content
            api = _time(lambda client=client, params=params: client.get("/api/v1/games/", params), args.repeat)

            def plain(params=params, player=player):  # the list as it was queried before: the seats' OR, one query
                request = Request(factory.get("/api/v1/games/", params))
                GAMES_PAGES.paginate(request, selectors.game_list_for_player(player=player))

            def indexed(params=params, player=player):
                request = Request(factory.get("/api/v1/games/", params))
                GAMES_PAGES.paginate(request, selectors.game_list_for_player(player=player),
                                     parts=selectors.game_seats(player=player))

            figures[n, where] = (api, _time(indexed, args.repeat), _time(plain, args.repeat),
                                 _blocks(indexed), _blocks(plain))

    print()
    print("| history | page | GET /games/ ms | paginator by seat: ms, blocks | seats' OR (before): ms, blocks |")
    print("| --- | --- | --- | --- | --- |")
    for n in (args.small, args.large):
        for where in POSITIONS:
            api, indexed, plain, indexed_blocks, plain_blocks = figures[n, where]
            print(f"| {n} | {where} | {api:.2f} | {indexed:.2f}, {indexed_blocks} | {plain:.2f}, {plain_blocks} |")
    for where in POSITIONS:
        r = [figures[args.large, where][i] / figures[args.small, where][i] for i in range(5)]
        print(f"| ratio {args.large}/{args.small} | {where} | {r[0]:.2f} | {r[1]:.2f}, {r[3]:.2f} | {r[2]:.2f}, {r[4]:.2f} |")
    print("(blocks: PostgreSQL buffers the page's queries on games_game touched, EXPLAIN (ANALYZE, BUFFERS); "
          "independent of the machine's load)")

    client = _client(large.name)
    cursors = _cursors(client, args.large, args.limit)
    for where in ("first", "middle"):
        with CaptureQueriesContext(connection) as queries:
            client.get("/api/v1/games/", {"limit": args.limit, **({"cursor": cursors[where]} if cursors[where] else {})})
        print(f"\nEXPLAIN (ANALYZE, BUFFERS) of the {where} page's queries on games_game ({large.name}, "
              f"{args.large} games):")
        for query in queries.captured_queries:
            if '"games_game"' not in query["sql"]:
                continue
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) " + query["sql"])
                print("\n" + query["sql"][:160] + " ...")
                for (line,) in cursor.fetchall():
                    print("    " + line)

if __name__ == "__main__":
    main()
