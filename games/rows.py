"""The game row with its two players and its current round's id in one statement whose SQL is
written once per database, not compiled by the ORM on every call (issue 14).

The two hottest reads of a game (the row lock of every write, ``services.common._game_lock``, and
the game view, ``selectors.game_get_for_viewer``) were
``Game.objects.select_related("player0", "player1")``: building that 40-column join cost the ORM
about as much CPU as the rest of the request's SQL together, every time. The statement is made
once from the models' fields and its rows become instances as the ORM makes them
(``okgin_project.rows``), the players cached on the game as ``select_related`` caches them. The
same SQL runs on PostgreSQL and SQLite (no row locks there: the clause is left out and the write
transaction serializes instead, as Django does).
"""
from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.transaction import TransactionManagementError

from okgin_project.rows import in_range, instance, model_columns, row_read
from players.models import Player

from .models import Game, Round

def _statement(connection, lock: bool) -> tuple[str, list]:
    """``(sql, converters)`` of the read on ``connection`` (``okgin_project.rows.row_read`` makes it
    once per database): ``sql`` takes the game id as its one parameter; ``converters``: each
    column's (``okgin_project.rows.model_columns``)."""
    qn = connection.ops.quote_name
    columns, converters = [], []
    for table_alias, model in (("g", Game), ("p0", Player), ("p1", Player)):
        model_cols, model_converters = model_columns(connection, table_alias, model)
        columns += model_cols
        converters += model_converters
    rnd, game = Round._meta, Game._meta
    columns.append(  # the current round's id (None before the first deal)
        f"(SELECT r.{qn(rnd.pk.column)} FROM {qn(rnd.db_table)} r"
        f" WHERE r.{qn(rnd.get_field('game').column)} = g.{qn(game.pk.column)}"
        f" AND r.{qn(rnd.get_field('number').column)} = g.{qn(game.get_field('round_number').column)})"
    )
    converters.append((None, []))
    players, player_pk = qn(Player._meta.db_table), qn(Player._meta.pk.column)
    sql = (
        f"SELECT {', '.join(columns)} FROM {qn(game.db_table)} g"
        f" LEFT JOIN {players} p0 ON p0.{player_pk} = g.{qn(game.get_field('player0').column)}"
        f" LEFT JOIN {players} p1 ON p1.{player_pk} = g.{qn(game.get_field('player1').column)}"
        f" WHERE g.{qn(game.pk.column)} = %s"
    )
    if lock and connection.features.has_select_for_update:
        sql += " FOR UPDATE OF g"  # the game's row only, not its players'
    return sql, converters


def game_with_players(*, game_id: int, lock: bool = False, using: str = DEFAULT_DB_ALIAS) -> Game | None:
    """The ``Game`` ``game_id`` with ``player0`` and ``player1`` loaded (as ``select_related``
    loads them; None for an empty seat) and ``current_round_id`` (the id of the ``Round`` numbered
    ``round_number``, None before the first deal), or None when there is no such game (also for
    an id too large for the column, as the ORM answers).

    ``lock``: ``SELECT ... FOR UPDATE OF`` the game's row (PostgreSQL), for a caller inside
    ``transaction.atomic`` (raises ``TransactionManagementError`` outside one, as
    ``select_for_update`` does)."""
    connection = connections[using]
    if lock and connection.get_autocommit():
        raise TransactionManagementError("select_for_update cannot be used outside of a transaction.")
    if not in_range(connection, Game._meta.pk, game_id):
        return None
    values = row_read(using, ("game_with_players", lock), lambda conn: _statement(conn, lock), [game_id])
    if values is None:
        return None
    n_game, n_player = len(Game._meta.concrete_fields), len(Player._meta.concrete_fields)
    game = instance(Game, using, values[:n_game])
    for name, start in (("player0", n_game), ("player1", n_game + n_player)):
        Game._meta.get_field(name).set_cached_value(game, instance(Player, using, values[start:start + n_player]))
    game.current_round_id = values[-1]
    return game
