"""The JSON form of notification events, shared by the event feed and the webhook bodies."""
from __future__ import annotations

from okgin_project.timestamps import iso

from .models import Event


def event_dict(event: Event) -> dict:
    """The JSON form of an event, in the feed and as a webhook body:
    ``{"id": int, "kind": str, "game_id": int | None, "data": {...}, "created_at": ISO 8601}``."""
    return {
        "id": event.pk,
        "kind": event.kind,
        "game_id": event.game_id,
        "data": event.data,
        "created_at": iso(event.created_at),
    }


def attempts_dict(row) -> dict:
    """What a webhook delivery and a push show of their attempts (``models.Attempts``):
    ``{"id", "event_id", "event_kind", "status", "attempts", "last_error", "next_attempt_at",
    "delivered_at", "created_at"}`` (times ISO 8601 or None). ``row.event`` should be selected."""
    return {"id": row.pk, "event_id": row.event_id, "event_kind": row.event.kind, "status": row.status,
            "attempts": row.attempts, "last_error": row.last_error, "next_attempt_at": iso(row.next_attempt_at),
            "delivered_at": iso(row.delivered_at), "created_at": iso(row.created_at)}
