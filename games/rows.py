"""The game row with its two players and its current round's id in one statement whose SQL is
written once per database, not compiled by the ORM on every call (issue 14).

The two hottest reads of a game (the row lock of every write, ``services.common._game_lock``, and
the game view, ``selectors.game_get_for_viewer``) were
``Game.objects.select_related("player0", "player1")``: building that 40-column join cost the ORM
about as much CPU as the rest of the request's SQL together, every time. Here the statement is
made once from the models' fields (so a new column is read without a change here) and the rows
become model instances the way the ORM makes them: each value through the same converters
(``Model.from_db``, the backend's and the field's ``from_db_value``), the players cached on the game
as ``select_related`` caches them. The same SQL runs on PostgreSQL and SQLite (no row locks there:
the clause is left out and the write transaction serializes instead, as Django does).
"""
from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.transaction import TransactionManagementError

from players.models import Player

from .models import Game, Round

_statements: dict[tuple[str, bool], tuple[str, list]] = {}  # (db alias, lock) -> _statement's answer


def _statement(alias: str, lock: bool) -> tuple[str, list]:
    """``(sql, converters)`` of the read for the database ``alias``: ``sql`` takes the game id as
    its one parameter; ``converters[i]`` is the ``i``-th column's expression and the list of its
    converters (what the ORM's compiler applies to that column)."""
    key = (alias, lock)
    found = _statements.get(key)
    if found is not None:
        return found
    connection = connections[alias]
    qn = connection.ops.quote_name
    columns, converters = [], []
    for table_alias, model in (("g", Game), ("p0", Player), ("p1", Player)):
        for field in model._meta.concrete_fields:
            columns.append(f"{table_alias}.{qn(field.column)}")
            col = field.get_col(table_alias)
            converters.append((col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)))
    rnd = Round._meta
    columns.append(  # the current round's id (None before the first deal)
        f"(SELECT r.{qn(rnd.pk.column)} FROM {qn(rnd.db_table)} r"
        f" WHERE r.{qn(rnd.get_field('game').column)} = g.{qn(Game._meta.pk.column)}"
        f" AND r.{qn(rnd.get_field('number').column)} = g.{qn(Game._meta.get_field('round_number').column)})"
    )
    converters.append((None, []))
    player_pk = qn(Player._meta.pk.column)
    sql = (
        f"SELECT {', '.join(columns)} FROM {qn(Game._meta.db_table)} g"
        f" LEFT JOIN {qn(Player._meta.db_table)} p0 ON p0.{player_pk} = g.{qn(Game._meta.get_field('player0').column)}"
        f" LEFT JOIN {qn(Player._meta.db_table)} p1 ON p1.{player_pk} = g.{qn(Game._meta.get_field('player1').column)}"
        f" WHERE g.{qn(Game._meta.pk.column)} = %s"
    )
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE OF g"  # the game's row only, not its players'
    _statements[key] = (sql, converters)
    return sql, converters


def game_with_players(*, game_id: int, lock: bool = False, using: str = DEFAULT_DB_ALIAS) -> Game | None:
    """The ``Game`` ``game_id`` with ``player0`` and ``player1`` loaded (as ``select_related``
    loads them; None for an empty seat) and ``current_round_id`` (the id of the ``Round`` numbered
    ``round_number``, None before the first deal), or None when there is no such game.

    ``lock``: ``SELECT ... FOR UPDATE OF`` the game's row (PostgreSQL), for a caller inside
    ``transaction.atomic`` (raises ``TransactionManagementError`` outside one, as
    ``select_for_update`` does)."""
    connection = connections[using]
    if lock and connection.get_autocommit():
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    sql, converters = _statement(using, lock)
    with connection.cursor() as cursor:
        cursor.execute(sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for value, (expression, column_converters) in zip(row, converters):
        for converter in column_converters:
            value = converter(value, expression, connection)
        values.append(value)
    n_game, n_player = len(Game._meta.concrete_fields), len(Player._meta.concrete_fields)
    game = Game.from_db(using, _attnames(Game), values[:n_game])
    for name, start in (("player0", n_game), ("player1", n_game + n_player)):
        fields = values[start:start + n_player]
        player = Player.from_db(using, _attnames(Player), fields) if fields[0] is not None else None
        Game._meta.get_field(name).set_cached_value(game, player)
    game.current_round_id = values[-1]
    return game


def _attnames(model) -> list[str]:
    return [f.attname for f in model._meta.concrete_fields]
