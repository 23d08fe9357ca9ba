"""The task the notification services queue, named in one place.

Services never import ``notifications.tasks`` (the tasks import the services): a webhook delivery
is handed on after the current transaction commits, to the task registered as
``notifications.webhook_deliver`` or, in eager mode, to the process's delivery thread.
"""
from __future__ import annotations

from django.conf import settings
from django.db import transaction

from okgin_project.celery import app, enqueue_after_commit

from .dispatch import delivery_thread, push_thread
from .push_send import push_delivery_attempt

WEBHOOK_DELIVER = "notifications.webhook_deliver"  # notifications.tasks.webhook_deliver


def webhook_delivery_queue(*, delivery_id: int) -> None:
    """After commit, hand the delivery to a Celery worker; in eager mode (the embedded default, no
    broker) to the process's background delivery thread instead, so that no request waits on a
    webhook receiver (``OKGIN_WEBHOOK_INLINE``: run it inline after commit, for tests)."""
    if app.conf.task_always_eager and not settings.OKGIN_WEBHOOK_INLINE:
        transaction.on_commit(lambda: delivery_thread.submit(delivery_id))
    else:
        enqueue_after_commit(WEBHOOK_DELIVER, delivery_id=delivery_id)


PUSH_DELIVER = "notifications.push_deliver"  # notifications.tasks.push_deliver


def push_delivery_queue(*, delivery_id: int, delay: float = 0.0) -> None:
    """After commit, hand the push to a Celery worker (``delay`` seconds later: the end of quiet
    hours); in eager mode to the process's push thread (``OKGIN_WEBHOOK_INLINE``: inline after
    commit, for tests; a held push is then left to the sweep)."""
    if app.conf.task_always_eager and not settings.OKGIN_WEBHOOK_INLINE:
        transaction.on_commit(lambda: push_thread.submit(delivery_id, delay))
    elif app.conf.task_always_eager:
        if delay <= 0:
            transaction.on_commit(lambda: push_delivery_attempt(delivery_id=delivery_id))
    else:
        enqueue_after_commit(PUSH_DELIVER, countdown=delay, delivery_id=delivery_id)
