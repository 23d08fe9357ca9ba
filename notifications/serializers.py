"""Input validation and OpenAPI shapes of the event feed and webhooks (no logic here)."""
from django.conf import settings
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from games.models import EndReason, RoundOutcome, TimeoutPolicy
from games.serializers import ActionField, GameEventField, RoundResultSerializer
from okgin_project.pagination import page_serializer
from okgin_project.serializers import (StrictBooleanField, StrictCharField, StrictChoiceField, StrictRegexField, StrictSerializer,
                                       WebhookUrlField)

from .models import DeliveryStatus, EventKind, PushStatus
from .push import WEBPUSH_BROWSERS
from .push_prefs import zone_names


class _NotificationBase(serializers.Serializer):
    id = serializers.IntegerField(help_text="Increasing with time.")
    game_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()


def _notification(kind: str, data: type[serializers.Serializer], doc: str) -> type[serializers.Serializer]:
    """The serializer of the notifications of one ``kind`` (named ``<Kind>Notification``)."""
    name = "".join(part.title() for part in kind.split("_")) + "Notification"
    fields = {"kind": serializers.ChoiceField(choices=[(kind, kind)]), "data": data()}
    return type(name, (_NotificationBase,), {**fields, "__doc__": doc, "__module__": __name__})


class YourTurnData(serializers.Serializer):
    version = serializers.IntegerField()
    turn_deadline = serializers.DateTimeField(allow_null=True, help_text="When your time runs out (null: no limit).")


class OpponentMovedData(serializers.Serializer):
    version = serializers.IntegerField()
    seat = serializers.IntegerField(help_text="The seat that played.")
    action = ActionField(help_text="What your opponent played (a knock's melds left out: see the round's result).")
    events = serializers.ListField(child=GameEventField(), help_text="What the action caused, redacted for you.")


class RoundOverData(serializers.Serializer):
    version = serializers.IntegerField()
    round = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=RoundOutcome.choices)
    winner_seat = serializers.IntegerField(allow_null=True, help_text="null for a wall.")
    points = serializers.IntegerField()
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="Points per seat after the round.")
    result = RoundResultSerializer()


class MatchOverData(serializers.Serializer):
    version = serializers.IntegerField()
    winner_seat = serializers.IntegerField(allow_null=True)
    you_won = serializers.BooleanField()
    end_reason = serializers.ChoiceField(choices=EndReason.choices)
    scores = serializers.ListField(child=serializers.IntegerField())


class InvitationData(serializers.Serializer):
    version = serializers.IntegerField()
    by = serializers.CharField(help_text="The other player's name.")


class InvitationEndedData(serializers.Serializer):
    version = serializers.IntegerField()
    by = serializers.CharField(allow_null=True, help_text="The other player's name (null: an open challenge "
                               "nobody accepted).")


class DeadlineNearData(serializers.Serializer):
    version = serializers.IntegerField()
    turn_deadline = serializers.DateTimeField()
    seconds_left = serializers.IntegerField()


class TimeoutData(serializers.Serializer):
    version = serializers.IntegerField()
    seat = serializers.IntegerField(help_text="The seat that ran out of time.")
    policy = serializers.ChoiceField(choices=TimeoutPolicy.choices)
    result = serializers.ChoiceField(choices=("forfeit", "auto_played"))
    auto_played_turns = serializers.IntegerField()
    auto_play_limit = serializers.IntegerField()


class RematchData(serializers.Serializer):
    version = serializers.IntegerField(help_text="The finished game's version.")
    by = serializers.CharField(help_text="The other player's name.")
    rematch_game_id = serializers.IntegerField(allow_null=True, help_text="The new game (accepted only).")


class VacationData(serializers.Serializer):
    version = serializers.IntegerField(help_text="The game's version after the pause or resume.")
    by = serializers.CharField(help_text="The player whose vacation started or ended.")
    paused_until = serializers.DateTimeField(
        allow_null=True, help_text="When the game's clocks restart at the latest (null: running again).")
    turn_deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the player to act runs out of time (null while paused or without a clock).")
    reason = serializers.ChoiceField(choices=("started", "ended", "ran_out"),
                                     help_text="started; ended (turned off); ran_out (no vacation days left).")


NOTIFICATION_SERIALIZERS = {
    EventKind.YOUR_TURN: _notification("your_turn", YourTurnData, "It is your turn."),
    EventKind.OPPONENT_MOVED: _notification("opponent_moved", OpponentMovedData, "Your opponent played."),
    EventKind.ROUND_OVER: _notification("round_over", RoundOverData, "A round ended (full result)."),
    EventKind.MATCH_OVER: _notification("match_over", MatchOverData, "The match ended."),
    EventKind.INVITATION_RECEIVED: _notification("invitation_received", InvitationData, "You were invited."),
    EventKind.INVITATION_ACCEPTED: _notification("invitation_accepted", InvitationData,
                                                 "Your invitation or challenge was accepted."),
    EventKind.INVITATION_DECLINED: _notification("invitation_declined", InvitationData,
                                                 "Your invitation was declined."),
    EventKind.INVITATION_WITHDRAWN: _notification("invitation_withdrawn", InvitationEndedData,
                                                  "The invitation to you was withdrawn (the game is aborted)."),
    EventKind.INVITATION_EXPIRED: _notification("invitation_expired", InvitationEndedData,
                                                "An invitation (yours or to you) or your open challenge expired "
                                                "unanswered (the game is aborted)."),
    EventKind.DEADLINE_NEAR: _notification("deadline_near", DeadlineNearData, "80% of your turn's time has passed."),
    EventKind.TIMEOUT: _notification("timeout", TimeoutData, "A player ran out of time."),
    EventKind.REMATCH_OFFERED: _notification("rematch_offered", RematchData, "Your opponent offers a rematch."),
    EventKind.REMATCH_ACCEPTED: _notification("rematch_accepted", RematchData,
                                              "Your rematch offer was accepted; the new game has started."),
    EventKind.REMATCH_DECLINED: _notification("rematch_declined", RematchData, "Your rematch offer was declined."),
    EventKind.VACATION_STARTED: _notification("vacation_started", VacationData,
                                              "Your opponent went on vacation: the game's clocks are paused."),
    EventKind.VACATION_ENDED: _notification("vacation_ended", VacationData,
                                            "Your opponent's vacation ended or ran out; the clocks run again "
                                            "unless you are on vacation too."),
}
assert set(NOTIFICATION_SERIALIZERS) == set(EventKind.values) == set(settings.OKGIN_EVENT_KINDS), \
    "a notification kind has no schema or no enum name (settings.OKGIN_EVENT_KINDS)"


@extend_schema_field(PolymorphicProxySerializer(
    component_name="Notification", serializers={str(k): v for k, v in NOTIFICATION_SERIALIZERS.items()},
    resource_type_field_name="kind",
))
class NotificationField(serializers.JSONField):
    """Output only: a notification, ``data`` typed by ``kind`` (``oneOf`` with a discriminator)."""


NotificationPageSerializer = page_serializer("NotificationPage", NotificationField())


class WebhookCreateInputSerializer(StrictSerializer):
    url = WebhookUrlField(max_length=500, help_text="http(s) URL that receives each event as a POST; "
                          "a malformed one: 400 bad_url.")


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


# --- push notifications ----------------------------------------------------------------------


class WebPushKeysSerializer(StrictSerializer):
    p256dh = StrictCharField(max_length=200, help_text="The subscription's P-256 public key, base64url.")
    auth = StrictCharField(max_length=100, help_text="The subscription's 16-byte auth secret, base64url.")


class DeviceRegisterInputSerializer(StrictSerializer):
    """Validation of a device registration (the service checks each platform's token form); the
    schema is the ``oneOf`` of the three platforms below."""

    platform = StrictCharField(max_length=20, help_text="fcm (Android and iOS through Firebase), apns or webpush.")
    registration_id = StrictCharField(
        max_length=4096, help_text="FCM registration token, APNs device token (hex), or for Web Push the "
        "subscription's token (the last part of its endpoint URL).")
    name = StrictCharField(max_length=255, required=False, allow_blank=True, default="")
    keys = WebPushKeysSerializer(required=False, help_text="Web Push only: the subscription's keys.")
    browser = StrictCharField(max_length=10, required=False,
                              help_text="Web Push only: CHROME (default), FIREFOX, OPERA, EDGE or SAFARI.")


def _device_input(platform: str, token_pattern: str, token_help: str, **extra) -> type[serializers.Serializer]:
    """The schema of one platform's registration (named ``<Platform>DeviceRegisterInput``)."""
    name = {"fcm": "Fcm", "apns": "Apns", "webpush": "WebPush"}[platform] + "DeviceRegisterInput"
    fields = {
        "platform": StrictChoiceField(choices=[platform]),
        "registration_id": StrictRegexField(token_pattern, help_text=token_help),
        "name": StrictCharField(max_length=255, required=False, allow_blank=True, help_text="Your label."),
        **extra,
    }
    return type(name, (StrictSerializer,), {**fields, "__module__": __name__,
                                            "__doc__": f"A {platform} device to register."})


class WebPushKeysInputSerializer(StrictSerializer):
    p256dh = StrictRegexField(r"^[A-Za-z0-9_-]{87}=?$", help_text="The subscription's P-256 public key (65 "
                              "bytes), base64url.")
    auth = StrictRegexField(r"^[A-Za-z0-9_-]{22}(==)?$", help_text="The subscription's auth secret (16 bytes), "
                            "base64url.")


DEVICE_REGISTER_SCHEMA = PolymorphicProxySerializer(
    component_name="DeviceRegisterInput", resource_type_field_name="platform", serializers={
        "fcm": _device_input("fcm", r"^[A-Za-z0-9_:.\-]{32,4096}$", "The FCM registration token."),
        "apns": _device_input("apns", r"^(?:[0-9a-fA-F]{2}){32,100}$", "The APNs device token (hex)."),
        "webpush": _device_input(
            "webpush", r"^[A-Za-z0-9_:.\-]{16,1000}$", "The subscription's token (the last part of its endpoint).",
            keys=WebPushKeysInputSerializer(help_text="The subscription's keys."),
            browser=StrictChoiceField(choices=WEBPUSH_BROWSERS, required=False, help_text="Default CHROME.")),
    })


class DeviceSerializer(serializers.Serializer):
    id = serializers.CharField(help_text='"<platform>-<number>", e.g. "fcm-3".')
    platform = serializers.ChoiceField(choices=("fcm", "apns", "webpush"))
    registration_id = serializers.CharField()
    name = serializers.CharField(allow_blank=True)
    active = serializers.BooleanField(help_text="False once the provider answered that the token is invalid.")
    created_at = serializers.DateTimeField()


# A local time of day as written: "HH:MM" or "HH:MM:SS", no fraction and no offset (the time zone is
# the settings' time_zone; an offset here was dropped silently).
LOCAL_TIME_FORMATS = ["%H:%M", "%H:%M:%S"]


class QuietHoursSerializer(StrictSerializer):
    start = serializers.TimeField(input_formats=LOCAL_TIME_FORMATS,
                                  help_text='Local time in your time_zone, "HH:MM" (or "HH:MM:SS").')
    end = serializers.TimeField(input_formats=LOCAL_TIME_FORMATS,
                                help_text="Local time; earlier than start means the quiet hours span midnight.")


ZONES = sorted(zone_names())


@extend_schema_field({"type": "string", "enum": ZONES,
                      "description": "IANA time zone name, e.g. Europe/Paris; another: 400 bad_time_zone."})
class TimeZoneField(StrictCharField):
    """An IANA time zone name (checked by the service: ``bad_time_zone``)."""


@extend_schema_field({"type": "string", "enum": list(EventKind.values)})
class KindInputField(StrictCharField):
    """An event kind (checked by the service)."""


class PushSettingsSerializer(serializers.Serializer):
    kinds = serializers.ListField(child=serializers.ChoiceField(choices=EventKind.choices))
    time_zone = TimeZoneField()
    quiet_hours = QuietHoursSerializer(allow_null=True)
    deadline_near_in_quiet_hours = serializers.BooleanField()


class PushSettingsUpdateInputSerializer(StrictSerializer):
    kinds = serializers.ListField(child=KindInputField(max_length=32), required=False, max_length=20,
                                  help_text="Event kinds to push.")
    time_zone = TimeZoneField(max_length=64, required=False)
    quiet_hours = QuietHoursSerializer(allow_null=True, required=False,
                                       help_text="Pushes are held between these local times; null: none.")
    deadline_near_in_quiet_hours = StrictBooleanField(required=False)


class PushDeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event_id = serializers.IntegerField()
    event_kind = serializers.ChoiceField(choices=EventKind.choices)
    status = serializers.ChoiceField(choices=PushStatus.choices)
    attempts = serializers.IntegerField()
    last_error = serializers.CharField(allow_blank=True, help_text="invalid_token, device_inactive, "
                                       "device_moved, provider_not_configured, timeout, connection_failed, http_<status>...")
    next_attempt_at = serializers.DateTimeField(allow_null=True, help_text="The next attempt, or the end of quiet hours while held.")
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
