"""Writes for the event feed and webhooks (HackSoft style: keyword-only, ``<entity>_<verb>``).

``events_create`` must be called inside the transaction of the change it reports: the events and
their webhook deliveries commit or roll back with it, and the deliveries are queued after commit.
Callers build each event's ``data`` from the engine's redacted events for the recipient's seat
(``games.notices``); nothing here reads game state.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Iterable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from okgin_project.celery import enqueue_after_commit
from okgin_project.errors import Conflict, NotFound, ServiceError
from players.models import Player

from .models import DeliveryStatus, Event, WebhookDelivery, WebhookEndpoint
from .outbound import webhook_post, webhook_target

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Okgin-Signature"


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
    (ids set). Runs 0 queries when there is nobody to tell, else 2 (+1 with webhooks).
    """
    rows = [
        Event(player=n.player, kind=n.kind, game_id=n.game_id, data=n.data)
        for n in notices
        if n.player is not None and not n.player.is_ai
    ]
    if not rows:
        return []
    Event.objects.bulk_create(rows)
    endpoints = list(WebhookEndpoint.objects.filter(player_id__in={r.player_id for r in rows}))
    if endpoints:
        deliveries = [
            WebhookDelivery(endpoint=e, event=r) for r in rows for e in endpoints if e.player_id == r.player_id
        ]
        WebhookDelivery.objects.bulk_create(deliveries)
        for d in deliveries:
            _delivery_queue(delivery_id=d.pk)
    return rows


def _delivery_queue(*, delivery_id: int) -> None:
    """After commit, hand the delivery to a Celery worker; in eager mode (the embedded default, no
    broker) to the process's background delivery thread instead, so that no request waits on a
    webhook receiver (``OKGIN_WEBHOOK_INLINE``: run it inline after commit, for tests)."""
    from .tasks import webhook_deliver

    if webhook_deliver.app.conf.task_always_eager and not settings.OKGIN_WEBHOOK_INLINE:
        from .dispatch import delivery_thread

        transaction.on_commit(lambda: delivery_thread.submit(delivery_id))
    else:
        enqueue_after_commit(webhook_deliver, delivery_id=delivery_id)


def event_dict(event: Event) -> dict:
    """The JSON form of an event, in the feed and as a webhook body:
    ``{"id": int, "kind": str, "game_id": int | None, "data": {...}, "created_at": ISO 8601}``."""
    from games.presenters import iso

    return {
        "id": event.pk,
        "kind": event.kind,
        "game_id": event.game_id,
        "data": event.data,
        "created_at": iso(event.created_at),
    }


# --- webhooks --------------------------------------------------------------------------------


def webhook_signature(*, secret: str, body: bytes) -> str:
    """The ``X-Okgin-Signature`` header value: ``"sha256=" + hex(HMAC-SHA256(secret, body))``
    (key: the secret's UTF-8 bytes; ``body``: the exact bytes POSTed)."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@transaction.atomic
def webhook_create(*, player: Player, url: str) -> WebhookEndpoint:
    """Register ``url`` (http or https) for ``player``'s events with a new random secret.

    Returns the endpoint (its ``secret`` is shown to the player this once). Raises
    ``ServiceError`` ``bad_url``, ``WebhookUrlForbidden`` (400 ``webhook_url_forbidden``: the host
    does not resolve or resolves to a loopback, private, link-local, metadata... address; see
    ``notifications.outbound``), ``Conflict`` ``webhook_exists`` (same URL already registered),
    ``Conflict`` ``too_many_webhooks`` (``OKGIN_WEBHOOKS_PER_PLAYER``).
    """
    webhook_target(url)
    Player.objects.select_for_update().filter(pk=player.pk).first()  # serializes the count check
    if WebhookEndpoint.objects.filter(player=player, url=url).exists():
        raise Conflict("This URL is already registered.", code="webhook_exists")
    if WebhookEndpoint.objects.filter(player=player).count() >= settings.OKGIN_WEBHOOKS_PER_PLAYER:
        raise Conflict("You have registered the maximum number of webhooks.", code="too_many_webhooks")
    return WebhookEndpoint.objects.create(player=player, url=url, secret="whsec_" + secrets.token_urlsafe(32))


@transaction.atomic
def webhook_delete(*, player: Player, webhook_id: int) -> None:
    """Delete ``player``'s endpoint (and its delivery records). Raises ``NotFound``."""
    deleted, _ = WebhookEndpoint.objects.filter(player=player, pk=webhook_id).delete()
    if not deleted:
        raise NotFound("No such webhook.")


@dataclass(frozen=True)
class AttemptOutcome:
    """What one delivery attempt did: the delivery's ``status`` afterwards and, while pending,
    ``retry_in`` seconds until the next attempt."""

    status: str
    retry_in: float | None = None


def _lease_seconds() -> float:
    # a POST lasts at most the timeout for the connection and again for the answer, plus DNS
    return 2 * settings.OKGIN_WEBHOOK_TIMEOUT_SECONDS + 30.0


def webhook_delivery_attempt(*, delivery_id: int) -> AttemptOutcome | None:
    """POST a pending delivery's event to its endpoint once and record the result.

    No transaction or row lock is held during the POST: a short transaction claims the delivery
    (``lease_until``, so a second copy of the task skips it: no double POST at the same time) and
    reads what to send; the POST runs after commit; a second short transaction records the
    outcome. 2xx: ``delivered``. Anything else: ``attempts`` + 1 and, below
    ``OKGIN_WEBHOOK_MAX_ATTEMPTS``, still ``pending`` with ``next_attempt_at`` after an exponential
    backoff of ``OKGIN_WEBHOOK_BACKOFF_SECONDS * 2 ** (attempts - 1)`` seconds; else ``failed``.
    Returns None when there was nothing to do (gone, claimed by another attempt, or no longer
    pending). A worker that dies mid-POST leaves the lease to expire; the sweep retries then.
    """
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("endpoint", "event")
            .filter(pk=delivery_id)
            .first()
        )
        now = timezone.now()
        if delivery is None or delivery.status != DeliveryStatus.PENDING:
            return None
        if delivery.lease_until is not None and delivery.lease_until > now:
            return None
        lease_until = now + timedelta(seconds=_lease_seconds())
        delivery.lease_until = lease_until
        delivery.save(update_fields=["lease_until", "updated_at"])
        url = delivery.endpoint.url
        body = json.dumps(event_dict(delivery.event), separators=(",", ":")).encode()
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "okgin-webhooks/1",
            SIGNATURE_HEADER: webhook_signature(secret=delivery.endpoint.secret, body=body),
            "X-Okgin-Event": delivery.event.kind,
            "X-Okgin-Delivery": str(delivery.pk),
        }
    code, error = webhook_post(url, body, headers)  # committed: nothing locked while we wait
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(of=("self",))
            .filter(pk=delivery_id, status=DeliveryStatus.PENDING, lease_until=lease_until)
            .first()
        )
        if delivery is None:  # deleted with its endpoint meanwhile (or the lease was taken over)
            return None
        now = timezone.now()
        delivery.lease_until = None
        delivery.attempts += 1
        delivery.last_status_code = code
        delivery.last_error = error
        retry_in = None
        if code is not None and 200 <= code < 300:
            delivery.status = DeliveryStatus.DELIVERED
            delivery.delivered_at = now
            delivery.next_attempt_at = None
        elif delivery.attempts >= settings.OKGIN_WEBHOOK_MAX_ATTEMPTS:
            delivery.status = DeliveryStatus.FAILED
            delivery.next_attempt_at = None
        else:
            retry_in = settings.OKGIN_WEBHOOK_BACKOFF_SECONDS * 2 ** (delivery.attempts - 1)
            delivery.next_attempt_at = now + timedelta(seconds=retry_in)
        delivery.save()
    if delivery.status != DeliveryStatus.DELIVERED:
        logger.info("webhook delivery %s attempt %s: %s", delivery.pk, delivery.attempts, error or code)
    return AttemptOutcome(status=delivery.status, retry_in=retry_in)
