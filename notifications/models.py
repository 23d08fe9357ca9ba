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
    INVITATION_WITHDRAWN = "invitation_withdrawn", "the invitation to you was withdrawn"
    INVITATION_EXPIRED = "invitation_expired", "an invitation or challenge expired unanswered"
    DEADLINE_NEAR = "deadline_near", "80% of your time for this turn has passed"
    TIMEOUT = "timeout", "a player ran out of time"
    REMATCH_OFFERED = "rematch_offered", "your opponent offers a rematch"
    REMATCH_ACCEPTED = "rematch_accepted", "your rematch offer was accepted (the new game started)"
    REMATCH_DECLINED = "rematch_declined", "your rematch offer was declined"
    VACATION_STARTED = "vacation_started", "your opponent went on vacation: the game's clocks are paused"
    VACATION_ENDED = "vacation_ended", "your opponent's vacation ended (or ran out)"


class Event(models.Model):
    """Something that happened that ``player`` should learn about. ``id`` is the feed's cursor
    (increasing); ``data`` is JSON without hidden information (see ``notifications.services``)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="events",
                               db_index=False)  # leads event_player_cursor
    kind = models.CharField(max_length=32, choices=EventKind.choices)
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["player", "id"], name="event_player_cursor"),
                   models.Index(fields=["created_at"], name="event_created")]

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


class Attempts(models.Model):
    """What webhook deliveries and pushes record of their attempts: how many so far, when the next
    is due, the lease of the attempt in flight (sent outside any transaction: no other attempt
    starts before it ends), and when it was delivered."""

    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class WebhookDelivery(Attempts):
    """One event to one endpoint: ``status``, ``attempts`` so far, the last HTTP status code or
    error, and when the next attempt is due (``next_attempt_at``, while pending)."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="delivery_unique_event"),
        ]
        indexes = [
            models.Index(fields=["created_at"], name="delivery_created"),
            models.Index(fields=["endpoint", "-id"], name="delivery_endpoint_recent"),
            models.Index(fields=["next_attempt_at"], name="delivery_pending_due",
                         condition=Q(status="pending")),
        ]

    def __str__(self) -> str:
        return f"Delivery {self.pk} ({self.status})"


# --- push notifications ----------------------------------------------------------------------


class PushStatus(models.TextChoices):
    PENDING = "pending", "waiting to be sent or retried"
    HELD = "held", "held until the player's quiet hours end"
    DELIVERED = "delivered", "the push provider accepted it"
    FAILED = "failed", "gave up: invalid token, inactive or moved device, provider not configured, or attempts used up"


def push_kinds_default() -> list[str]:
    """The event kinds pushed unless the player chooses others."""
    return [EventKind.YOUR_TURN.value, EventKind.MATCH_OVER.value, EventKind.INVITATION_RECEIVED.value,
            EventKind.DEADLINE_NEAR.value]


class PushSettings(models.Model):
    """A player's push preferences (absent: the defaults). ``kinds``: event kinds pushed.
    ``quiet_start``/``quiet_end``: wall-clock times in the player's time zone (``Player.time_zone``)
    between which pushes are held (may span midnight; both None: no quiet hours).
    ``deadline_near_in_quiet_hours``: push ``deadline_near`` even then."""

    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="push_settings")
    kinds = models.JSONField(default=push_kinds_default)
    quiet_start = models.TimeField(null=True, blank=True)
    quiet_end = models.TimeField(null=True, blank=True)
    deadline_near_in_quiet_hours = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="push_quiet_hours_both_or_none",
                condition=Q(quiet_start__isnull=True, quiet_end__isnull=True)
                | Q(quiet_start__isnull=False, quiet_end__isnull=False),
            ),
        ]


class PushDelivery(Attempts):
    """One event pushed to one device (exactly one of the three device columns, by ``platform``):
    ``status``, ``attempts`` so far, the last error category, and when the next attempt is due
    (``next_attempt_at``: the retry after a backoff, or the end of quiet hours while ``held``)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="push_deliveries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    platform = models.CharField(max_length=8)
    fcm_device = models.ForeignKey("push_notifications.GCMDevice", on_delete=models.CASCADE, null=True,
                                   blank=True, related_name="+")
    apns_device = models.ForeignKey("push_notifications.APNSDevice", on_delete=models.CASCADE, null=True,
                                    blank=True, related_name="+")
    webpush_device = models.ForeignKey("push_notifications.WebPushDevice", on_delete=models.CASCADE, null=True,
                                       blank=True, related_name="+")
    status = models.CharField(max_length=16, choices=PushStatus.choices, default=PushStatus.PENDING)
    last_error = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="push_delivery_one_device",
                condition=Q(platform="fcm", fcm_device__isnull=False, apns_device__isnull=True,
                            webpush_device__isnull=True)
                | Q(platform="apns", fcm_device__isnull=True, apns_device__isnull=False, webpush_device__isnull=True)
                | Q(platform="webpush", fcm_device__isnull=True, apns_device__isnull=True,
                    webpush_device__isnull=False),
            ),
        ]
        indexes = [
            models.Index(fields=["next_attempt_at"], name="push_delivery_due",
                         condition=Q(status__in=("pending", "held"))),
        ]

    def __str__(self) -> str:
        return f"Push {self.pk} ({self.status})"

    @property
    def device(self):
        """The device this push goes to (a django-push-notifications model instance)."""
        return getattr(self, f"{self.platform}_device")
