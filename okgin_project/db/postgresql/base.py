"""Django's PostgreSQL backend whose psycopg pool gets over a server restart at once (issue 14).

Production settings select it (``ENGINE = "okgin_project.db.postgresql"``) whenever connections are
pooled (``DB_POOL_MAX_SIZE`` > 0). It differs from ``django.db.backends.postgresql`` in one thing:
the pool's check of a connection it hands out.

psycopg_pool checks every connection it hands out (Django passes ``check_connection``); after a
failed check it tries the next idle one, sleeping 0, 1, 2, 4... seconds in between (its backoff).
When PostgreSQL restarts, *every* idle connection of the pool is dead, so the first request after
the restart checked them one by one: with 5 idle connections that took 0 + 1 + 2 + 4 = 7 s and
then exceeded the 10 s pool timeout (503 ``database_unavailable``), though the server had been up
all along. Here a failed check makes the pool check all its idle connections at once
(``ConnectionPool.check()``: the dead ones are dropped and replaced right away), so the request
gets a fresh connection on its next try. And a connection handed out less than ``QUIET_SECONDS``
ago whose socket has received nothing since is handed out again without psycopg_pool's round trip
(see ``check_handed_out``).
"""
from __future__ import annotations

import functools
import logging
import select
import time

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.postgresql import base

logger = logging.getLogger("okgin.db")

# Seconds since a connection was last handed out within which it is handed out again without a
# round trip when its socket is quiet (``OutageAwarePool.check_handed_out``): far below the idle
# timeouts of NAT gateways and load balancers (minutes), far above the gaps between requests
# under load (milliseconds).
QUIET_SECONDS = 10.0


def _server_spoke(conn) -> bool:
    """True when ``conn`` (an idle psycopg connection) is closed or broken or its socket has
    input waiting (or an error or hang-up), i.e. when only a round trip can tell whether it works;
    False when nothing arrived (``poll`` with no wait: one system call)."""
    if conn.closed or conn.broken:
        return True
    try:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no socket, or no poll() on this platform
        return True


@functools.cache
def _pool_class():
    """``OutageAwarePool``: psycopg_pool's ``ConnectionPool`` whose failed check of one connection
    checks all of them (imported lazily: psycopg_pool is needed only when pooling; made once, so
    every pool of the process has the same class)."""
    try:
        from psycopg_pool import ConnectionPool
    except ImportError as err:  # as Django's own backend says it
        raise ImproperlyConfigured("Error loading psycopg_pool module.\nDid you install psycopg[pool]?") from err

    class OutageAwarePool(ConnectionPool):
        """``ConnectionPool`` for :class:`DatabaseWrapper` (see the module docstring); its
        ``check`` defaults to :meth:`check_handed_out` (``check=None``: no check)."""

        def __init__(self, *args, **kwargs):
            kwargs.setdefault("check", self.check_handed_out)
            super().__init__(*args, **kwargs)

        def check_handed_out(self, conn) -> None:
            """The check of a connection about to be handed out.

            An idle connection receives nothing from the server unless the server ended it (a
            restart, a crash, ``pg_terminate_backend``: an error message, then end of file) or
            sent a notice. So a connection handed out less than ``QUIET_SECONDS`` ago whose
            socket has nothing to read is handed out again without a round trip (psycopg_pool's
            own check sends an empty query each time: about 5% of a web process's CPU under
            load). Any other connection gets ``check_connection``: one never handed out, one
            idle longer (a NAT gateway, load balancer or firewall may have forgotten its flow
            without a word, and answers the next packet with a reset, which only a round trip
            finds: review of 2026-12-03), one the server spoke on. When that fails (psycopg's
            ``OperationalError``), every idle connection is checked too and the dead ones
            replaced, before the error goes back to the pool (which drops this one and tries
            again). A connection cut silently within ``QUIET_SECONDS`` (the database host gone)
            fails its request's first statement: 503 ``database_unavailable``."""
            now = time.monotonic()
            recent = now - getattr(conn, "_okgin_handed_out_at", -QUIET_SECONDS) < QUIET_SECONDS
            if not recent or _server_spoke(conn):
                try:
                    self.check_connection(conn)
                except Exception:
                    logger.warning("pooled connection lost; checking the pool's idle connections")
                    self.check()
                    raise
            conn._okgin_handed_out_at = now

    return OutageAwarePool


class DatabaseWrapper(base.DatabaseWrapper):
    """``django.db.backends.postgresql``'s wrapper with the pool of :func:`_pool_class`."""

    @property
    def pool(self):
        """The process-wide pool of this alias (None without ``OPTIONS["pool"]``), built as
        Django 5.2 builds it but with ``OutageAwarePool`` and its check. Raises
        ``ImproperlyConfigured`` with a persistent ``CONN_MAX_AGE``, as Django does."""
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == base.NO_DB_ALIAS or not pool_options:
            return None
        if self.alias not in self._connection_pools:
            if self.settings_dict.get("CONN_MAX_AGE", 0) != 0:
                raise ImproperlyConfigured("Pooling doesn't support persistent connections.")
            pool_options = {} if pool_options is True else pool_options
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True  # Django sets its own mode later, as in base
            pool_class = _pool_class()
            checks = {} if self.settings_dict["CONN_HEALTH_CHECKS"] else {"check": None}
            pool = pool_class(kwargs=connect_kwargs, open=False, configure=self._configure_connection,
                              **checks, **pool_options)
            self._connection_pools.setdefault(self.alias, pool)
        return self._connection_pools[self.alias]
