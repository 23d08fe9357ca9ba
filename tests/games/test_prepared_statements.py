"""On PostgreSQL the hot statements are prepared on their connection at first use (issue 14,
``DB_PREPARE_THRESHOLD``): an action POST's game lock runs as a prepared statement, and the next
action on the same connection reuses it instead of having PostgreSQL parse and plan it again."""
import uuid

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tests.helpers import act, register

pytestmark = [pytest.mark.django_db, pytest.mark.skipif(connection.vendor != "postgresql",
                                                         reason="PostgreSQL's prepared statements")]


def _prepared() -> dict[str, int]:
    """statement text -> times it ran as prepared on this connection (pg_prepared_statements)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        return dict(cursor.fetchall())


def _game_locks() -> dict[str, int]:
    return {sql: n for sql, n in _prepared().items() if "FOR UPDATE" in sql and '"games_game"' in sql}


def test_the_game_lock_is_prepared_once_and_reused():
    alice, bob = register(APIClient(), "alice"), register(APIClient(), "bob")
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200

    def one_action():
        for client in (alice, bob):
            view = client.get(f"/api/v1/games/{gid}/").json()
            if view["is_your_turn"]:
                legal = view["view"]["legal_actions"]
                action = next((a for a in legal if a["type"] in ("pass", "draw_stock")), legal[-1])
                r = act(client, gid, view["version"], action, key=uuid.uuid4().hex)
                assert r.status_code == 200, r.content
                return
        raise AssertionError("nobody to act")

    one_action()
    locks = _game_locks()
    assert len(locks) == 1, _prepared()
    (sql, runs), = locks.items()
    assert "$1" in sql  # the game id is a server-side parameter, not quoted into the text
    one_action()
    assert _game_locks() == {sql: runs + 1}
