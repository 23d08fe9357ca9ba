"""One attempt at sending something outward with retries: the bookkeeping that webhook deliveries
(``notifications.deliveries``) and pushes (``notifications.push_send``) share, on their common
columns (``models.Attempts``: ``attempts``, ``next_attempt_at``, ``lease_until``,
``delivered_at``, with ``status`` and ``last_error``).

No transaction or row lock is held while the receiver or provider is called: a short transaction
claims the row with a lease (a second copy of the task skips it: never two sends at once), the send
runs after commit, and a second short transaction records the outcome: ``delivered``; ``failed``
when the send says it is not worth retrying or after ``max_attempts``; else still ``pending`` with
``next_attempt_at`` after an exponential backoff of ``backoff_seconds * 2 ** (attempts - 1)``
seconds. A worker that dies mid-send leaves the lease to expire; the sweep retries then.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from django.db import models, transaction
from django.utils import timezone

logger = logging.getLogger(__name__)

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"  # the statuses both kinds of row share


@dataclass(frozen=True)
class AttemptOutcome:
    """What one attempt did: the row's ``status`` afterwards and, while it is still to be sent
    (pending, or held through quiet hours), ``retry_in`` seconds until the next attempt."""

    status: str
    retry_in: float | None = None


@dataclass(frozen=True)
class Send:
    """A claim's answer when there is something to send: ``what`` is handed to the send function
    after commit (read inside the claim's transaction)."""

    what: Any


@dataclass(frozen=True)
class SendResult:
    """What a send did: ``ok`` (accepted), else ``error`` (a short category stored in
    ``last_error``) and ``retry`` (worth another attempt); ``fields``: more columns to record
    (e.g. ``last_status_code``)."""

    ok: bool
    error: str = ""
    retry: bool = True
    fields: dict = field(default_factory=dict)


def delivery_attempt(
    *,
    model: type[models.Model],
    delivery_id: int,
    statuses: tuple[str, ...],
    select_related: tuple[str, ...],
    claim: Callable[[Any, datetime], "Send | AttemptOutcome | None"],
    send: Callable[[Any], SendResult],
    lease_seconds: float,
    max_attempts: int,
    backoff_seconds: float,
) -> AttemptOutcome | None:
    """Make one attempt at the row ``delivery_id`` of ``model`` (see the module doc).

    The row is taken (``SELECT ... FOR UPDATE SKIP LOCKED``) only while its status is one of
    ``statuses`` and no other attempt holds its lease; then ``claim(row, now)`` decides, inside
    that transaction: ``None`` (nothing to do), an ``AttemptOutcome`` (handled without sending:
    the claim saved the row, e.g. held for quiet hours or rate-limited), or ``Send(what)``: the
    row becomes ``pending`` under a lease of ``lease_seconds`` and ``send(what)`` runs after
    commit. Returns the outcome, or None when there was nothing to do or the row was deleted (or
    its lease taken over) during the send.
    """
    with transaction.atomic():
        row = (model.objects.select_for_update(skip_locked=True, of=("self",)).select_related(*select_related)
               .filter(pk=delivery_id).first())
        now = timezone.now()
        if row is None or row.status not in statuses:
            return None
        if row.lease_until is not None and row.lease_until > now:
            return None
        decision = claim(row, now)
        if not isinstance(decision, Send):
            return decision
        lease_until = now + timedelta(seconds=lease_seconds)
        row.status, row.lease_until = PENDING, lease_until
        row.save(update_fields=["status", "lease_until", "updated_at"])
    result = send(decision.what)  # committed: nothing locked while the other side answers
    with transaction.atomic():
        row = (model.objects.select_for_update(of=("self",))
               .filter(pk=delivery_id, status=PENDING, lease_until=lease_until).first())
        if row is None:
            return None
        now = timezone.now()
        row.lease_until = None
        row.attempts += 1
        row.last_error = result.error
        for name, value in result.fields.items():
            setattr(row, name, value)
        retry_in = None
        if result.ok:
            row.status, row.delivered_at, row.next_attempt_at = DELIVERED, now, None
        elif not result.retry or row.attempts >= max_attempts:
            row.status, row.next_attempt_at = FAILED, None
        else:
            retry_in = backoff_seconds * 2 ** (row.attempts - 1)
            row.next_attempt_at = now + timedelta(seconds=retry_in)
        row.save()
    if not result.ok:
        logger.info("%s %s attempt %s: %s", model._meta.model_name, delivery_id, row.attempts,
                    result.error or result.fields)
    return AttemptOutcome(row.status, retry_in)
