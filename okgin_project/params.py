"""Strict parsing of query parameters and headers (ASCII digits only: ``str.isdigit`` accepts
"²" and "٣", which ``int`` then refuses or misreads)."""
from __future__ import annotations

import re

from okgin_project.errors import ServiceError

_DIGITS = re.compile(r"[0-9]{1,10}")
_IDEMPOTENCY_KEY = re.compile(r"[\x20-\x7e]{1,200}")
INT_MAX = 2**31 - 1  # the largest value a PostgreSQL integer column holds


def int_query_param(request, name: str, *, default: int | None, minimum: int = 0,
                    maximum: int | None = None) -> int | None:
    """The query parameter ``name`` as an int (ASCII digits only) within ``minimum``..``maximum``
    (at most ``INT_MAX``), or ``default`` when absent or empty. Raises ``ServiceError`` (400
    ``validation_error``) otherwise."""
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    top = INT_MAX if maximum is None else min(maximum, INT_MAX)
    if not _DIGITS.fullmatch(raw) or not minimum <= int(raw) <= top:
        raise ServiceError(f"{name} must be a whole number from {minimum} to {top}.", code="validation_error")
    return int(raw)


def idempotency_key_header(request) -> str | None:
    """The ``Idempotency-Key`` header: None when absent; else 1-200 printable ASCII characters,
    or ``ServiceError`` (400 ``validation_error``)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise ServiceError("Idempotency-Key must be 1-200 printable ASCII characters.", code="validation_error")
    return key
