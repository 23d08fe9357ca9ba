"""Reads of the event feed and webhooks; a player only ever reads their own."""
from __future__ import annotations

from django.db.models import QuerySet

from okgin_project.errors import NotFound
from players.models import Player

from .models import Event, WebhookDelivery, WebhookEndpoint


def events_list_for_player(*, player: Player) -> QuerySet[Event]:
    """``player``'s events (ordered and paged by the API layer)."""
    return Event.objects.filter(player=player)


def webhooks_list_for_player(*, player: Player) -> QuerySet[WebhookEndpoint]:
    """``player``'s webhook endpoints (ordered and paged by the API layer)."""
    return WebhookEndpoint.objects.filter(player=player)


def webhook_get_for_player(*, player: Player, webhook_id: int) -> WebhookEndpoint:
    """One of ``player``'s endpoints. Raises ``NotFound`` (also for another player's)."""
    endpoint = WebhookEndpoint.objects.filter(player=player, pk=webhook_id).first()
    if endpoint is None:
        raise NotFound("No such webhook.")
    return endpoint


def deliveries_list(*, endpoint: WebhookEndpoint, status: str | None) -> QuerySet[WebhookDelivery]:
    """The deliveries of ``endpoint`` (optionally of one ``status``; ordered and paged by the API layer)."""
    qs = WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event")
    if status:
        qs = qs.filter(status=status)
    return qs
