"""The bare reference of ``benchmarks/load.py``: in one transaction, lock one row, insert one row,
update one row (tables ``bench_counter`` and ``bench_log``, created by load.py); the row is the
client's own (``?row=N``), as each client plays its own game.

``django_reference``: a plain Django view (the whole middleware stack, Django's connection; no DRF,
no authentication). ``psycopg_reference``: a bare WSGI callable on a psycopg pool, before Django
(``loadstack.wsgi``)."""
from __future__ import annotations

from urllib.parse import parse_qs

from django.db import connection, transaction
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

LOCK = "SELECT n FROM bench_counter WHERE id = %s FOR UPDATE"
INSERT = "INSERT INTO bench_log (counter_id, at) VALUES (%s, now())"
UPDATE = "UPDATE bench_counter SET n = n + 1 WHERE id = %s"
BODY = b'{"ok": true}'


@csrf_exempt
def django_reference(request):
    row = int(request.GET.get("row", "0"))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(LOCK, [row])
        cursor.execute(INSERT, [row])
        cursor.execute(UPDATE, [row])
    return HttpResponse(BODY, content_type="application/json")


def psycopg_reference(pool, environ, start_response):
    row = int(parse_qs(environ.get("QUERY_STRING", "")).get("row", ["0"])[0])
    with pool.connection() as conn, conn.transaction():
        conn.execute(LOCK, [row])
        conn.execute(INSERT, [row])
        conn.execute(UPDATE, [row])
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(BODY))),
                              ("X-Bench-Queries", "3")])
    return [BODY]


class QueryCountMiddleware:
    """Counts the SQL statements each request runs (``connection.execute_wrapper``) and answers the
    count in ``X-Bench-Queries``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        count = [0]

        def counter(execute, sql, params, many, context):
            count[0] += 1
            return execute(sql, params, many, context)

        with connection.execute_wrapper(counter):
            response = self.get_response(request)
        response["X-Bench-Queries"] = str(count[0])
        return response
