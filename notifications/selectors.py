"""Reads of the event feed and webhooks; a player only ever reads their own."""
from __future__ import annotations

from okgin_project.errors import NotFound
from players.models import Player

from .models import Event, WebhookDelivery, WebhookEndpoint


def events_list_for_player(*, player: Player, after: int | None, limit: int) -> tuple[list[Event], bool]:
    """``player``'s events in order, newest last, and whether more follow.

    With ``after`` (the cursor: the id of the last event the client has) the ``limit`` events
    following it; without, the latest ``limit`` events. Returns ``(events, has_more)``.
    """
    qs = Event.objects.filter(player=player)
    if after is None:
        rows = list(qs.order_by("-id")[:limit])
        rows.reverse()
        return rows, False
    rows = list(qs.filter(id__gt=after).order_by("id")[: limit + 1])
    return rows[:limit], len(rows) > limit


def webhooks_list_for_player(*, player: Player) -> list[WebhookEndpoint]:
    """``player``'s webhook endpoints, oldest first."""
    return list(WebhookEndpoint.objects.filter(player=player).order_by("id"))


def webhook_get_for_player(*, player: Player, webhook_id: int) -> WebhookEndpoint:
    """One of ``player``'s endpoints. Raises ``NotFound`` (also for another player's)."""
    endpoint = WebhookEndpoint.objects.filter(player=player, pk=webhook_id).first()
    if endpoint is None:
        raise NotFound("No such webhook.")
    return endpoint


def deliveries_list(*, endpoint: WebhookEndpoint, status: str | None, limit: int) -> list[WebhookDelivery]:
    """The latest ``limit`` deliveries of ``endpoint`` (optionally of one ``status``), newest first."""
    qs = WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event")
    if status:
        qs = qs.filter(status=status)
    return list(qs.order_by("-id")[:limit])
