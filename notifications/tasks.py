"""Celery tasks of the notifications app: they take ids and call a service (see okgin_project.celery)."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from okgin_project.celery import OkginTask, app

from . import services
from .models import DeliveryStatus, WebhookDelivery


@app.task(base=OkginTask, name="notifications.webhook_deliver", soft_time_limit=30, time_limit=40)
def webhook_deliver(delivery_id: int) -> str | None:
    """Attempt delivery ``delivery_id``; while it stays pending, queue the next attempt after its
    exponential backoff. Safe to run twice (the row lock and the status make a copy a no-op).

    In eager mode (the embedded default) the retry is not run in-process: the delivery stays
    pending with its ``next_attempt_at`` for ``webhook_deliveries_sweep``.
    """
    outcome = services.webhook_delivery_attempt(delivery_id=delivery_id)
    if outcome is None:
        return None
    if outcome.retry_in is not None and not webhook_deliver.request.is_eager:
        webhook_deliver.apply_async(kwargs={"delivery_id": delivery_id}, countdown=outcome.retry_in)
    return outcome.status


@app.task(base=OkginTask, name="notifications.webhook_deliveries_sweep", soft_time_limit=50, time_limit=60)
def webhook_deliveries_sweep(grace_seconds: float = 30.0) -> int:
    """Re-queue pending deliveries whose attempt is overdue by more than ``grace_seconds`` (their
    task was lost: broker down at commit, worker killed) or that never had an attempt. Periodic
    (beat). Returns how many were queued."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=grace_seconds)
    due = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lt=cutoff)
    never = WebhookDelivery.objects.filter(
        status=DeliveryStatus.PENDING, next_attempt_at__isnull=True, created_at__lt=cutoff
    )
    ids = list(due.values_list("pk", flat=True)[:500]) + list(never.values_list("pk", flat=True)[:500])
    for pk in ids:
        webhook_deliver.apply_async(kwargs={"delivery_id": pk})
    return len(ids)
