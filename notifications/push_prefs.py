"""Push preferences: which event kinds a player wants pushed, and quiet hours in the player's IANA
time zone (``Player.time_zone``) during which pushes are held (see ``notifications.push``)."""
from __future__ import annotations

from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from okgin_project.errors import ServiceError
from players.models import Player

from .models import EventKind, PushSettings, push_kinds_default

DEFAULT_KINDS = tuple(push_kinds_default())


# --- preferences -----------------------------------------------------------------------------


def push_settings_of(player: Player) -> PushSettings:
    """``player``'s push settings (unsaved defaults when never changed)."""
    found = PushSettings.objects.filter(player=player).first()
    return found or PushSettings(player=player, kinds=push_kinds_default())


def time_zone_check(name) -> str:
    """``name`` if it is an IANA time zone name known here, else ``ServiceError`` (400 ``bad_time_zone``)."""
    if not isinstance(name, str) or name not in zone_names():
        raise ServiceError("time_zone must be an IANA time zone name such as Europe/Paris.", code="bad_time_zone")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ServiceError("time_zone must be an IANA time zone name such as Europe/Paris.",
                           code="bad_time_zone") from None
    return name


_ZONES: set[str] | None = None


def zone_names() -> set[str]:
    """The IANA time zone names known here (the ``time_zone`` enum of the schema)."""
    global _ZONES
    if _ZONES is None:
        _ZONES = set(available_timezones()) | {"UTC"}
    return _ZONES


def quiet_hours_end(*, row: PushSettings, time_zone: str, now: datetime) -> datetime | None:
    """When the quiet hours that contain ``now`` end (UTC), or None if ``now`` is not in quiet
    hours. Quiet hours are wall-clock times in ``time_zone``; ``start > end`` spans midnight."""
    if row.quiet_start is None or row.quiet_end is None:
        return None
    try:
        zone = ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    local = now.astimezone(zone)
    t, start, end = local.timetz().replace(tzinfo=None), row.quiet_start, row.quiet_end
    if start < end:
        quiet, end_day = start <= t < end, local.date()
    else:
        quiet = t >= start or t < end
        end_day = local.date() if t < end else local.date() + timedelta(days=1)
    if not quiet:
        return None
    return datetime.combine(end_day, end, tzinfo=zone).astimezone(dt_timezone.utc)


def hold_until(*, row: PushSettings, time_zone: str, kind: str, now: datetime) -> datetime | None:
    """When a push of ``kind`` created at ``now`` may go out: the end of the quiet hours that
    contain ``now`` (UTC), or None to send it now (also ``deadline_near`` when the player opted in)."""
    if kind == EventKind.DEADLINE_NEAR and row.deadline_near_in_quiet_hours:
        return None
    return quiet_hours_end(row=row, time_zone=time_zone, now=now)


