"""The Celery broker transport: kombu's Redis transport with one fix for a worker crash.

The crash (seen about once in 20 Redis outages of 30 s, reproduced by
``tests/faults/test_outages.py``): when Redis goes away, the worker's consumer closes its broker
connection, and kombu's ``Connection.close()`` sets ``transport.client = None``. A task that was
running meanwhile (``acks_late``: it is acknowledged when it ends) then acknowledges its message
on the old channel; the Redis channel needs a new client for it, builds its parameters from
``self.connection.client.hostname`` and raises ``AttributeError: 'NoneType' object has no
attribute 'hostname'``. That is not one of the transport's connection errors, so Celery reports
``Unrecoverable error`` and the worker exits (the same path as kombu issue #582, and the reconnect
trouble of celery issue #8030). Still present in kombu 5.7.0.

Here the channel raises redis-py's ``ConnectionError`` instead, which kombu and Celery handle as
a lost connection: the acknowledgement is logged as failed and the worker carries on with its new
connection. Nothing is lost by the failed acknowledgement: the message is delivered again after
the visibility timeout (a no-op: every okgin task checks the version it was queued for), and work
whose message died with Redis is found by the periodic sweeps.

And one saving (issue 14): kombu's channel made a new ``redis.Redis`` for every command it sent
outside its polling (``conn_or_acquire``: each task sent by the web, each acknowledgement by the
worker), about 64 microseconds of CPU each for a client that only wraps the channel's connection
pool. Here a channel keeps one client per pool and makes a new one when kombu replaces the pool
(after a connection error), so commands behave as before.

Selected by ``CELERY_BROKER_TRANSPORT`` (settings), so ``REDIS_URL`` stays a plain ``redis://`` URL.
"""
from __future__ import annotations

from contextlib import contextmanager

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    """kombu's Redis channel; using it after its connection was closed raises ``ConnectionError``;
    one client per connection pool for the commands sent outside polling."""

    _pool_client = None  # the redis.Redis of conn_or_acquire, on the pool it was made for

    @contextmanager
    def conn_or_acquire(self, client=None):
        """``client`` if given, else this channel's client on its current connection pool (made once
        per pool: kombu made one per call). Raises what kombu raises when no pool can be made
        (``ConnectionError`` after the connection was closed, :meth:`_connparams`)."""
        if client:
            yield client
            return
        pool = self.pool
        cached = self._pool_client
        if cached is None or cached.connection_pool is not pool:
            cached = self._pool_client = self._create_client()
        yield cached

    def _connparams(self, asynchronous=False):
        if self.connection.client is None:
            raise RedisConnectionError("the broker connection of this channel was closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
