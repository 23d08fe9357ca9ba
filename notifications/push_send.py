"""Sending one push through django-push-notifications (Web Push, FCM, APNs) and recording the
outcome on its ``PushDelivery`` (see ``notifications.push`` for the pipeline)."""
from __future__ import annotations

import json
import logging
import re
from datetime import timedelta

from django.conf import settings

from .attempts import AttemptOutcome, Send, SendResult, delivery_attempt
from .models import EventKind, PushDelivery, PushStatus
from .push_prefs import hold_until, push_settings_of

logger = logging.getLogger(__name__)


def push_payload(delivery: PushDelivery) -> dict:
    """What a device is sent for ``delivery``'s event: ``kind``, ``game_id``, ``event_id``,
    ``opponent`` (the other seat's name, or who invited), ``deadline`` (ISO 8601 or None) and a
    short ``text``. Built from public facts only: never a card."""
    event = delivery.event
    data = event.data or {}
    opponent = data.get("by")
    game = event.game
    if opponent is None and game is not None:
        for me, other in ((game.player0_id, game.player1), (game.player1_id, game.player0)):
            if me == event.player_id and other is not None:
                opponent = other.name
    opponent = opponent or "your opponent"
    deadline = data.get("turn_deadline")
    texts = {
        EventKind.YOUR_TURN: f"Your turn against {opponent}.",
        EventKind.OPPONENT_MOVED: f"{opponent} played.",
        EventKind.ROUND_OVER: f"A round against {opponent} is over.",
        EventKind.MATCH_OVER: (f"You won the match against {opponent}." if data.get("you_won")
                               else f"The match against {opponent} is over."),
        EventKind.INVITATION_RECEIVED: f"{opponent} invites you to a game of gin.",
        EventKind.INVITATION_ACCEPTED: f"{opponent} accepted your invitation.",
        EventKind.INVITATION_DECLINED: f"{opponent} declined your invitation.",
        EventKind.INVITATION_WITHDRAWN: f"{opponent} withdrew the invitation.",
        EventKind.INVITATION_EXPIRED: f"The invitation with {opponent} expired.",
        EventKind.DEADLINE_NEAR: f"Your time against {opponent} is running out.",
        EventKind.TIMEOUT: f"Time ran out in your game against {opponent}.",
        EventKind.VACATION_STARTED: f"{opponent} is on vacation: your game's clocks are paused.",
        EventKind.VACATION_ENDED: f"{opponent} is back from vacation.",
    }
    return {"kind": event.kind, "game_id": event.game_id, "event_id": event.pk, "opponent": opponent,
            "deadline": deadline, "text": texts.get(event.kind, "Something happened in your game.")}


def _lease_seconds() -> float:
    return 2 * settings.OKGIN_PUSH_TIMEOUT_SECONDS + 30.0


def _claim(delivery: PushDelivery, now) -> Send | AttemptOutcome | None:
    if delivery.next_attempt_at is not None and delivery.next_attempt_at > now + timedelta(seconds=1):
        return None  # early copy (e.g. the sweep and the delayed task): its own turn will come
    hold = hold_until(row=push_settings_of(delivery.player), time_zone=delivery.player.time_zone,
                      kind=delivery.event.kind, now=now)
    if hold is not None:
        delivery.status, delivery.next_attempt_at = PushStatus.HELD, hold
        delivery.save(update_fields=["status", "next_attempt_at", "updated_at"])
        return AttemptOutcome(PushStatus.HELD, (hold - now).total_seconds())
    device = delivery.device
    if not device.active:
        delivery.status, delivery.last_error, delivery.next_attempt_at = PushStatus.FAILED, "device_inactive", None
        delivery.save(update_fields=["status", "last_error", "next_attempt_at", "updated_at"])
        return AttemptOutcome(PushStatus.FAILED)
    return Send((delivery.platform, device, push_payload(delivery)))


def _push(what) -> SendResult:
    error, retry = _send(*what)
    return SendResult(ok=not error, error=error, retry=retry)


def push_delivery_attempt(*, delivery_id: int) -> AttemptOutcome | None:
    """Send a due push once through django-push-notifications and record the result.

    Like webhook deliveries (``notifications.attempts.delivery_attempt``), no transaction or lock
    is held while the provider is called: a short transaction claims the push (``lease_until``)
    and, if the player's quiet hours hold it now, marks it ``held`` until they end instead; the
    send runs after commit; a second transaction records the outcome: ``delivered``; ``failed``
    for an invalid or unregistered token (the library deactivated the device: ``invalid_token``),
    an inactive device, a provider that is not configured, or after ``OKGIN_PUSH_MAX_ATTEMPTS``;
    else still ``pending`` after an exponential backoff of ``OKGIN_PUSH_BACKOFF_SECONDS * 2 **
    (attempts - 1)`` seconds. Returns None when there was nothing to do (gone, claimed by another
    attempt, done, or not due yet).
    """
    return delivery_attempt(
        model=PushDelivery, delivery_id=delivery_id, statuses=(PushStatus.PENDING, PushStatus.HELD),
        select_related=("event", "event__game__player0", "event__game__player1", "player",
                        "fcm_device", "apns_device", "webpush_device"),
        claim=_claim, send=_push, lease_seconds=_lease_seconds(),
        max_attempts=settings.OKGIN_PUSH_MAX_ATTEMPTS, backoff_seconds=settings.OKGIN_PUSH_BACKOFF_SECONDS)


def _send(platform: str, device, payload: dict) -> tuple[str, bool]:
    """Send ``payload`` to ``device`` with the library. Returns ``(error, retryable)``: ``("",
    False)`` when the provider accepted it; an error category otherwise."""
    import requests

    try:
        if platform == "webpush":
            return _send_webpush(device, payload)
        if platform == "fcm":
            return _send_fcm(device, payload)
        return _send_apns(device, payload)
    except requests.Timeout:
        return "timeout", True
    except requests.ConnectionError:
        return "connection_failed", True
    except (ImportError, ValueError) as exc:  # the provider's credentials are not configured here
        logger.warning("push via %s not possible: %s", platform, exc)
        return "provider_not_configured", False


def _status_of(message: str) -> int | None:
    found = re.search(r"\b([1-5][0-9]{2})\b", message or "")
    return int(found.group(1)) if found else None


def _send_webpush(device, payload: dict) -> tuple[str, bool]:
    from push_notifications.exceptions import WebPushError

    try:
        result = device.send_message(json.dumps(payload, separators=(",", ":")),
                                     ttl=settings.OKGIN_PUSH_TTL_SECONDS)
    except WebPushError as exc:
        status = _status_of(str(exc))
        return (f"http_{status}" if status else "provider_error"), status is None or status >= 500 or status == 429
    if result.get("success"):
        return "", False
    if not device.active:  # 404/410: the library deactivated the device
        return "invalid_token", False
    return "provider_error", True


def _send_fcm(device, payload: dict) -> tuple[str, bool]:
    from firebase_admin import exceptions as fb

    try:
        response = device.send_message(payload["text"], extra={k: str(v) for k, v in payload.items()
                                                              if v is not None and k != "text"})
    except fb.FirebaseError as exc:
        return f"fcm_{exc.code}", isinstance(exc, (fb.UnavailableError, fb.InternalError, fb.DeadlineExceededError))
    sent = response.responses[0] if response and response.responses else None
    if sent is not None and sent.success:
        return "", False
    device.refresh_from_db(fields=["active"])
    if not device.active:
        return "invalid_token", False
    code = getattr(getattr(sent, "exception", None), "code", "error")
    return f"fcm_{code}", code in ("UNAVAILABLE", "INTERNAL", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED")


APNS_RETRYABLE = ("InternalServerError", "ServiceUnavailable", "TooManyRequests", "Shutdown", "IdleTimeout")
# What django-push-notifications (3.3) reports in place of Apple's reason when the request did not get
# an answer: no answer within its 1 s, or any exception of aioapns (connection refused, reset, TLS).
APNS_NO_ANSWER = ("TimeoutError", "CommunicationError")


def _send_apns(device, payload: dict) -> tuple[str, bool]:
    from django.core.exceptions import ImproperlyConfigured
    from push_notifications.exceptions import APNSError, APNSServerError

    try:
        device.send_message(payload["text"], extra={k: v for k, v in payload.items() if k != "text"})
    except ImproperlyConfigured as exc:
        raise ValueError(str(exc)) from exc
    except APNSServerError:  # aioapns could not connect
        return "connection_failed", True
    except APNSError as exc:  # "... with errors: <reason>": Apple's reason code, or no answer
        described = str(exc).partition(" with errors: ")[2]
        if described.startswith(APNS_NO_ANSWER):  # APNs not reached, or silent: try again later
            return "connection_failed", True
        device.refresh_from_db(fields=["active"])
        if not device.active:  # Unregistered, BadDeviceToken, DeviceTokenNotForTopic
            return "invalid_token", False
        reason = described.strip() or "error"
        return f"apns_{reason}"[:100], reason in APNS_RETRYABLE
    except OSError:  # refused, reset, TLS handshake: aioapns lets these through
        return "connection_failed", True
    device.refresh_from_db(fields=["active"])
    return ("", False) if device.active else ("invalid_token", False)
