"""The production pool's check (``okgin_project.db.postgresql``) against the test PostgreSQL.

A connection handed out less than ``QUIET_SECONDS`` ago that the server has not spoken on since is
handed out with no round trip; a new one, or one idle longer (a middlebox may have dropped its flow
silently), gets psycopg_pool's check; one whose server process was ended (``pg_terminate_backend``: PostgreSQL sends an error
and closes the socket, as in a restart) is checked, found dead, dropped with every other dead idle
connection, and a fresh one is handed out: the caller never sees the dead one.
"""
import time

import pytest
from django.db import connection

from okgin_project.db.postgresql.base import _pool_class

pytestmark = [pytest.mark.django_db, pytest.mark.skipif(connection.vendor != "postgresql",
                                                        reason="PostgreSQL's connection pool")]


@pytest.fixture
def pool():
    pool_class = _pool_class()
    checks = []

    class CountingPool(pool_class):
        @staticmethod
        def check_connection(conn):
            checks.append(conn)
            pool_class.check_connection(conn)

    params = connection.get_connection_params()
    params["autocommit"] = True
    p = CountingPool(kwargs=params, min_size=2, max_size=2, timeout=10, open=True)
    p.wait(timeout=10)
    p.round_trips = checks
    yield p
    p.close()


def _backend_pid(pool) -> int:
    with pool.connection() as conn:
        return conn.execute("SELECT pg_backend_pid()").fetchone()[0]


def test_an_idle_connection_the_server_did_not_speak_on_is_handed_out_without_a_round_trip(pool):
    pids = {_backend_pid(pool) for _ in range(6)}
    # six hand-outs of at most two connections: a check query only at each one's first hand-out
    assert len(pids) <= 2 and len(pool.round_trips) == len(pids)


def test_a_connection_idle_longer_than_the_quiet_time_is_checked_with_a_round_trip(pool):
    from okgin_project.db.postgresql.base import QUIET_SECONDS

    with pool.connection() as a, pool.connection() as b:  # both handed out once (and checked)
        pass
    checked = len(pool.round_trips)
    with pool.connection():
        pass
    assert len(pool.round_trips) == checked  # within the quiet time: no round trip
    for conn in (a, b):
        conn._okgin_handed_out_at -= QUIET_SECONDS + 1  # as if both had been idle that long
    with pool.connection() as c:
        assert c in (a, b)
    assert len(pool.round_trips) == checked + 1  # checked before it went out


def test_connections_whose_server_process_ended_are_replaced_before_one_is_handed_out(pool):
    with pool.connection() as a, pool.connection() as b:  # both idle connections, by pid
        old = {a.info.backend_pid, b.info.backend_pid}
    with connection.cursor() as cursor:  # the test's own connection ends them (a restart's effect)
        cursor.execute("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE pid = ANY(%s)) t", [list(old)])
    for _ in range(100):  # the server's goodbye reaches both sockets
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [list(old)])
            if cursor.fetchone()[0] == 0:
                break
        time.sleep(0.05)
    checked = len(pool.round_trips)
    pid = _backend_pid(pool)
    assert pid not in old  # a fresh connection, not an error
    # the first dead one, then the other idle one with it, then the fresh one's first check
    assert len(pool.round_trips) == checked + 3
    assert pool.get_stats()["connections_lost"] == 2
    assert _backend_pid(pool) not in old
