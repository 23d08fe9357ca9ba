"""The production settings' PostgreSQL pool gets over a server restart at once (issue 14).

A PostgreSQL cluster of the test's own (``tests.faults.stack.PostgresServer``, never the machine's)
is stopped (fast shutdown: every session cut) and started again under a Django process run with the
production settings (``okgin_project.settings.production``: a psycopg pool of at most 16
connections per process, a 10 s pool timeout), driven over stdin/stdout by this test:

* **idle connections all dead**: the process holds 8 connections at once (so 8 sit idle in its
  pool), the server restarts, and the first query afterwards must get a connection. psycopg_pool
  itself tries the dead idle ones one by one with 0, 1, 2, 4, 8... s of backoff between them and
  exceeds the pool timeout after the 5th (the same run on ``django.db.backends.postgresql``'s own
  pool fails, asserted below: that test starts to fail when psycopg_pool stops doing this);
* **queries during the outage**: the process keeps querying while the server is down for 17 s
  (every query fails: OperationalError, what the API answers as 503 ``database_unavailable``), then
  the first query after the restart must succeed. With psycopg_pool's default reconnection
  (retries after 1, 2, 4, 8, 16 s for 300 s) the retry that would reconnect can be scheduled up to
  ~15 s after the restart, past the pool timeout: that is how the CI run of 2026-12-02 saw a 503
  after PostgreSQL was back (``test_outages.py::test_postgres_stopped_for_15_seconds``).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from tests.faults.stack import PostgresServer, checkout_process_env, own_postgres_server

pytestmark = pytest.mark.faults

# The Django process: one command a line on stdin, one JSON answer a line on stdout.
#   warm N   hold N connections at once, then give them back (N idle in the pool)
#   query    one SELECT 1 as a request does it (connection given back after)
#   until S  queries one after another for S seconds (as requests during an outage)
CHILD = r"""
import json, sys, threading, time
from django.conf import settings
if sys.argv[1] == "stock":  # django's own backend over the same pool options
    settings.DATABASES["default"]["ENGINE"] = "django.db.backends.postgresql"
import django
django.setup()
from django.db import OperationalError, connection, connections

def query():
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return "ok"
    except OperationalError as exc:
        return type(exc.__cause__ or exc).__name__
    finally:
        connection.close()

def answer(**kw):
    kw.update(connections["default"].pool.get_stats(), backend=type(connections["default"]).__module__)
    print(json.dumps(kw), flush=True)

for line in sys.stdin:
    cmd, *args = line.split()
    if cmd == "warm":
        n = int(args[0])
        barrier = threading.Barrier(n)
        def hold():
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                barrier.wait(timeout=30)
            connection.close()
        threads = [threading.Thread(target=hold) for _ in range(n)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        answer()
    elif cmd == "query":
        t0 = time.monotonic()
        result = query()
        answer(result=result, seconds=round(time.monotonic() - t0, 2))
    elif cmd == "until":
        end, results = time.monotonic() + float(args[0]), []
        while time.monotonic() < end:
            results.append(query())
        answer(results=results)
"""


@pytest.fixture
def postgres():
    workdir, server = own_postgres_server("okgin-faults-pool-")
    try:
        server.init()
        yield server
    finally:
        try:
            server.stop()
        except subprocess.SubprocessError:
            pass
        shutil.rmtree(workdir, ignore_errors=True)  # the cluster's files (about 45 MB)


class Process:
    """The Django process of ``CHILD`` over ``postgres``, production settings (``backend``:
    ``okgin`` as deployed, ``stock`` for Django's own)."""

    def __init__(self, postgres: PostgresServer, backend: str):
        env = checkout_process_env("redis://127.0.0.1:1/0", "pool", DATABASE_URL=postgres.url)
        self.log = postgres.datadir.parent / f"django-{backend}.log"
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-c", CHILD, backend], env=env, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log)

    def ask(self, command: str) -> dict:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the Django process ended (exit {self.proc.wait()}):\n{self.log.read_text()[-3000:]}"
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture
def process(postgres):
    started = []

    def start(backend: str = "okgin") -> Process:
        started.append(Process(postgres, backend))
        return started[-1]

    yield start
    for p in started:
        p.close()


def restart(postgres: PostgresServer, down_seconds: float = 0.0) -> None:
    postgres.stop()
    time.sleep(down_seconds)
    postgres.start()  # pg_ctl -w: returns once the server accepts connections


def test_the_first_query_after_a_restart_gets_a_fresh_connection_though_every_idle_one_is_dead(postgres, process):
    p = process()
    warm = p.ask("warm 8")
    assert warm["backend"] == "okgin_project.db.postgresql.base"
    assert warm["pool_available"] == 8 and warm["pool_max"] == 16  # 8 idle, all to be cut
    restart(postgres)
    first = p.ask("query")
    assert first["result"] == "ok", first
    assert first.get("connections_lost") == 8  # all 8 dropped at the first failed check
    assert p.ask("query")["result"] == "ok"


def test_djangos_own_pool_backend_times_out_on_the_same_dead_idle_connections(postgres, process):
    # What the backend above exists for: psycopg_pool's check loop sleeps 0+1+2+4+(capped) s over
    # the first five dead connections and gives up at the 10 s pool timeout before the sixth.
    p = process("stock")
    warm = p.ask("warm 8")
    assert warm["backend"] == "django.db.backends.postgresql.base" and warm["pool_available"] == 8
    restart(postgres)
    first = p.ask("query")
    assert first["result"] == "PoolTimeout", first
    assert p.ask("query")["result"] == "ok"  # the dead ones it checked were replaced meanwhile


def test_the_first_query_after_a_17_second_outage_succeeds(postgres, process):
    p = process()
    assert p.ask("query")["result"] == "ok"
    postgres.stop()
    during = p.ask("until 17")["results"]
    assert during and set(during) <= {"OperationalError", "PoolTimeout"}, during  # the outage was seen
    postgres.start()
    after = p.ask("query")
    assert after["result"] == "ok", after
