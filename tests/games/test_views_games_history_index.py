"""The games list pages a player's history one seat at a time (``games.selectors.game_seats``,
``KeysetPaginator.paginate(parts=...)``): the same pages as the plain order of every game the
player holds a seat in, for every ordering and filter, in both directions; and on PostgreSQL each
query of a page reads about one page of rows from the seat indexes, however long the history."""
import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.models import Game
from players.models import Player
from tests.helpers import run_on_embedded_sqlite

ROOT = Path(__file__).resolve().parents[2]
ORDERINGS = ["-created_at", "created_at", "-updated_at", "updated_at"]


def _walk(client, limit, **params):
    """Ids of every page from the first (following next_cursor), then of every page back from the
    last (following prev_cursor), and the has_prev/has_more flags on the way."""
    pages = [client.get("/api/v1/games/", {"limit": limit, **params}).json()]
    while pages[-1]["has_more"]:
        pages.append(client.get("/api/v1/games/", {"limit": limit, "cursor": pages[-1]["next_cursor"],
                                                   **params}).json())
    back, page = [], pages[-1]
    while page["has_prev"]:
        page = client.get("/api/v1/games/", {"limit": limit, "cursor": page["prev_cursor"], **params}).json()
        back.insert(0, [g["id"] for g in page["results"]])
    forward = [[g["id"] for g in p["results"]] for p in pages]
    return forward, back, [p["has_prev"] for p in pages]


def _history(alice, bob, carl):
    """Alice's games in both seats: invited by bob and carl, inviting them, some accepted, some
    finished (alice lost game 0 and won game 10); three of them share one creation and update instant (the id breaks the tie)."""
    people = {p.name: p for p in Player.objects.filter(name__in=("alice", "bob", "carl"))}
    ids = []
    for i in range(12):
        other = people["bob" if i % 3 else "carl"]
        creator, invited = (people["alice"], other) if i % 2 else (other, people["alice"])
        game = services.game_create(creator=creator, kind="invite", opponent_name=invited.name,
                                    rules={"variant": "classic"} if i % 4 == 0 else None)
        if i % 3 != 2:
            services.invitation_accept(game_id=game.pk, player=invited)
        if i in (0, 10):  # alice resigns the first, bob the other
            services.game_resign(game_id=game.pk, player=people["alice"] if i == 0 else other)
        ids.append(game.pk)
    services.game_create(creator=people["bob"], kind="invite", opponent_name="carl")  # not alice's
    same = Game.objects.get(pk=ids[3])
    Game.objects.filter(pk__in=ids[3:6]).update(created_at=same.created_at, updated_at=same.updated_at)
    return ids


def _expected(ordering, keep):
    alice = Player.objects.get(name="alice")
    games = [g for g in Game.objects.select_related("player0", "player1").order_by("pk")
             if alice.pk in (g.player0_id, g.player1_id) and keep(g, alice)]
    field = ordering.lstrip("-")
    return [g.pk for g in sorted(games, key=lambda g: (getattr(g, field), g.pk), reverse=ordering[0] == "-")]


def _won(g, me):
    return g.status == "finished" and g.winner_seat is not None and g.player_at(g.winner_seat).pk == me.pk


FILTERS = {
    "": lambda g, me: True,
    "status=active": lambda g, me: g.status == "active",
    "status=invited": lambda g, me: g.status == "invited",
    "opponent=carl": lambda g, me: "carl" in (g.player0.name, g.player1.name if g.player1 else None),
    "variant=classic": lambda g, me: g.variant == "classic",
    "result=won": _won,
    "result=lost": lambda g, me: g.status == "finished" and g.winner_seat is not None and not _won(g, me),
    "my_turn=true": lambda g, me: g.status == "active" and g.player_at(g.to_act_seat).pk == me.pk,
    "my_turn=false": lambda g, me: not (g.status == "active" and g.player_at(g.to_act_seat).pk == me.pk),
}


@pytest.mark.django_db
@pytest.mark.parametrize("ordering", ORDERINGS)
def test_pages_by_seat_are_the_plain_order_of_every_filter(alice, bob, anon, ordering):
    from tests.helpers import register

    _history(alice, bob, register(anon, "carl"))
    assert Game.objects.filter(player0__name="alice").count() == 6
    assert Game.objects.filter(player1__name="alice").count() == 6
    for query, keep in FILTERS.items():
        params = dict([query.split("=")]) if query else {}
        expected = _expected(ordering, keep)
        assert expected or query.startswith("my_turn"), query  # who acts first is random (R3.1)
        forward, back, has_prev = _walk(alice, 2, ordering=ordering, **params)
        assert [pk for page in forward for pk in page] == expected, query
        assert all(len(page) == 2 for page in forward[:-1]) and len(forward[-1]) == len(expected) - 2 * (len(forward) - 1)
        assert back == forward[:-1], query
        assert has_prev == [False] + [True] * (len(forward) - 1), query


def _scans(plan):
    """Every scan node of an EXPLAIN (ANALYZE, FORMAT JSON) plan tree."""
    if "Scan" in plan["Node Type"]:
        yield plan
    for child in plan.get("Plans", []):
        yield from _scans(child)


@pytest.mark.django_db
@pytest.mark.parametrize("ordering", ORDERINGS)
def test_a_page_reads_one_page_of_each_seat_index(alice, bob, ordering):
    """3,000 games of alice's (half in each seat): the first, a middle and the last page each read
    at most ``limit + 1`` rows of each seat's index, not the history (EXPLAIN ANALYZE row counts of
    the queries the page ran, on the planner's own choice with fresh statistics)."""
    me, other = Player.objects.get(name="alice"), Player.objects.get(name="bob")
    start = timezone.now() - timedelta(days=30)
    Game.objects.bulk_create(
        Game(kind="invite", status="finished", player0=(me, other)[i % 2], player1=(other, me)[i % 2], rules={},
             variant="oklahoma", winner_seat=i % 2, finished_at=start, end_reason="resigned")
        for i in range(3000))
    with connection.cursor() as cursor:  # spread the times (auto_now fields were set at insert)
        cursor.execute("UPDATE games_game SET created_at = %s + id * interval '1 minute', "
                       "updated_at = %s + mod(id, 97) * interval '1 hour' + id * interval '1 second'", [start, start])
        cursor.execute("ANALYZE games_game")
    pages = [alice.get("/api/v1/games/", {"limit": 100, "ordering": ordering}).json()]  # cursors to measure from
    for _ in range(29):
        pages.append(alice.get("/api/v1/games/", {"limit": 100, "ordering": ordering,
                                                  "cursor": pages[-1]["next_cursor"]}).json())
    assert not pages[-1]["has_more"] and sum(len(p["results"]) for p in pages) == 3000
    limit = 20
    last = pages[-2]
    for _ in range(4):  # to the last page of 20
        last = alice.get("/api/v1/games/", {"limit": limit, "ordering": ordering, "cursor": last["next_cursor"]}).json()
    cursor_for = {"first": None, "middle": pages[14]["next_cursor"], "last": last["next_cursor"],
                  "back": pages[20]["prev_cursor"]}
    for where, cursor in cursor_for.items():
        params = {"limit": limit, "ordering": ordering, **({"cursor": cursor} if cursor else {})}
        with CaptureQueriesContext(connection) as queries:
            r = alice.get("/api/v1/games/", params)
        assert r.status_code == 200 and len(r.json()["results"]) == limit
        listing = [q["sql"] for q in queries.captured_queries if '"games_game"' in q["sql"]]
        assert any(" UNION ALL " in sql for sql in listing), where
        for sql in listing:
            with connection.cursor() as c:
                c.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
                plan = c.fetchone()[0]
                plan = (json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"]
            for scan in _scans(plan):
                if scan.get("Relation Name") == "games_game":
                    read = scan["Actual Rows"] * scan["Actual Loops"] + scan.get("Rows Removed by Filter", 0)
                    assert read <= limit + 2, (where, sql, scan["Node Type"], scan.get("Index Name"), read)
                    assert scan["Node Type"] != "Seq Scan", (where, sql)


def test_pages_by_seat_on_the_embedded_sqlite(tmp_path):
    """The embedded default (SQLite, no UNION of ordered parts) pages the same history the same way."""
    report = run_on_embedded_sqlite(Path(__file__).with_name("history_sqlite.py"), tmp_path)
    assert set(report) == set(ORDERINGS)
    for ordering, (forward, back, expected) in report.items():
        assert len(expected) == 9 and [pk for page in forward for pk in page] == expected, ordering
        assert back == forward[:-1], ordering
