"""Input validation and OpenAPI shapes of the event feed and webhooks (no logic here)."""
from rest_framework import serializers

from .models import DeliveryStatus, EventKind


class NotificationSerializer(serializers.Serializer):
    """A notification. ``data`` by ``kind`` (never an opponent's hidden cards):
    your_turn ``{version, turn_deadline}``; opponent_moved ``{version, seat, action, events}``
    (engine events redacted for you); round_over ``{round, outcome, winner_seat, points, scores,
    result}``; match_over ``{winner_seat, you_won, end_reason, scores}``; invitation_received /
    accepted / declined ``{by}``; deadline_near ``{version, turn_deadline, seconds_left}``;
    timeout ``{seat, policy, result: "forfeit" | "auto_played", auto_played_turns, auto_play_limit}``.
    """

    id = serializers.IntegerField(help_text="Increasing; use the last one you have as ?after=.")
    kind = serializers.ChoiceField(choices=EventKind.choices)
    game_id = serializers.IntegerField(allow_null=True)
    data = serializers.JSONField()
    created_at = serializers.DateTimeField()


class NotificationPageSerializer(serializers.Serializer):
    results = NotificationSerializer(many=True, help_text="Oldest first, newest last.")
    cursor = serializers.IntegerField(
        allow_null=True, help_text="Pass as ?after= to get what follows (the last event's id)."
    )
    has_more = serializers.BooleanField(help_text="More events follow the cursor already.")


class WebhookCreateInputSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=500, help_text="http(s) URL that receives each event as a POST.")


class WebhookSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    created_at = serializers.DateTimeField()


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="Shown this once. Each POST carries X-Okgin-Signature: sha256=<hex HMAC-SHA256 of "
        "the raw body, keyed with this secret's UTF-8 bytes>."
    )


class DeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Also sent as the X-Okgin-Delivery header (deduplicate on it).")
    event_id = serializers.IntegerField()
    event_kind = serializers.ChoiceField(choices=EventKind.choices)
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField(allow_blank=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
