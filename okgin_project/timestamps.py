"""How the API writes a point in time: ISO 8601 in UTC with a ``Z`` suffix (``2026-12-01T04:25:51.123456Z``).

A leaf module (standard library only), so any layer can format times without importing another's
presenters."""
from __future__ import annotations

from datetime import datetime, timezone


def iso(value: datetime | None) -> str | None:
    """``value`` (an aware datetime) as ISO 8601 UTC with a ``Z`` suffix, or None for None."""
    if value is None:
        return None
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
