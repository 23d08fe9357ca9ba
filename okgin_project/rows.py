"""Model rows read by SQL written once, for the few hot reads where the ORM's compiling of a
``select_related`` join at every call cost more CPU than the query (issue 14:
``games.rows.game_with_players``, the authenticated user with its player in
``players.authentication``).

The SQL is made from the models' fields (a new column is read without a change to the reader) and
the rows become instances the way the ORM makes them: every value through the converters the
ORM's compiler applies to that column (the backend's, then the field's ``from_db_value``: JSON,
SQLite's times and booleans), then ``Model.from_db``.
"""
from __future__ import annotations

from typing import Callable, Hashable

from django.db import connections
from django.db.models import Model

_statements: dict[tuple[str, Hashable], tuple[str, list]] = {}  # (db alias, name) -> (SQL, converters)


def row_read(using: str, name: Hashable, build: Callable, params: list) -> list | None:
    """The first row of the statement ``name`` on database ``using``, each value through its
    column's converters (``converted``), or None when there is no row. ``build(connection)`` makes
    ``(sql, converters)`` the first time a database is asked for ``name`` (``name`` says which
    shape of a reader's statement: lock or not, NULL or not); later calls reuse them."""
    connection = connections[using]
    found = _statements.get((using, name))
    if found is None:
        found = _statements[(using, name)] = build(connection)
    sql, converters = found
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return None if row is None else converted(row, converters, connection)


def model_columns(connection, table_alias: str, model: type[Model]) -> tuple[list[str], list[tuple]]:
    """The select list of ``model``'s concrete fields on ``table_alias`` (``alias."column"``, in
    field order) and, for each, ``(expression, converters)`` as the ORM's compiler gets them."""
    qn = connection.ops.quote_name
    columns, converters = [], []
    for field in model._meta.concrete_fields:
        columns.append(f"{table_alias}.{qn(field.column)}")
        col = field.get_col(table_alias)
        converters.append((col, connection.ops.get_db_converters(col) + col.get_db_converters(connection)))
    return columns, converters


def converted(row, converters: list[tuple], connection) -> list:
    """``row``'s values, each through its column's converters (``model_columns``)."""
    values = []
    for value, (expression, column_converters) in zip(row, converters):
        for converter in column_converters:
            value = converter(value, expression, connection)
        values.append(value)
    return values


def instance(model: type[Model], using: str, values: list) -> Model | None:
    """A ``model`` instance from its concrete fields' ``values`` (converted, in field order) as read
    from database ``using``; None when the primary key (first) is NULL (an outer join found nothing)."""
    if values[0] is None:
        return None
    return model.from_db(using, [f.attname for f in model._meta.concrete_fields], values)


def in_range(connection, field, value: int) -> bool:
    """True when the integer ``value`` fits ``field``'s column on this database. The ORM answers
    no row for an exact lookup with a value that does not fit (SQLite's driver raises
    ``OverflowError`` beyond 64 bits, PostgreSQL refuses it); a reader here does the same."""
    low, high = connection.ops.integer_field_range(field.get_internal_type())
    return (low is None or value >= low) and (high is None or value <= high)
