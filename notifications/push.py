"""Push notifications to players' devices, sent with django-push-notifications (FCM for Android and
iOS, APNs, Web Push): devices, preferences and the delivery of each push.

Devices are the library's models (``GCMDevice`` with ``cloud_message_type="FCM"``, ``APNSDevice``,
``WebPushDevice``), owned by the player's user. A registration id is one device: registered by
another account it moves to that account (its undelivered pushes of the former owner are
dropped, ``device_moved``). In the API a device is ``"<platform>-<id>"`` (``fcm-3``).

Pushes ride the event pipeline of webhooks: ``events_create`` calls :func:`push_deliveries_create`
in the transaction of the change, which writes one ``PushDelivery`` per event of a pushed kind (the
player's ``PushSettings.kinds``, default your_turn, invitation_received, deadline_near,
match_over) and active device; after commit a Celery task sends it (:func:`push_delivery_attempt`)
with retries and exponential backoff. During the player's quiet hours (in their IANA time zone,
``Player.time_zone``) a push is ``held`` until the quiet hours end (``deadline_near`` too, unless
the player opted in), and sent then. When the provider answers that a token is invalid or
unregistered the library deactivates the device and the delivery fails with ``invalid_token``.

The payload carries no card: ``kind``, ``game_id``, ``event_id``, ``opponent`` (name),
``deadline`` (ISO 8601 or null) and a short ``text``.
"""
from __future__ import annotations

import base64
import re

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from okgin_project.errors import Conflict, NotFound, ServiceError
from players.authentication import auth_cache_forget
from players.models import Player

from .models import EventKind, PushDelivery, PushSettings, PushStatus
from .push_prefs import DEFAULT_KINDS, hold_until, push_settings_of, time_zone_check
from .queue import push_delivery_queue

PLATFORMS = ("fcm", "apns", "webpush")
WEBPUSH_BROWSERS = ("CHROME", "FIREFOX", "OPERA", "EDGE", "SAFARI")
_FCM_TOKEN = re.compile(r"[A-Za-z0-9_:.\-]{32,4096}")
_APNS_TOKEN = re.compile(r"(?:[0-9a-fA-F]{2}){32,100}")
_WEBPUSH_TOKEN = re.compile(r"[A-Za-z0-9_:.\-]{16,1000}")
_B64URL = re.compile(r"[A-Za-z0-9_\-]+=*")


def _device_models() -> dict:
    from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice

    return {"fcm": GCMDevice, "apns": APNSDevice, "webpush": WebPushDevice}


DEVICE_REF_PATTERN = r"^(fcm|apns|webpush)-[0-9]{1,18}$"  # device_ref's form


def device_ref(platform: str, device) -> str:
    """The API id of a device: ``"<platform>-<pk>"``."""
    return f"{platform}-{device.pk}"


# --- devices ---------------------------------------------------------------------------------


def _b64url_len(value: str) -> int | None:
    if not isinstance(value, str) or not _B64URL.fullmatch(value):
        return None
    try:
        return len(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except ValueError:
        return None


def _validate(platform: str, registration_id: str, keys: dict | None, browser: str | None) -> None:
    if platform not in PLATFORMS:
        raise ServiceError(f"Unknown platform; choose one of {', '.join(PLATFORMS)}.", code="bad_platform")
    pattern = {"fcm": _FCM_TOKEN, "apns": _APNS_TOKEN, "webpush": _WEBPUSH_TOKEN}[platform]
    if not isinstance(registration_id, str) or not pattern.fullmatch(registration_id):
        what = {"fcm": "an FCM registration token", "apns": "an APNs device token (hex)",
                "webpush": "the subscription's token (the last part of its endpoint)"}[platform]
        raise ServiceError(f"registration_id is not {what}.", code="bad_registration_id")
    if platform == "webpush":
        keys = keys or {}
        if _b64url_len(keys.get("p256dh")) != 65 or _b64url_len(keys.get("auth")) != 16:
            raise ServiceError("A Web Push device needs keys.p256dh (65-byte P-256 point) and keys.auth "
                               "(16 bytes), base64url.", code="validation_error")
        if browser is not None and browser not in WEBPUSH_BROWSERS:
            raise ServiceError(f"browser must be one of {', '.join(WEBPUSH_BROWSERS)}.", code="validation_error")
    elif keys or browser:
        raise ServiceError("keys and browser are for Web Push devices only.", code="validation_error")


def _undelivered_drop(*, platform: str, device, reason: str) -> int:
    """Fail the device's pending and held pushes (``reason``); returns how many."""
    return PushDelivery.objects.filter(
        **{f"{platform}_device": device}, status__in=(PushStatus.PENDING, PushStatus.HELD)
    ).update(status=PushStatus.FAILED, last_error=reason, next_attempt_at=None, updated_at=timezone.now())


def device_register(*, player: Player, platform: str, registration_id: str, name: str = "",
                    keys: dict | None = None, browser: str | None = None) -> tuple[str, object, bool]:
    """Register ``player``'s device (``platform``: fcm, apns or webpush; Web Push also needs the
    subscription's ``keys`` {p256dh, auth} and optionally ``browser``, default CHROME).

    The same registration id already registered (by anyone) is that device (an APNs token in any
    letter case: it is hex, stored in lower case): it is updated,
    reactivated and, if another account had it, moved to ``player`` (its undelivered pushes are
    dropped). Returns ``(platform, device, created)``. Raises ``ServiceError`` (400
    ``bad_platform``, ``bad_registration_id``, ``validation_error``), ``Conflict`` (409
    ``too_many_devices``: ``OKGIN_PUSH_DEVICES_PER_PLAYER``, for a new device and for one moving
    from another account alike). Nothing is written when it raises.
    """
    with transaction.atomic():
        _validate(platform, registration_id, keys, browser)
        if platform == "apns":
            registration_id = registration_id.lower()  # hex: "AB.." and "ab.." are one device
        model = _device_models()[platform]
        Player.objects.select_for_update().filter(pk=player.pk).first()  # serializes the count check
        lookup = {"registration_id": registration_id}
        if platform == "fcm":
            lookup["cloud_message_type"] = "FCM"
        device = model.objects.select_for_update().filter(**lookup).order_by("pk").first()
        extra = ({"p256dh": keys["p256dh"], "auth": keys["auth"], "browser": browser or "CHROME"}
                 if platform == "webpush" else {})
        mine = device is not None and device.user_id == player.user_id
        if not mine and devices_count(player=player) >= settings.OKGIN_PUSH_DEVICES_PER_PLAYER:
            # a new device, or one moving here from another account: either adds one to the count
            raise Conflict("You have registered the maximum number of devices.", code="too_many_devices")
        if device is not None:
            if not mine:
                _undelivered_drop(platform=platform, device=device, reason="device_moved")
                device.user_id = player.user_id
            device.name = name or device.name
            device.active = True
            for field, value in extra.items():
                setattr(device, field, value)
            device.save()
            return platform, device, False
        device = model.objects.create(user_id=player.user_id, name=name, active=True, **lookup, **extra)
        return platform, device, True


def devices_count(*, player: Player) -> int:
    return sum(m.objects.filter(user_id=player.user_id).count() for m in _device_models().values())


def devices_list(*, player: Player) -> list[tuple[str, object]]:
    """``[(platform, device)]`` of ``player``, oldest first."""
    out = []
    for platform, model in _device_models().items():
        out += [(platform, d) for d in model.objects.filter(user_id=player.user_id)]
    return sorted(out, key=lambda pd: (pd[1].date_created, pd[0], pd[1].pk))


def device_get(*, player: Player, ref: str) -> tuple[str, object]:
    """``player``'s device named ``ref`` (``"<platform>-<id>"``). Raises ``NotFound``."""
    platform, _, pk = str(ref).partition("-")
    if platform not in PLATFORMS or not pk.isascii() or not pk.isdigit() or len(pk) > 18:
        raise NotFound("No such device.")
    device = _device_models()[platform].objects.filter(user_id=player.user_id, pk=int(pk)).first()
    if device is None:
        raise NotFound("No such device.")
    return platform, device


def device_remove(*, player: Player, ref: str) -> None:
    """Remove ``player``'s device ``ref`` (with its delivery records). Raises ``NotFound``."""
    with transaction.atomic():
        _platform, device = device_get(player=player, ref=ref)
        device.delete()


_UNSET = object()


def push_settings_update(*, player: Player, kinds=None, time_zone=None, quiet_hours=_UNSET,
                         deadline_near_in_quiet_hours=None) -> PushSettings:
    """Change what is given: ``kinds`` (event kinds pushed), ``time_zone`` (IANA name, stored on
    the player), ``quiet_hours`` (``{"start": time, "end": time}`` in that zone, or None for none;
    may span midnight), ``deadline_near_in_quiet_hours`` (bool). Raises ``ServiceError`` (400
    ``bad_time_zone``, ``validation_error``: unknown kind, start equal to end)."""
    with transaction.atomic():
        row = PushSettings.objects.select_for_update().filter(player=player).first() or push_settings_of(player)
        if kinds is not None:
            unknown = sorted(set(kinds) - set(EventKind.values))
            if unknown:
                raise ServiceError(f"Unknown event kind(s): {', '.join(unknown)}.", code="validation_error")
            row.kinds = [k for k in EventKind.values if k in set(kinds)]
        if time_zone is not None:
            player.time_zone = time_zone_check(time_zone)
            Player.objects.filter(pk=player.pk).update(time_zone=player.time_zone)
            auth_cache_forget(player.user_id)  # the next request reads the player again
        if quiet_hours is not _UNSET:
            if quiet_hours is None:
                row.quiet_start = row.quiet_end = None
            else:
                if quiet_hours["start"] == quiet_hours["end"]:
                    raise ServiceError("Quiet hours must start and end at different times.", code="validation_error")
                row.quiet_start, row.quiet_end = quiet_hours["start"], quiet_hours["end"]
        if deadline_near_in_quiet_hours is not None:
            row.deadline_near_in_quiet_hours = deadline_near_in_quiet_hours
        row.save()
        return row


# --- deliveries ------------------------------------------------------------------------------


def active_devices_select(user_ids) -> tuple[list[str], list]:
    """The SELECTs of ``(platform, device id, user id)`` of the active devices of ``user_ids``, one
    per device table (platforms: the keys of ``_device_models``), and their parameters, to be run
    joined by ``UNION ALL`` (``events_create`` adds its webhook endpoints to the same statement).
    Written as SQL: it runs in the transaction of every action that notifies a person, and the ORM's union of three annotated querysets cost about 1.5 ms of CPU
    to compile each time (issue 14), ten times what the query itself costs. The same SQL runs on
    PostgreSQL and SQLite. ``user_ids`` must not be empty (``IN ()`` is not SQL)."""
    ids = sorted(user_ids)
    assert ids, "active_devices_select needs at least one user id"
    qn, marks = connection.ops.quote_name, ", ".join(["%s"] * len(ids))
    parts, params = [], []
    for platform, model in _device_models().items():  # platform: one of our constants, no quote inside
        user, active = (qn(model._meta.get_field(name).column) for name in ("user", "active"))
        parts.append(f"SELECT '{platform}', {qn(model._meta.pk.column)}, {user} FROM {qn(model._meta.db_table)}"
                     f" WHERE {active} AND {user} IN ({marks})")
        params += ids
    return parts, params


def push_deliveries_create(*, events, devices: list[tuple[str, int, int]]) -> list[PushDelivery]:
    """In the transaction of the change: one delivery per event of a pushed kind (the player's
    ``PushSettings.kinds``, default ``DEFAULT_KINDS``) and active device of its player, ``held``
    until the end of quiet hours or ``pending``; each is queued after commit (a held one with its
    delay when the hold ends within ``OKGIN_PUSH_QUEUE_HOLD_MAX_SECONDS``, else the sweep sends
    it). ``events``: created ``Event`` rows with ``player`` set. ``devices``: the active devices
    ``(platform, device id, user id)`` of the events' users, as the caller read them
    (``active_devices_select``, in ``events_create``'s one statement with the webhook endpoints).
    No query when none of the players has an active device; else 2 (settings, insert)."""
    events = [e for e in events if e.player is not None and e.player.user_id is not None]
    if not events or not devices:
        return []
    with_devices = {user_id for _platform, _pk, user_id in devices}
    events = [e for e in events if e.player.user_id in with_devices]
    rows = {r.player_id: r for r in PushSettings.objects.filter(player_id__in={e.player_id for e in events})}
    now = timezone.now()
    out = []
    for e in events:
        row = rows.get(e.player_id) or PushSettings(kinds=list(DEFAULT_KINDS))
        if e.kind not in row.kinds:
            continue
        hold = hold_until(row=row, time_zone=e.player.time_zone, kind=e.kind, now=now)
        for platform, pk, user_id in devices:
            if user_id == e.player.user_id:
                out.append(PushDelivery(
                    event=e, player_id=e.player_id, platform=platform, **{f"{platform}_device_id": pk},
                    status=PushStatus.HELD if hold else PushStatus.PENDING, next_attempt_at=hold,
                ))
    if out:
        PushDelivery.objects.bulk_create(out)
        for d in out:
            delay = (d.next_attempt_at - now).total_seconds() if d.next_attempt_at else 0.0
            if delay <= settings.OKGIN_PUSH_QUEUE_HOLD_MAX_SECONDS:
                push_delivery_queue(delivery_id=d.pk, delay=delay)
    return out
