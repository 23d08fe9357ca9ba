"""The Celery application of okgin, and the two rules every task follows.

Configured explicitly from Django settings with the ``CELERY_`` prefix (``settings/base.py``): JSON
only, late acknowledgement (a message is acknowledged when its task has finished, and re-queued if
the worker process dies: ``task_reject_on_worker_lost``), a soft and a hard time limit, prefetch of
one. With no ``DATABASE_URL`` (the embedded default) ``CELERY_TASK_ALWAYS_EAGER`` is on and tasks
run in-process, so nothing else has to be installed to play against the AI.

Rules for tasks (``games/tasks.py``, ``notifications/tasks.py``):

- A task takes ids (and the version it was queued for), never model instances, and calls a
  service; it must be safe to run twice, late, or never (a periodic sweep re-queues lost work).
- Tasks are queued with :func:`enqueue_after_commit`, so a worker only ever sees committed rows.

Run a worker: ``celery -A okgin_project worker -l INFO``; the periodic sweeps: ``celery -A
okgin_project beat -l INFO``.
"""
from __future__ import annotations

import logging
import os

from celery import Celery, Task

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.local")

logger = logging.getLogger(__name__)

app = Celery("okgin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _database_errors() -> tuple[type[BaseException], ...]:
    from django.db import InterfaceError, OperationalError

    return (OperationalError, InterfaceError)


class OkginTask(Task):
    """Base class of okgin tasks: late acknowledgement, re-queued when the worker is lost, and
    retried with exponential backoff (1, 2, 4... seconds, at most 60, with jitter, 5 times) on
    database errors (connection lost, serialization failure, lock timeout)."""

    acks_late = True
    reject_on_worker_lost = True
    autoretry_for = _database_errors()
    retry_backoff = True
    retry_backoff_max = 60
    retry_jitter = True
    max_retries = 5


def enqueue_after_commit(task, /, **kwargs) -> None:
    """Queue ``task`` with keyword arguments ``kwargs`` once the current transaction commits
    (immediately when there is none). Nothing is sent if it rolls back.

    If the broker cannot be reached the error is logged, not raised: the change is already
    committed, and the periodic sweeps (``games.tasks.ai_turns_sweep``,
    ``notifications.tasks.webhook_deliveries_sweep``) find the work again. In eager mode (the
    embedded default) the task runs in-process right after commit.
    """
    from django.db import transaction

    def send() -> None:
        from kombu.exceptions import OperationalError as BrokerError

        try:
            task.apply_async(kwargs=kwargs)
        except BrokerError as exc:
            logger.warning("could not queue %s%r (%s); the sweep will re-queue it", task.name, kwargs, exc)

    transaction.on_commit(send)
