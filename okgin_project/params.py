"""Strict parsing of query parameters and headers (ASCII digits only: ``str.isdigit`` accepts
"²" and "٣", which ``int`` then refuses or misreads)."""
from __future__ import annotations

import re

from okgin_project.errors import ServiceError
from okgin_project.serializers import FIELD_REPEATED

_DIGITS = re.compile(r"[0-9]{1,10}")
# Printable ASCII, not starting or ending with a space (HTTP drops those: the key would change).
IDEMPOTENCY_KEY_PATTERN = r"[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?"
_IDEMPOTENCY_KEY = re.compile(IDEMPOTENCY_KEY_PATTERN)
INT_MAX = 2**31 - 1  # the largest value a PostgreSQL integer column holds


def int_query_param(request, name: str, *, default: int | None, minimum: int = 0,
                    maximum: int | None = None) -> int | None:
    """The query parameter ``name`` as an int (ASCII digits only) within ``minimum``..``maximum``
    (at most ``INT_MAX``), or ``default`` when absent. Raises ``ServiceError`` (400
    ``validation_error``) otherwise (an empty value too: it is not a number)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    top = INT_MAX if maximum is None else min(maximum, INT_MAX)
    if not _DIGITS.fullmatch(raw) or not minimum <= int(raw) <= top:
        raise ServiceError(f"{name} must be a whole number from {minimum} to {top}.", code="validation_error")
    return int(raw)


def choice_query_param(request, name: str, choices) -> str | None:
    """The query parameter ``name`` when it is one of ``choices``; None when absent or empty.
    Raises ``ServiceError`` (400 ``validation_error``) otherwise."""
    raw = request.query_params.get(name) or None
    if raw is not None and raw not in choices:
        raise ServiceError(f"{name} must be one of {', '.join(choices)}.", code="validation_error")
    return raw


def wait_query_param(request) -> int:
    """The long-poll ``wait`` query parameter: whole seconds from 0 to ``OKGIN_LIVE_WAIT_MAX`` (30),
    default 0 (answer at once). Raises ``ServiceError`` (400 ``validation_error``)."""
    from django.conf import settings

    return int_query_param(request, "wait", default=0, minimum=0, maximum=settings.OKGIN_LIVE_WAIT_MAX)


def idempotency_key_header(request) -> str | None:
    """The ``Idempotency-Key`` header: None when absent; else 1-200 printable ASCII characters
    (no space first or last),
    or ``ServiceError`` (400 ``validation_error``)."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise ServiceError("Idempotency-Key must be 1-200 printable ASCII characters, no space first or last.", code="validation_error")
    return key


def query_params_check(request, known) -> None:
    """400 ``validation_error`` when the query has a parameter not in ``known`` (field error
    ``unknown_field`` for each: a misspelt filter would otherwise be ignored, the whole list instead
    of what was asked), one given more than once (field error ``repeated``: ``?status=active&status=
    ended`` would be read as its last value) or an empty one (``?status=`` is neither a status nor no
    filter)."""
    unknown = sorted(k for k in request.query_params if k not in known)
    if unknown:
        raise ServiceError(f"Unknown query parameter(s): {', '.join(unknown)}.", code="validation_error",
                           detail={k: [{"code": "unknown_field", "message": "Unknown query parameter."}]
                                   for k in unknown})
    repeated = sorted(k for k in request.query_params if len(request.query_params.getlist(k)) > 1)
    if repeated:  # every parameter takes one value; the last of several would win silently
        raise ServiceError(f"Repeated query parameter(s): {', '.join(repeated)}.", code="validation_error",
                           detail={k: [{"code": FIELD_REPEATED, "message": "Give this parameter once."}]
                                   for k in repeated})
    empty = sorted(k for k, v in request.query_params.items() if v == "")
    if empty:
        raise ServiceError(f"Empty query parameter(s): {', '.join(empty)}.", code="validation_error")
