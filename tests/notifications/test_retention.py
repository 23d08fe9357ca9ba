"""Retention: events older than OKGIN_EVENT_RETENTION_DAYS (with their deliveries) and finished
webhook deliveries older than OKGIN_DELIVERY_RETENTION_DAYS are deleted by the hourly prune; newer
rows and pending deliveries stay."""
from datetime import timedelta

import pytest
from django.utils import timezone

from notifications import services, tasks
from notifications.models import Event, WebhookDelivery


@pytest.mark.django_db
def test_old_events_and_finished_deliveries_are_pruned(alice, bob):
    r = bob.post("/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, format="json")
    assert r.status_code == 201
    for _ in range(4):  # four invitations to bob: four events, four deliveries
        alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    events = list(Event.objects.filter(player__name="bob").order_by("id"))
    deliveries = {d.event_id: d for d in WebhookDelivery.objects.all()}
    assert len(events) == 4 and len(deliveries) == 4
    now = timezone.now()
    old_event, finished_old, pending_old, recent = events
    Event.objects.filter(pk=old_event.pk).update(created_at=now - timedelta(days=91))
    WebhookDelivery.objects.filter(pk=deliveries[finished_old.pk].pk).update(
        status="delivered", created_at=now - timedelta(days=31))
    WebhookDelivery.objects.filter(pk=deliveries[pending_old.pk].pk).update(
        status="pending", created_at=now - timedelta(days=31))
    WebhookDelivery.objects.filter(pk=deliveries[recent.pk].pk).update(status="failed")

    assert tasks.records_prune() == {"deliveries": 1, "events": 1}
    assert set(Event.objects.filter(player__name="bob").values_list("pk", flat=True)) == {
        finished_old.pk, pending_old.pk, recent.pk}
    assert set(WebhookDelivery.objects.values_list("event_id", flat=True)) == {pending_old.pk, recent.pk}
    assert tasks.records_prune() == {"deliveries": 0, "events": 0}


@pytest.mark.django_db
def test_the_prune_counts_every_batch(alice, bob):
    """Five old events (their pending deliveries go with them, not counted) and three finished old
    deliveries of recent events, pruned two rows at a time: 5 events and 3 deliveries, in three
    and two batches."""
    assert bob.post("/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, format="json").status_code == 201
    for _ in range(8):
        alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    events = list(Event.objects.filter(player__name="bob").order_by("id"))
    assert len(events) == 8 and WebhookDelivery.objects.count() == 8
    now = timezone.now()
    old, recent = events[:5], events[5:]
    Event.objects.filter(pk__in=[e.pk for e in old]).update(created_at=now - timedelta(days=91))
    WebhookDelivery.objects.filter(event__in=old).update(status="pending")
    for event, status in zip(recent, ("delivered", "failed", "delivered")):
        WebhookDelivery.objects.filter(event=event).update(status=status, created_at=now - timedelta(days=31))

    assert services.records_prune(batch=2) == {"deliveries": 3, "events": 5}
    assert set(Event.objects.filter(player__name="bob").values_list("pk", flat=True)) == {e.pk for e in recent}
    assert WebhookDelivery.objects.count() == 0
