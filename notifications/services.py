"""Writes for the event feed and webhooks (HackSoft style: keyword-only, ``<entity>_<verb>``).

``events_create`` must be called inside the transaction of the change it reports: the events and
their webhook deliveries commit or roll back with it, and the deliveries are queued after commit.
Callers build each event's ``data`` from the engine's redacted events for the recipient's seat
(``games.notices``); nothing here reads game state.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Iterable

from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from okgin_project.errors import Conflict, NotFound
from okgin_project.rows import rows_insert
from players.models import Player

from .deliveries import SIGNATURE_HEADER, AttemptOutcome, webhook_delivery_attempt, webhook_signature
from .live import live_publish_after_commit
from .models import DeliveryStatus, Event, WebhookDelivery, WebhookEndpoint
from .outbound import webhook_target, webhook_url_normal
from .presenters import event_dict
from .push import active_devices_select, push_deliveries_create
from .queue import webhook_delivery_queue

__all__ = [  # the delivery and presentation names are re-exported for older callers
    "SIGNATURE_HEADER", "AttemptOutcome", "Notice", "event_dict", "events_create", "webhook_create",
    "webhook_delete", "webhook_delivery_attempt", "webhook_signature", "records_prune",
]


@dataclass(frozen=True)
class Notice:
    """An event to create: recipient ``player`` (AI players and None are skipped), ``kind`` (an
    ``EventKind``), the ``game_id`` it is about, and JSON ``data`` free of hidden information."""

    player: Player | None
    kind: str
    game_id: int | None
    data: dict = field(default_factory=dict)


def events_create(*, notices: Iterable[Notice]) -> list[Event]:
    """Create the events of ``notices`` for people (not AI players), one webhook delivery per event
    and registered endpoint of its player, and queue the deliveries after commit.

    Must run inside the transaction of the change being reported. Returns the created events
    (ids set). After commit, requests long-polling the recipients' feeds or the games wake up
    (``notifications.live``). Runs 0 queries when there is nobody to tell, else 2 (the events, the
    recipients' devices and webhook endpoints), +1 with webhooks, +2 with pushes.
    """
    notices = list(notices)
    live_publish_after_commit(notices)
    rows = [
        Event(player=n.player, kind=n.kind, game_id=n.game_id, data=n.data)
        for n in notices
        if n.player is not None and not n.player.is_ai
    ]
    if not rows:
        return []
    rows_insert(rows, returning_pk=True)  # issue 14: not compiled by the ORM at every action
    devices, endpoints = _targets(rows)
    push_deliveries_create(events=rows, devices=devices)
    if endpoints:
        deliveries = [
            WebhookDelivery(endpoint_id=pk, event=r) for r in rows for pk, player_id in endpoints
            if player_id == r.player_id
        ]
        WebhookDelivery.objects.bulk_create(deliveries)
        for d in deliveries:
            webhook_delivery_queue(delivery_id=d.pk)
    return rows


def _targets(events: list[Event]) -> tuple[list[tuple[str, int, int]], list[tuple[int, int]]]:
    """Where ``events`` go besides the feed, in one query (issue 14: one statement less in every
    action's transaction): the active push devices ``(platform, device id, user id)`` of their
    players' users (``push.active_devices_select``) and the webhook endpoints ``(endpoint id,
    player id)`` of their players, as SQL that runs on PostgreSQL and SQLite."""
    player_ids = sorted({e.player_id for e in events})
    user_ids = {e.player.user_id for e in events if e.player.user_id is not None}
    parts, params = active_devices_select(user_ids) if user_ids else ([], [])  # (no user: no device)
    qn, meta = connection.ops.quote_name, WebhookEndpoint._meta
    parts.append(f"SELECT '{_WEBHOOK}', {qn(meta.pk.column)}, {qn(meta.get_field('player').column)}"
                 f" FROM {qn(meta.db_table)} WHERE {qn(meta.get_field('player').column)}"
                 f" IN ({', '.join(['%s'] * len(player_ids))})")
    params += player_ids
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts) + " ORDER BY 1, 2", params)
        found = cursor.fetchall()
    devices = [tuple(row) for row in found if row[0] != _WEBHOOK]
    return devices, [(pk, player_id) for kind, pk, player_id in found if kind == _WEBHOOK]


_WEBHOOK = "webhook"  # the kind of a webhook endpoint's rows in _targets (no device platform is named so)


# --- webhooks --------------------------------------------------------------------------------


def webhook_create(*, player: Player, url: str) -> WebhookEndpoint:
    """Register ``url`` (http or https) for ``player``'s events with a new random secret, stored
    in its normal form (``outbound.webhook_url_normal``: the same URL spelled another way is the
    same endpoint).

    Returns the endpoint (its ``secret`` is shown to the player this once). Raises
    ``ServiceError`` ``bad_url``, ``WebhookUrlForbidden`` (400 ``webhook_url_forbidden``: the host
    does not resolve or resolves to a loopback, private, link-local, metadata... address; see
    ``notifications.outbound``), ``Conflict`` ``webhook_exists`` (same URL already registered),
    ``Conflict`` ``too_many_webhooks`` (``OKGIN_WEBHOOKS_PER_PLAYER``).
    """
    with transaction.atomic():
        webhook_target(url)
        url = webhook_url_normal(url)
        Player.objects.select_for_update().filter(pk=player.pk).first()  # serializes the count check
        # (endpoints stored before URLs were normalized are compared in their normal form too)
        if any(webhook_url_normal(u) == url for u in WebhookEndpoint.objects.filter(player=player)
               .values_list("url", flat=True)):
            raise Conflict("This URL is already registered.", code="webhook_exists")
        if WebhookEndpoint.objects.filter(player=player).count() >= settings.OKGIN_WEBHOOKS_PER_PLAYER:
            raise Conflict("You have registered the maximum number of webhooks.", code="too_many_webhooks")
        return WebhookEndpoint.objects.create(player=player, url=url, secret="whsec_" + secrets.token_urlsafe(32))


def webhook_delete(*, player: Player, webhook_id: int) -> None:
    """Delete ``player``'s endpoint (and its delivery records). Raises ``NotFound``."""
    with transaction.atomic():
        deleted, _ = WebhookEndpoint.objects.filter(player=player, pk=webhook_id).delete()
        if not deleted:
            raise NotFound("No such webhook.")


def records_prune(*, batch: int = 5000) -> dict:
    """Delete what the retention rules let go (``docs/operations.md``, "Retention"): events older
    than ``OKGIN_EVENT_RETENTION_DAYS`` (90; with their deliveries) and finished webhook deliveries
    (delivered or failed) older than ``OKGIN_DELIVERY_RETENTION_DAYS`` (30), in batches of ``batch``
    rows (indexes ``event_created``, ``delivery_created``). Run hourly by beat. Returns
    ``{"events": n, "deliveries": n}`` (deliveries deleted on their own, not with an event)."""
    now = timezone.now()
    finished = WebhookDelivery.objects.filter(
        created_at__lt=now - timedelta(days=settings.OKGIN_DELIVERY_RETENTION_DAYS),
        status__in=(DeliveryStatus.DELIVERED, DeliveryStatus.FAILED))
    old_events = Event.objects.filter(created_at__lt=now - timedelta(days=settings.OKGIN_EVENT_RETENTION_DAYS))
    counts = {}
    for name, queryset in (("deliveries", finished), ("events", old_events)):
        counts[name] = 0
        while ids := list(queryset.values_list("pk", flat=True)[:batch]):
            counts[name] += queryset.model.objects.filter(pk__in=ids).delete()[1].get(queryset.model._meta.label, 0)
    return counts
