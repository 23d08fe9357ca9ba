"""Per-player event feed and optional webhooks.

An ``Event`` is written in the same transaction as the change it reports (a move, a round's end,
an invitation, a timeout...), so the feed never mentions a change that was rolled back, and never
misses one that was committed. Its ``data`` is built from the engine's redacted events for the
recipient's seat: it never carries an opponent's hidden cards or the stock.

A ``WebhookEndpoint`` is a URL a player registered; every event of that player gets one
``WebhookDelivery`` row (created with the event) that a Celery task POSTs after commit, with
retries and exponential backoff. The delivery row is the visible status of that work.
"""
from django.db import models
from django.db.models import Q

from players.models import Player


class EventKind(models.TextChoices):
    YOUR_TURN = "your_turn", "it is your turn"
    OPPONENT_MOVED = "opponent_moved", "your opponent played an action"
    ROUND_OVER = "round_over", "a round ended (with its result)"
    MATCH_OVER = "match_over", "the match ended"
    INVITATION_RECEIVED = "invitation_received", "you were invited to a game"
    INVITATION_ACCEPTED = "invitation_accepted", "your invitation or challenge was accepted"
    INVITATION_DECLINED = "invitation_declined", "your invitation was declined"
    DEADLINE_NEAR = "deadline_near", "80% of your time for this turn has passed"
    TIMEOUT = "timeout", "a player ran out of time"


class Event(models.Model):
    """Something that happened that ``player`` should learn about. ``id`` is the feed's cursor
    (increasing); ``data`` is JSON without hidden information (see ``notifications.services``)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=32, choices=EventKind.choices)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["player", "id"], name="event_player_cursor")]

    def __str__(self) -> str:
        return f"Event {self.pk} {self.kind} for {self.player_id}"


class WebhookEndpoint(models.Model):
    """A URL where ``player``'s events are POSTed, signed with ``secret`` (HMAC-SHA256).

    The secret is returned once, when the endpoint is created.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=100, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "url"], name="webhook_unique_url")]

    def __str__(self) -> str:
        return f"Webhook {self.pk} of {self.player_id}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "waiting to be sent or retried"
    DELIVERED = "delivered", "the receiver answered 2xx"
    FAILED = "failed", "gave up after the last attempt"


class WebhookDelivery(models.Model):
    """One event to one endpoint: ``status``, ``attempts`` so far, the last HTTP status code or
    error, and when the next attempt is due (``next_attempt_at``, while pending)."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # While an attempt is POSTing (outside any transaction): no other attempt starts before this.
    lease_until = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="delivery_unique_event"),
        ]
        indexes = [
            models.Index(fields=["endpoint", "-id"], name="delivery_endpoint_recent"),
            models.Index(fields=["next_attempt_at"], name="delivery_pending_due",
                         condition=Q(status="pending")),
        ]

    def __str__(self) -> str:
        return f"Delivery {self.pk} ({self.status})"
