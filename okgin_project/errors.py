"""One error hierarchy and one exception handler: every API error has the same JSON shape.

Shape: ``{"error": {"code": str, "message": str, "rule"?: "R7.2", "detail"?: any}}``.
Codes are stable and machine readable (``not_your_turn``, ``illegal_action``, ``knock_over_limit``,
``stale_version``, ``not_found``, ``validation_error``...). Unknown exceptions are not swallowed:
they propagate (a 500 is a bug to fix, never an answer to bad input).
"""
from __future__ import annotations

import logging
import sys
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions as drf_exceptions
from rest_framework import status as http
from rest_framework.response import Response

from okgin_project.error_codes import ERROR_CODES

logger = logging.getLogger("okgin.api")


class ServiceError(Exception):
    """A request the service refuses, with a stable ``code``, an HTTP ``status`` and maybe a ``rule``.

    Raised by services and selectors; rendered by :func:`exception_handler`. Messages must never
    quote hidden information (an opponent's cards, the stock, the deck).
    """

    code = "error"
    status = http.HTTP_400_BAD_REQUEST
    default_message = "The request was refused."
    retry_after: int | None = None  # seconds, sent as Retry-After (503 answers)

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        status: int | None = None,
        rule: str | None = None,
        detail: Any = None,
    ) -> None:
        self.message = message or self.default_message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.rule = rule
        self.detail = detail
        super().__init__(self.message)

    def to_dict(self) -> dict[str, Any]:
        """The ``{"error": {...}}`` body of this error."""
        return error_body(self.code, self.message, rule=self.rule, detail=self.detail)


class NotFound(ServiceError):
    """The object does not exist or the player may not see it (404 ``not_found``)."""

    code = "not_found"
    status = http.HTTP_404_NOT_FOUND
    default_message = "Not found."


class Conflict(ServiceError):
    """The request does not fit the current state of the object (409)."""

    code = "conflict"
    status = http.HTTP_409_CONFLICT


class StaleVersion(Conflict):
    """The client acted on an old version of the game (409 ``stale_version``); nothing was written."""

    code = "stale_version"
    default_message = "The game has changed since the version you acted on; reload it."


class Forbidden(ServiceError):
    """The player is authenticated but may not do this (403 ``permission_denied``)."""

    code = "permission_denied"
    status = http.HTTP_403_FORBIDDEN
    default_message = "You may not do this."


class CompactJsonResponse(JsonResponse):
    """``JsonResponse`` written as DRF's renderer writes JSON (no spaces after ``,`` and ``:``), so
    an error answered outside DRF (an unknown URL, a middleware's refusal, a 500 or 503) has the
    same bytes as one answered by a view."""

    def __init__(self, data, **kwargs):
        kwargs.setdefault("json_dumps_params", {"separators": (",", ":")})
        super().__init__(data, **kwargs)


def error_body(code: str, message: str, *, rule: str | None = None, detail: Any = None) -> dict:
    """Build the one error shape ``{"error": {"code", "message", "rule"?, "detail"?}}``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if rule:
        error["rule"] = rule
    if detail is not None:
        error["detail"] = detail
    return {"error": error}


def field_errors(detail: Any, prefix: str = "") -> dict[str, list[dict[str, str]]]:
    """DRF validation errors (nested dicts and lists of ``ErrorDetail``) as the flat map of the
    schema's ``FieldErrors``: dotted field path (list items by index; ``non_field_errors`` for the
    body) to ``[{"code", "message"}]``."""
    out: dict[str, list[dict[str, str]]] = {}

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}" if path else str(key))
        elif isinstance(node, list) and node and all(isinstance(x, str) for x in node):
            out.setdefault(path or "non_field_errors", []).extend(
                {"code": str(getattr(x, "code", None) or "invalid"), "message": str(x)} for x in node)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                if value:  # DRF leaves {} / [] for list items without errors
                    walk(value, f"{path}.{i}" if path else str(i))
        elif node is not None:
            out.setdefault(path or "non_field_errors", []).append(
                {"code": str(getattr(node, "code", None) or "invalid"), "message": str(node)})

    walk(detail, prefix)
    return out


# Engine error codes that are not rule violations of a well-formed action.
_ENGINE_STATUS = {
    "not_your_turn": http.HTTP_409_CONFLICT,
    "wrong_phase": http.HTTP_409_CONFLICT,
    "malformed_action": http.HTTP_400_BAD_REQUEST,
    "bad_card": http.HTTP_400_BAD_REQUEST,
    "bad_rules": http.HTTP_400_BAD_REQUEST,
}


def _engine_error_response(exc: Exception) -> Response | None:
    try:
        from games.engine import CardParseError, EngineError, RuleSetError
    except ImportError:  # pragma: no cover - engine not importable
        return None
    if not isinstance(exc, (EngineError, CardParseError, RuleSetError)):
        return None
    code = getattr(exc, "code", None) or "illegal_action"
    message = getattr(exc, "message", None) or str(exc)
    rule = getattr(exc, "rule", None)
    status = _ENGINE_STATUS.get(code, http.HTTP_422_UNPROCESSABLE_ENTITY)
    return Response(error_body(code, message, rule=rule), status=status)


_DRF_MESSAGES = {
    "not_authenticated": "Authentication credentials were not provided.",
}


BUSY_RETRY_AFTER_SECONDS = 1


def database_busy(exc: BaseException) -> bool:
    """True for SQLite's "database is locked" (the embedded default's write lock timed out)."""
    from django.db import OperationalError

    return isinstance(exc, OperationalError) and "database is locked" in str(exc)


def busy_body() -> dict:
    """Body of the 503 ``busy`` answer (sent with ``Retry-After``)."""
    return error_body("busy", "The server is busy; retry the request shortly. Nothing was changed.")


DATABASE_RETRY_AFTER_SECONDS = 3


def database_unavailable(exc: BaseException) -> bool:
    """True for a database error that means "cannot reach the database now" (server down or
    restarting, connection refused or lost): Django's ``OperationalError`` and ``InterfaceError``,
    except SQLite's lock timeout (:func:`database_busy`)."""
    from django.db import InterfaceError, OperationalError

    return isinstance(exc, (OperationalError, InterfaceError)) and not database_busy(exc)


def unavailable_body() -> dict:
    """Body of the 503 ``database_unavailable`` answer (sent with ``Retry-After``)."""
    return error_body("database_unavailable",
                      "The database is unreachable; retry the request shortly. Nothing was changed.")


def retryable_error(exc: BaseException) -> tuple[dict, str] | None:
    """``(body, Retry-After seconds)`` of the 503 answer for a dependency outage (``busy``,
    ``database_unavailable``), or None when ``exc`` is not one. The transaction of the request
    was rolled back, so a retry is safe (and an action with its ``Idempotency-Key`` is never
    applied twice)."""
    if database_busy(exc):
        return busy_body(), str(BUSY_RETRY_AFTER_SECONDS)
    if database_unavailable(exc):
        logger.warning("database unavailable: %s: %s", type(exc).__name__, exc)
        return unavailable_body(), str(DATABASE_RETRY_AFTER_SECONDS)
    return None


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF exception handler rendering every known error in the one JSON shape.

    SQLite's "database is locked" (the transaction rolled back) answers 503 ``busy``, a database
    that cannot be reached 503 ``database_unavailable``, both with ``Retry-After``. Returns
    ``None`` (so the exception propagates) for anything unknown.
    """
    retryable = retryable_error(exc)
    if retryable is not None:
        body, retry_after = retryable
        return Response(body, status=http.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": retry_after})
    if isinstance(exc, ServiceError):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        return Response(exc.to_dict(), status=exc.status, headers=headers)
    from django.db import DataError

    if isinstance(exc, DataError):  # a value the database cannot hold (NUL, out of range)
        return Response(error_body("validation_error", "Invalid input."), status=http.HTTP_400_BAD_REQUEST)
    engine_response = _engine_error_response(exc)
    if engine_response is not None:
        return engine_response
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "Not found."), status=http.HTTP_404_NOT_FOUND)
    if isinstance(exc, DjangoPermissionDenied):
        return Response(
            error_body("permission_denied", "You may not do this."), status=http.HTTP_403_FORBIDDEN
        )
    if isinstance(exc, DjangoValidationError):
        def details(errors):
            return [drf_exceptions.ErrorDetail(m, code=e.code or "invalid") for e in errors for m in e.messages]

        if hasattr(exc, "error_dict"):
            detail = {name: details(errors) for name, errors in exc.error_dict.items()}
        else:
            detail = details(exc.error_list)
        return Response(
            error_body("validation_error", "Invalid input.", detail=field_errors(detail)),
            status=http.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, drf_exceptions.ValidationError):
        return Response(
            error_body("validation_error", "Invalid input.", detail=field_errors(exc.detail)),
            status=exc.status_code,
        )
    if isinstance(exc, drf_exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        detail = exc.detail
        if isinstance(detail, dict) and "code" in detail and "detail" in detail:
            # simplejwt's errors: {"detail", "code", "messages"?}: its code is the precise one when
            # listed (clients rely on the list), else the exception's own (authentication_failed).
            code, message, extra = str(detail["code"]), str(detail["detail"]), None
            if code not in ERROR_CODES:
                code = str(exc.default_code)
        elif isinstance(detail, (list, dict)):
            message, extra = str(exc.default_detail), field_errors(detail)
        else:
            message, extra = str(detail), None
        headers = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
        return Response(
            error_body(str(code), message, detail=extra), status=exc.status_code, headers=headers
        )
    return None


@csrf_exempt
def json_404(request, exception=None) -> CompactJsonResponse:
    """Django ``handler404`` and every unknown URL under ``/api/``: 404 in the error shape, for any
    method (exempt from CSRF, which would otherwise answer an unknown POST with 403)."""
    return CompactJsonResponse(error_body("not_found", "Not found."), status=404)


def json_500(request) -> CompactJsonResponse:
    """Django ``handler500``: the error shape, no details (a 500 is a bug, logged server-side).

    Django calls it while handling the exception, so a database outage met outside a view (in a
    middleware, the session, the admin) still answers 503 ``database_unavailable``."""
    retryable = retryable_error(sys.exc_info()[1])
    if retryable is not None:
        response = CompactJsonResponse(retryable[0], status=503)
        response["Retry-After"] = retryable[1]
        return response
    return CompactJsonResponse(error_body("server_error", "Internal server error."), status=500)
