"""WSGI application of ``benchmarks/load.py``: ``/bench/reference/psycopg/`` is answered by a bare
callable on a psycopg pool (``loadstack.reference.psycopg_reference``); every other path by okgin
(``okgin_project.wsgi`` with ``loadstack.settings``)."""
import os

from psycopg_pool import ConnectionPool

from okgin_project.wsgi import application as okgin_application

from .reference import psycopg_reference

_pool = ConnectionPool(os.environ["DATABASE_URL"], min_size=1, max_size=int(os.environ.get("DB_POOL_MAX_SIZE", "16")),
                       open=True)


def application(environ, start_response):
    if environ.get("PATH_INFO") == "/bench/reference/psycopg/":
        return psycopg_reference(_pool, environ, start_response)
    return okgin_application(environ, start_response)
