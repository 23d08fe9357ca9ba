"""The one pagination of every collection: keyset pages with opaque cursors, both directions.

A page answers ``{"results": [...], "next_cursor", "has_more", "prev_cursor", "has_prev"}``:
``results`` in the list's order; ``next_cursor`` fetches what follows the last result (also later:
poll it for new items; null only on an empty first page), ``has_more`` says whether anything
follows it now; ``prev_cursor`` and ``has_prev`` the same before the first result. Query
parameters: ``cursor`` (from a previous page of the same list and order) and ``limit``.

A cursor names the list, its order, the direction and the key of the row it is next to, in a form
the schema states exactly (``cursor_pattern``): every string of that form is a cursor (of a row
that may not exist: the page is then what lies beyond that key), so schema-valid input is never
refused but for a cursor of another ``ordering`` (400 ``bad_cursor``, like a cursor of another
list). Clients treat it as opaque. Every query parameter the list does not take is 400
``validation_error`` (``unknown_field``). Keys are the ordering fields plus the primary key, so
rows that share a timestamp are neither skipped nor repeated, and rows written meanwhile never
shift a page.

``respond_with_etag``: lists that clients poll answer ``ETag`` (a hash of the body) and 304 to a
matching ``If-None-Match``.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from django.db import connections
from django.db.models import Q, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.response import Response

from okgin_project.errors import ServiceError
from okgin_project.params import int_query_param, query_params_check


class BadCursor(ServiceError):
    """The ``cursor`` query parameter is not a cursor of this list (400 ``bad_cursor``)."""

    code = "bad_cursor"
    default_message = "The cursor is not one this list gave out (or was given for another order)."


@dataclass(frozen=True)
class Page:
    """One page: ``rows`` (model instances in list order) and the four navigation fields."""

    rows: list
    next_cursor: str | None
    has_more: bool
    prev_cursor: str | None
    has_prev: bool

    def body(self, results: list) -> dict[str, Any]:
        """The JSON body with ``results`` (the rows as presented to the client)."""
        return {"results": results, "next_cursor": self.next_cursor, "has_more": self.has_more,
                "prev_cursor": self.prev_cursor, "has_prev": self.has_prev}


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
# The text of one key value in a cursor, by the key's type (see ``cursor_pattern``): a timestamp
# is whole microseconds since 1970 UTC (16 digits reach the year 2286), an integer a primary key
# or a number (18 digits stay under 2**63), a float its shortest decimal form (``repr``).
_KEY_PATTERNS = {datetime: r"[0-9]{1,16}", int: r"[0-9]{1,18}",
                 float: r"-?[0-9]{1,17}(?:\.[0-9]{1,17})?(?:e[-+][0-9]{2,3})?"}


def _key_text(value) -> str:
    if isinstance(value, datetime):
        delta = value.astimezone(timezone.utc) - _EPOCH
        return str((delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds)
    return repr(value) if isinstance(value, float) else str(value)


def _key_value(text: str, kind: type):
    if kind is datetime:
        return _EPOCH + timedelta(microseconds=int(text))
    if kind is float:
        # Past the largest float ("1e+999") the text is a position after (or before) every stored
        # value: the largest finite one, so the cursors made from it are of the pattern too.
        value = float(text)
        return math.copysign(sys.float_info.max, value) if math.isinf(value) else value
    return int(text)


def cursor_pattern(name: str, order_index: int, types: list[type]) -> str:
    """The regular expression (no anchors) of the cursors of the list ``name`` in its order number
    ``order_index``: the list's name, that number, ``n``/``p`` (after the key / before it),
    ``x``/``i`` (the key's row excluded / included), then one value per key field (``types``), each
    after an underscore. Every string it matches is a cursor of that list and order."""
    return f"{name}{order_index}[np][xi]" + "".join(f"_{_KEY_PATTERNS[t]}" for t in types)


def _encode(list_name: str, order_index: int, direction: str, key: list, inclusive: bool = False) -> str:
    parts = [f"{list_name}{order_index}{direction}{'i' if inclusive else 'x'}", *(_key_text(v) for v in key)]
    return "_".join(parts)


def _decode(cursor: str, list_name: str, order_index: int, types: list[type]) -> tuple[str, list, bool]:
    if re.fullmatch(cursor_pattern(list_name, order_index, types), cursor) is None:
        raise BadCursor()
    head, *texts = cursor.split("_")
    return head[-2], [_key_value(t, kind) for t, kind in zip(texts, types)], head[-1] == "i"


def _after(fields: list[str], key: list, *, inclusive: bool) -> Q:
    """Rows after ``key`` in the order ``fields`` ("-name": descending), lexicographically. The
    redundant bound on the first field (``created_at <= t AND (created_at < t OR ...)``) lets an
    index on it start the scan at the cursor instead of filtering every row before it."""
    condition = Q()
    for i in reversed(range(len(fields))):
        name = fields[i].lstrip("-")
        later = "lt" if fields[i].startswith("-") else "gt"
        if i == len(fields) - 1:
            condition = Q(**{f"{name}__{later}{'e' if inclusive else ''}": key[i]})
        else:
            condition = Q(**{f"{name}__{later}": key[i]}) | (Q(**{name: key[i]}) & condition)
    if len(fields) > 1:
        first = fields[0]
        condition &= Q(**{f"{first.lstrip('-')}__{'lte' if first.startswith('-') else 'gte'}": key[0]})
    return condition


def _reverse(fields: list[str]) -> list[str]:
    return [f[1:] if f.startswith("-") else "-" + f for f in fields]


class KeysetPaginator:
    """Pages of one list: ``name`` (in cursors), the allowed orders (``{name: fields}``, the last
    field unique, e.g. ``("-created_at", "-id")``), the page size ``default_limit`` up to
    ``max_limit``, and where a first page starts (``from_end``: the last rows, e.g. the latest
    events of a feed that is oldest first)."""

    def __init__(self, name: str, model, orders: dict[str, tuple[str, ...]], *, default_limit: int = 20,
                 max_limit: int = 100, from_end: bool = False):
        self.name, self.model, self.orders = name, model, orders
        self.default_limit, self.max_limit, self.from_end = default_limit, max_limit, from_end

    def _types(self, order: str) -> list[type]:
        """The Python types of the key fields of ``order`` (datetime, float or int); a list of
        Python objects (``model`` None) names them in its order: ``{"name": (datetime, int)}``."""
        if self.model is None:
            return list(self.orders[order])
        internal = [self.model._meta.get_field(f.lstrip("-")).get_internal_type() for f in self.orders[order]]
        return [{"DateTimeField": datetime, "FloatField": float}.get(t, int) for t in internal]

    def parameters(self, *, ordering: bool = False) -> list[OpenApiParameter]:
        """The OpenAPI query parameters (``cursor``, ``limit``, and ``ordering`` when there are several)."""
        params = [
            OpenApiParameter("cursor", {"type": "string", "pattern": "^(?:" + "|".join(
                cursor_pattern(self.name, i, self._types(o)) for i, o in enumerate(self.orders)) + ")$"},
                description="next_cursor or prev_cursor of a page of this list (same ordering); without it, "
                "the first page. Opaque: its form (the pattern) may change between versions."),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": self.max_limit},
                             description=f"Page size, 1-{self.max_limit} (default {self.default_limit})."),
        ]
        if ordering:
            params.append(OpenApiParameter("ordering", OpenApiTypes.STR, enum=list(self.orders),
                                           description=f"Order (default {next(iter(self.orders))})."))
        return params

    def paginate(self, request, queryset: QuerySet, *, others: tuple[str, ...] = (),
                 parts: tuple[Q, ...] = ()) -> Page:
        """The page of ``queryset`` the request asks for; ``others``: the list's own query
        parameters besides ``cursor``, ``limit`` and ``ordering`` (filters, ``wait``). Raises
        ``BadCursor`` (a cursor of another list or ordering), or ``ServiceError`` (400
        ``validation_error``) for a bad ``limit`` or ``ordering``, an empty parameter or one the
        list does not take.

        ``parts``: disjoint conditions that split ``queryset`` into pieces each served in order by
        an index of its own (a player's games as seat 0 and as seat 1, ``games.selectors.game_seats``:
        their OR defeats both indexes, so the database would read and sort the whole history for
        every page). Where the database orders and limits each member of a UNION (PostgreSQL), every
        query of the page reads at most ``limit + 1`` rows of each part: a UNION ALL of the parts'
        keys, then the page's rows by primary key. Elsewhere (the embedded SQLite) ``queryset`` is
        queried as it is.
        """
        query_params_check(request, {"cursor", "limit", *others, *(["ordering"] if len(self.orders) > 1 else [])})
        order = request.query_params.get("ordering", next(iter(self.orders)))
        if order not in self.orders:
            raise ServiceError(f"ordering must be one of {', '.join(self.orders)}.", code="validation_error")
        fields, types = list(self.orders[order]), self._types(order)
        order_index = list(self.orders).index(order)
        limit = int_query_param(request, "limit", default=self.default_limit, minimum=1, maximum=self.max_limit)
        cursor = request.query_params.get("cursor")
        if cursor is not None:
            direction, key, inclusive = _decode(cursor, self.name, order_index, types)
        else:
            direction, key, inclusive = ("p" if self.from_end else "n"), None, False

        def key_of(row) -> list:
            return [getattr(row, f.lstrip("-")) for f in fields]

        def encode(direction, row_key, inclusive=False):
            return _encode(self.name, order_index, direction, row_key, inclusive)

        if not connections[queryset.db].features.supports_slicing_ordering_in_compound:
            parts = ()
        # An empty queryset (a filter's .none()) makes Django's UNION return one sliced member,
        # which cannot be ordered again: no parts for it (nothing to read anyway).
        lister = _PartsLister(queryset, parts) if parts and not queryset.query.is_empty() else _Lister(queryset)
        if direction == "n":
            rows = lister.first(fields, None if key is None else _after(fields, key, inclusive=inclusive), limit + 1)
            more_this_way = len(rows) > limit
            rows = rows[:limit]
        else:
            back = _reverse(fields)
            rows = lister.first(back, None if key is None else _after(back, key, inclusive=inclusive), limit + 1)
            more_this_way = len(rows) > limit
            rows = rows[:limit][::-1]
        if rows:
            first, last = key_of(rows[0]), key_of(rows[-1])
            if direction == "n":
                has_more = more_this_way
                # A first page starts at the beginning of the list: nothing precedes it.
                has_prev = key is not None and lister.exists(_reverse(fields), first, inclusive=False)
            else:
                has_prev = more_this_way
                has_more = key is not None and lister.exists(fields, last, inclusive=False)
            return Page(rows, encode("n", last), has_more, encode("p", first), has_prev)
        if key is None:  # an empty list
            return Page([], None, False, None, False)
        # Nothing on this side of the cursor: the other side starts at (and includes) its key.
        if direction == "n":
            has_prev = lister.exists(_reverse(fields), key, inclusive=not inclusive)
            return Page([], cursor, False, encode("p", key, not inclusive), has_prev)
        has_more = lister.exists(fields, key, inclusive=not inclusive)
        return Page([], encode("n", key, not inclusive), has_more, cursor, False)


class _Lister:
    """The rows of a list in one query."""

    def __init__(self, queryset: QuerySet):
        self.queryset = queryset

    def first(self, fields: list[str], condition: Q | None, n: int) -> list:
        """The first ``n`` rows in the order ``fields`` that meet ``condition`` (None: all)."""
        qs = self.queryset if condition is None else self.queryset.filter(condition)
        return list(qs.order_by(*fields)[:n])

    def exists(self, fields: list[str], key: list, *, inclusive: bool) -> bool:
        """Whether a row follows ``key`` in the order ``fields``."""
        return self.queryset.filter(_after(fields, key, inclusive=inclusive)).exists()


class _PartsLister(_Lister):
    """The rows of a list split into disjoint ``parts``, each ordered and limited on its own index,
    in one UNION ALL; only the keys are read there, then the rows by primary key."""

    def __init__(self, queryset: QuerySet, parts: tuple[Q, ...]):
        super().__init__(queryset)
        self.parts = parts

    def _union(self, querysets: list[QuerySet]) -> QuerySet:
        return querysets[0].union(*querysets[1:], all=True)

    def first(self, fields, condition, n):
        qs = self.queryset if condition is None else self.queryset.filter(condition)
        names = ["pk", *(f.lstrip("-") for f in fields)]
        keys = self._union([qs.filter(part).order_by(*fields).values_list(*names)[:n] for part in self.parts])
        pks = [row[0] for row in keys.order_by(*fields)[:n]]
        by_pk = self.queryset.filter(pk__in=pks).in_bulk()
        return [by_pk[pk] for pk in pks if pk in by_pk]

    def exists(self, fields, key, *, inclusive):
        # Ordered like the index: without it the planner may expect an early hit in a sequential scan.
        qs = self.queryset.filter(_after(fields, key, inclusive=inclusive)).order_by(*fields)
        # (not .exists(): it would drop the members' ORDER BY)
        return bool(list(self._union([qs.filter(part).values_list("pk")[:1] for part in self.parts])[:1]))


def paginate_rows(paginator: KeysetPaginator, request, rows: list, key_of, *, others: tuple[str, ...] = ()) -> Page:
    """A page of ``rows``, a short list already in the list's one order (``paginator.model`` None,
    its order's key types given), each row's key ``key_of(row)``: the same cursors, checks and
    page as ``KeysetPaginator.paginate`` for a collection too small to need the database's help
    (e.g. a player's push devices, at most ``OKGIN_PUSH_DEVICES_PER_PLAYER``, in three tables)."""
    query_params_check(request, {"cursor", "limit", *others})
    order = next(iter(paginator.orders))
    types = paginator._types(order)
    limit = int_query_param(request, "limit", default=paginator.default_limit, minimum=1, maximum=paginator.max_limit)
    keys = [tuple(key_of(r)) for r in rows]
    cursor = request.query_params.get("cursor")
    if cursor is None:
        chosen = list(range(len(rows)))[:limit]
        more, prev = len(rows) > limit, False
    else:
        direction, key, inclusive = _decode(cursor, paginator.name, 0, types)
        key = tuple(key)
        if direction == "n":
            after = [i for i, k in enumerate(keys) if k > key or (inclusive and k == key)]
            chosen, more = after[:limit], len(after) > limit
            prev = bool(chosen) and chosen[0] > 0 or (not chosen and any(k < key for k in keys))
        else:
            before = [i for i, k in enumerate(keys) if k < key or (inclusive and k == key)]
            chosen, prev = before[-limit:], len(before) > limit
            more = bool(chosen) and chosen[-1] < len(rows) - 1 or (not chosen and any(k > key for k in keys))
    if chosen:
        first, last = keys[chosen[0]], keys[chosen[-1]]
        return Page([rows[i] for i in chosen], _encode(paginator.name, 0, "n", list(last)), more,
                    _encode(paginator.name, 0, "p", list(first)), prev)
    if cursor is None:
        return Page([], None, False, None, False)
    if direction == "n":
        return Page([], cursor, False, _encode(paginator.name, 0, "p", list(key), not inclusive), prev)
    return Page([], _encode(paginator.name, 0, "n", list(key), not inclusive), more, cursor, False)


def page_serializer(name: str, item) -> type[serializers.Serializer]:
    """The OpenAPI component ``<name>`` of a page of ``item`` (a serializer instance or field)."""
    fields = {
        "results": serializers.ListField(child=item),
        "next_cursor": serializers.CharField(allow_null=True, help_text="Pass as ?cursor= for what follows the "
                                             "last result (also to poll for new ones); null on an empty first page."),
        "has_more": serializers.BooleanField(help_text="Something follows the last result now."),
        "prev_cursor": serializers.CharField(allow_null=True, help_text="Pass as ?cursor= for what precedes "
                                             "the first result."),
        "has_prev": serializers.BooleanField(help_text="Something precedes the first result now."),
    }
    return type(name, (serializers.Serializer,), {**fields, "__module__": __name__,
                                                  "__doc__": f"A page of a list ({name})."})


def respond_with_etag(request, body: dict, **headers) -> Response:
    """``body`` with an ``ETag`` (SHA-256 of its JSON), or 304 when ``If-None-Match`` has it."""
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode())
    etag = f'"{digest.hexdigest()[:32]}"'
    sent = request.headers.get("If-None-Match", "")
    if etag in [t.strip().removeprefix("W/") for t in sent.split(",")] or sent.strip() == "*":
        return Response(status=http.HTTP_304_NOT_MODIFIED, headers={"ETag": etag, **headers})
    return Response(body, headers={"ETag": etag, "Cache-Control": "private, no-cache", **headers})


