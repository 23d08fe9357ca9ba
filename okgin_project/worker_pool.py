"""The Celery worker pool: Celery's prefork pool with one fix for a worker crash after a broker outage.

The crash (seen about once in 10-20 Redis outages of 30 s by ``tests/faults/test_outages.py``,
celery 5.7.0 with kombu 5.7.0)::

    CRITICAL Unrecoverable error: ValueError('file descriptor is None')
      ... celery/concurrency/asynpool.py, in register_with_event_loop
      ... in _track_child_process -> iterate_file_descriptors_safely -> hub.add_reader
      ... kombu/utils/compat.py, in fileno: raise ValueError('file descriptor is None')

How it comes about: while the worker waits for the broker to come back, its event loop does not
run, so the results of tasks that finished meanwhile are not read. When the connection returns, the
loop's time-limit timers fire first and signal pool children that are in fact idle; such a child
exits, and the pool stops tracking it (its sentinel descriptor becomes None) but keeps it in its
list until the next ``maintain_pool`` (every 5 s). If the consumer re-registers the pool with the
event loop in that window (the next reconnect), it asks the hub to watch that None descriptor.
kombu 5.7.0 made ``fileno(None)`` raise ``ValueError`` (kombu PR #2623) because Celery's
``iterate_file_descriptors_safely`` was meant to catch it, but Celery 5.7.0's catches
``OSError``, ``FileNotFoundError`` and ``AttributeError`` only. So the error escapes, Celery reports
it as unrecoverable, and the worker stops consuming (it then hung in shutdown instead of exiting,
so supervision did not restart it either).

Here a child that is no longer tracked is not registered again: ``maintain_pool`` reaps and replaces
it within 5 s, as it does for every child that exits. Selected by ``CELERY_WORKER_POOL`` (settings),
so the worker command needs no ``--pool`` option.
"""
from __future__ import annotations

import logging

from celery.concurrency import asynpool, prefork

logger = logging.getLogger(__name__)


class AsynPool(asynpool.AsynPool):
    """Celery's asynchronous prefork pool; a child that already exited is not watched again."""

    def _track_child_process(self, proc, hub) -> None:
        """Watch ``proc``'s exit on ``hub``, unless ``proc`` already exited and was untracked
        (its ``_sentinel_poll`` is None): then nothing is registered, and ``maintain_pool``
        replaces the child."""
        if getattr(proc, "_sentinel_poll", 0) is None:
            logger.info("pool child %s already exited; left to maintain_pool", proc.pid)
            return
        super()._track_child_process(proc, hub)


class TaskPool(prefork.TaskPool):
    """Celery's prefork task pool (``--pool=prefork``) using :class:`AsynPool`."""

    Pool = AsynPool
