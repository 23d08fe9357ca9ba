"""The indexes of the tables every action writes (issue 14): none is redundant, and the queries
that lost a single-column index still use one.

Each action rewrites the game row (a non-HOT update: every index of ``games_game`` gets an entry)
and inserts a move, events and an Idempotency-Key record. A btree index whose columns lead another
index of the same table (with no condition of its own) only costs writes, so it must not come back,
for example through a new ``ForeignKey`` (Django indexes each one unless ``db_index=False``)."""
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.models import Game
from tests.games.factories import player_make

pytestmark = [pytest.mark.django_db, pytest.mark.skipif(connection.vendor != "postgresql",
                                                         reason="reads PostgreSQL's catalogue and plans")]

WRITTEN_PER_ACTION = ("games_game", "games_move", "games_round", "notifications_event", "games_idempotencyrecord")


def _indexes(table: str) -> list[tuple[str, list[str], bool, bool]]:
    """(name, key columns in order, unique, partial) of each index of ``table``."""
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT c.relname, array(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                                    ORDER BY k.n),
                   i.indisunique, i.indpred IS NOT NULL
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = %s::regclass""", [table])
        return [(name, list(cols), unique, partial) for name, cols, unique, partial in cursor.fetchall()]


@pytest.mark.parametrize("table", WRITTEN_PER_ACTION)
def test_no_index_is_a_prefix_of_another(table):
    indexes = _indexes(table)
    assert indexes, table
    redundant = [
        (name, other)
        for name, cols, unique, partial in indexes
        for other, other_cols, _u, other_partial in indexes
        if name != other and not unique and not partial and not other_partial
        and other_cols[:len(cols)] == cols
    ]
    assert redundant == [], redundant


def test_game_row_index_count():
    """17 before the single-column status, status LIKE and seat indexes went: 14 now, of which 6 are
    partial (written only for rows in their condition)."""
    indexes = _indexes("games_game")
    assert len(indexes) == 14, [i[0] for i in indexes]
    assert sum(partial for *_rest, partial in indexes) == 6


def test_invitations_sweep_reads_an_index():
    """``invitations_expire``'s query used the status index; it now has a partial one of its own."""
    alice, bob = player_make(), player_make()
    game = services.game_create(creator=alice, kind="invite", opponent_name=bob.name)
    Game.objects.filter(pk=game.pk).update(invitation_expires_at=timezone.now() - timedelta(seconds=1))
    with CaptureQueriesContext(connection) as queries:
        assert services.invitations_expire() == 1
    sql = queries[0]["sql"]
    assert "invitation_expires_at" in sql, sql
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "game_invited_expiry" in plan, plan
