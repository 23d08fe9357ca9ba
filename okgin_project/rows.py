"""Model rows read and written by SQL written once, for the few hot reads where the ORM's
compiling of a ``select_related`` join at every call cost more CPU than the query (issue 14:
``games.rows.game_with_players``, the authenticated user with its player in
``players.authentication``) and the writes of every action (``rows_insert``, ``row_update``: the
move, the game row, its events, the Idempotency-Key record).

The SQL is made from the models' fields (a new column is read without a change to the reader) and
the rows become instances the way the ORM makes them: every value through the converters the
ORM's compiler applies to that column (the backend's, then the field's ``from_db_value``: JSON,
SQLite's times and booleans), then ``Model.from_db``.
"""
from __future__ import annotations

from typing import Callable, Hashable

from django.db import DatabaseError, connections, transaction
from django.db.models import Model

_statements: dict[tuple[str, Hashable], tuple[str, list]] = {}  # (db alias, name) -> (SQL, converters or fields)


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


def row_insert(obj: Model, *, using: str = "default") -> None:
    """INSERT ``obj`` as a new row, as ``Model.save()`` would write it (``rows_insert`` of one row,
    the new id not read back: ``obj.pk`` stays None)."""
    rows_insert([obj], using=using)


def rows_insert(objs: list[Model], *, using: str = "default", returning_pk: bool = False) -> None:
    """INSERT ``objs`` (instances of one model, at least one) as new rows in one statement, as
    ``save()`` or ``bulk_create`` would write them, by SQL made once per model, number of rows and
    database: every concrete field but an auto primary key, each value prepared by the field as the
    ORM's compiler prepares it (``pre_save``: ``auto_now``/``auto_now_add`` times, then
    ``get_db_prep_save``: JSON, times, ...). With ``returning_pk`` each object gets its new
    primary key (``RETURNING``, on PostgreSQL and SQLite >= 3.35; elsewhere ``bulk_create`` does
    it); else ``pk`` stays None. No ``pre_save``/``post_save`` signal is sent: for rows that no
    signal receiver watches (a move, events, an Idempotency-Key record; issue 14: the ORM's
    compiling of each INSERT cost more CPU than the statement). Raises the database's
    ``IntegrityError`` as ``save()`` does, and like the ORM marks the enclosing ``atomic`` block
    for rollback when it raises. Plain values only: not a query expression (``F()``), and a
    related object must have its id when assigned (``save()`` would copy an id set later)."""
    model, connection = type(objs[0]), connections[using]
    if returning_pk and not connection.features.can_return_rows_from_bulk_insert:
        model._base_manager.using(using).bulk_create(objs)
        return
    key = (using, ("insert", model, len(objs), returning_pk))
    found = _statements.get(key)
    if found is None:
        qn, meta = connection.ops.quote_name, model._meta
        fields = [f for f in meta.concrete_fields if not (f.primary_key and f.db_returning)]
        row = f"({', '.join(['%s'] * len(fields))})"
        sql = (f"INSERT INTO {qn(meta.db_table)} ({', '.join(qn(f.column) for f in fields)})"
               f" VALUES {', '.join([row] * len(objs))}")
        if returning_pk:
            sql += f" RETURNING {qn(meta.pk.column)}"
        found = _statements[key] = (sql, fields)
    sql, fields = found
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in fields]
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        ids = [row[0] for row in cursor.fetchall()] if returning_pk else None
    for i, obj in enumerate(objs):
        if ids is not None:
            obj.pk = ids[i]
            obj._state.adding = False
        obj._state.db = using


def row_update(obj: Model, fields: tuple[str, ...], *, using: str = "default") -> None:
    """UPDATE the columns of ``fields`` (field names) of ``obj``'s row, as
    ``obj.save(update_fields=fields)`` would write them (``pre_save`` then ``get_db_prep_save`` per
    field, so an ``auto_now`` time is set), by an UPDATE made once per model, fields and database,
    sending no signal. Raises ``DatabaseError`` when no row has ``obj``'s primary key, as
    ``save(update_fields=...)`` does, and marks the enclosing ``atomic`` block for rollback when
    the statement fails, as the ORM does. Plain values only: not a query expression (``F()``)."""
    model, connection = type(obj), connections[using]
    found = _statements.get((using, ("update", model, fields)))
    if found is None:
        qn, meta = connection.ops.quote_name, model._meta
        columns = [meta.get_field(name) for name in fields]
        sql = (f"UPDATE {qn(meta.db_table)} SET {', '.join(f'{qn(f.column)} = %s' for f in columns)}"
               f" WHERE {qn(meta.pk.column)} = %s")
        found = _statements[(using, ("update", model, fields))] = (sql, columns)
    sql, columns = found
    params = [f.get_db_prep_save(f.pre_save(obj, False), connection) for f in columns]
    params.append(model._meta.pk.get_db_prep_value(obj.pk, connection))
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")
