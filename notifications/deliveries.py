"""Webhook deliveries: one attempt to POST an event to an endpoint, and its signature.

An attempt holds no transaction or row lock while it waits on the receiver: a short transaction
claims the delivery with a lease, the POST runs after commit (``notifications.outbound``), a second
short transaction records the outcome. Run by the task ``notifications.tasks.webhook_deliver`` or,
in eager mode, by the background thread of ``notifications.dispatch``.
"""
from __future__ import annotations

import hashlib
import hmac
import json
from datetime import timedelta

from django.conf import settings

from .attempts import AttemptOutcome, Send, SendResult, delivery_attempt
from .models import DeliveryStatus, WebhookDelivery
from .outbound import destination_wait, webhook_post
from .presenters import event_dict

SIGNATURE_HEADER = "X-Okgin-Signature"


def webhook_signature(*, secret: str, body: bytes) -> str:
    """The ``X-Okgin-Signature`` header value: ``"sha256=" + hex(HMAC-SHA256(secret, body))``
    (key: the secret's UTF-8 bytes; ``body``: the exact bytes POSTed)."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _lease_seconds() -> float:
    # a POST lasts at most the timeout for the connection and again for the answer, plus DNS
    return 2 * settings.OKGIN_WEBHOOK_TIMEOUT_SECONDS + 30.0


def _claim(delivery: WebhookDelivery, now) -> Send | AttemptOutcome:
    wait = destination_wait(delivery.endpoint.url)
    if wait:  # this destination had its share of POSTs this minute: not an attempt
        delivery.next_attempt_at = now + timedelta(seconds=wait)
        delivery.save(update_fields=["next_attempt_at", "updated_at"])
        return AttemptOutcome(status=DeliveryStatus.PENDING, retry_in=wait)
    body = json.dumps(event_dict(delivery.event), separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "okgin-webhooks/1",
        SIGNATURE_HEADER: webhook_signature(secret=delivery.endpoint.secret, body=body),
        "X-Okgin-Event": delivery.event.kind,
        "X-Okgin-Delivery": str(delivery.pk),
    }
    return Send((delivery.endpoint.url, body, headers))


def _post(what) -> SendResult:
    code, error = webhook_post(*what)
    return SendResult(ok=code is not None and 200 <= code < 300, error=error, fields={"last_status_code": code})


def webhook_delivery_attempt(*, delivery_id: int) -> AttemptOutcome | None:
    """POST a pending delivery's event to its endpoint once and record the result
    (``notifications.attempts.delivery_attempt``: claimed under a lease, the POST after commit, the
    outcome recorded in a second transaction).

    2xx: ``delivered``. Anything else: ``attempts`` + 1 and, below ``OKGIN_WEBHOOK_MAX_ATTEMPTS``,
    still ``pending`` with ``next_attempt_at`` after an exponential backoff of
    ``OKGIN_WEBHOOK_BACKOFF_SECONDS * 2 ** (attempts - 1)`` seconds; else ``failed``. Returns None
    when there was nothing to do (gone, claimed by another attempt, or no longer pending).
    A destination (host and port) gets at most ``OKGIN_WEBHOOK_PER_DESTINATION_PER_MINUTE`` POSTs
    a minute (``outbound.destination_wait``): beyond that nothing is POSTed or counted as an
    attempt, and the outcome is ``pending`` with ``retry_in`` the seconds until it may go.
    """
    return delivery_attempt(
        model=WebhookDelivery, delivery_id=delivery_id, statuses=(DeliveryStatus.PENDING,),
        select_related=("endpoint", "event"), claim=_claim, send=_post, lease_seconds=_lease_seconds(),
        max_attempts=settings.OKGIN_WEBHOOK_MAX_ATTEMPTS, backoff_seconds=settings.OKGIN_WEBHOOK_BACKOFF_SECONDS)
