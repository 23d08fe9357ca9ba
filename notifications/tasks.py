"""Celery tasks of the notifications app: they take ids and call a service (see okgin_project.celery)."""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from okgin_project.celery import OkginTask, SweepTask, app, requeue_once

from . import services
from .deliveries import webhook_delivery_attempt
from .models import DeliveryStatus, PushDelivery, PushStatus, WebhookDelivery
from .push_send import push_delivery_attempt


@app.task(base=OkginTask, name="notifications.webhook_deliver", soft_time_limit=30, time_limit=40)
def webhook_deliver(delivery_id: int) -> str | None:
    """Attempt delivery ``delivery_id``; while it stays pending, queue the next attempt after its
    exponential backoff. Safe to run twice (the row lock and the status make a copy a no-op).

    In eager mode (the embedded default) the retry is not run in-process: the delivery stays
    pending with its ``next_attempt_at`` for ``webhook_deliveries_sweep``.
    """
    outcome = webhook_delivery_attempt(delivery_id=delivery_id)
    if outcome is None:
        return None
    if outcome.retry_in is not None and not webhook_deliver.request.is_eager:
        webhook_deliver.apply_async(kwargs={"delivery_id": delivery_id}, countdown=outcome.retry_in)
    return outcome.status


@app.task(base=SweepTask, name="notifications.webhook_deliveries_sweep", soft_time_limit=50, time_limit=60)
def webhook_deliveries_sweep(grace_seconds: float = 30.0) -> int:
    """Re-queue pending deliveries whose attempt is overdue by more than ``grace_seconds`` (their
    task was lost: broker down at commit, worker killed) or that never had an attempt. Periodic
    (beat). Returns how many were queued (each delivery at most once every
    ``OKGIN_REQUEUE_WITHIN_SECONDS``). Single-flight (``SweepTask``): None when another run is in
    progress."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=grace_seconds)
    due = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lt=cutoff)
    never = WebhookDelivery.objects.filter(
        status=DeliveryStatus.PENDING, next_attempt_at__isnull=True, created_at__lt=cutoff
    )
    ids = list(due.values_list("pk", flat=True)[:500]) + list(never.values_list("pk", flat=True)[:500])
    within = settings.OKGIN_REQUEUE_WITHIN_SECONDS
    return sum(requeue_once(webhook_deliver, key=str(pk), within=within, delivery_id=pk) for pk in ids)


@app.task(base=SweepTask, name="notifications.records_prune", soft_time_limit=300, time_limit=330)
def records_prune() -> dict:
    """Delete events and finished webhook deliveries past their retention (beat, hourly)."""
    return services.records_prune()


@app.task(base=OkginTask, name="notifications.push_deliver", soft_time_limit=30, time_limit=40)
def push_deliver(delivery_id: int) -> str | None:
    """Attempt push ``delivery_id`` (or hold it while the player's quiet hours last); while it stays
    pending or held, queue the next attempt (after its backoff, or when the quiet hours end if that
    is within ``OKGIN_PUSH_QUEUE_HOLD_MAX_SECONDS``; later ones are left to the sweep). Safe to run
    twice. In eager mode retries are left to the delivery thread and the sweep."""
    outcome = push_delivery_attempt(delivery_id=delivery_id)
    if outcome is None:
        return None
    if (outcome.retry_in is not None and not push_deliver.request.is_eager
            and outcome.retry_in <= settings.OKGIN_PUSH_QUEUE_HOLD_MAX_SECONDS):
        push_deliver.apply_async(kwargs={"delivery_id": delivery_id}, countdown=outcome.retry_in)
    return outcome.status


@app.task(base=SweepTask, name="notifications.push_deliveries_sweep", soft_time_limit=50, time_limit=60)
def push_deliveries_sweep(grace_seconds: float = 30.0) -> int:
    """Queue the pushes that are due: held ones whose quiet hours are over, and pending ones whose
    attempt is overdue by more than ``grace_seconds`` (their task was lost) or that never had one.
    Periodic (beat). Returns how many were queued (each push at most once every
    ``OKGIN_REQUEUE_WITHIN_SECONDS``). Single-flight (``SweepTask``): None when another run is in
    progress."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=grace_seconds)
    held = PushDelivery.objects.filter(status=PushStatus.HELD, next_attempt_at__lte=now)
    due = PushDelivery.objects.filter(status=PushStatus.PENDING, next_attempt_at__lt=cutoff)
    never = PushDelivery.objects.filter(status=PushStatus.PENDING, next_attempt_at__isnull=True, created_at__lt=cutoff)
    ids = [pk for qs in (held, due, never) for pk in qs.values_list("pk", flat=True)[:500]]
    within = settings.OKGIN_REQUEUE_WITHIN_SECONDS
    return sum(requeue_once(push_deliver, key=str(pk), within=within, delivery_id=pk) for pk in ids)
