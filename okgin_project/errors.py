"""One error hierarchy and one exception handler: every API error has the same JSON shape.

Shape: ``{"error": {"code": str, "message": str, "rule"?: "R7.2", "detail"?: any}}``.
Codes are stable and machine readable (``not_your_turn``, ``illegal_action``, ``knock_over_limit``,
``stale_version``, ``not_found``, ``validation_error``...). Unknown exceptions are not swallowed:
they propagate (a 500 is a bug to fix, never an answer to bad input).
"""
from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf_exceptions
from rest_framework import status as http
from rest_framework.response import Response


class ServiceError(Exception):
    """A request the service refuses, with a stable ``code``, an HTTP ``status`` and maybe a ``rule``.

    Raised by services and selectors; rendered by :func:`exception_handler`. Messages must never
    quote hidden information (an opponent's cards, the stock, the deck).
    """

    code = "error"
    status = http.HTTP_400_BAD_REQUEST
    default_message = "The request was refused."

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


def error_body(code: str, message: str, *, rule: str | None = None, detail: Any = None) -> dict:
    """Build the one error shape ``{"error": {"code", "message", "rule"?, "detail"?}}``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if rule:
        error["rule"] = rule
    if detail is not None:
        error["detail"] = detail
    return {"error": error}


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


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF exception handler rendering every known error in the one JSON shape.

    SQLite's "database is locked" (the transaction rolled back) answers 503 ``busy`` with
    ``Retry-After``. Returns ``None`` (so the exception propagates) for anything unknown.
    """
    if database_busy(exc):
        return Response(busy_body(), status=http.HTTP_503_SERVICE_UNAVAILABLE,
                        headers={"Retry-After": str(BUSY_RETRY_AFTER_SECONDS)})
    if isinstance(exc, ServiceError):
        return Response(exc.to_dict(), status=exc.status)
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
        detail = exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        return Response(
            error_body("validation_error", "Invalid input.", detail=detail),
            status=http.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, drf_exceptions.ValidationError):
        return Response(
            error_body("validation_error", "Invalid input.", detail=exc.detail),
            status=exc.status_code,
        )
    if isinstance(exc, drf_exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        detail = exc.detail
        if isinstance(detail, (list, dict)):
            message, extra = str(exc.default_detail), detail
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


def json_404(request, exception=None) -> JsonResponse:
    """Django ``handler404``: the error shape for unknown URLs."""
    return JsonResponse(error_body("not_found", "Not found."), status=404)


def json_500(request) -> JsonResponse:
    """Django ``handler500``: the error shape, no details (a 500 is a bug, logged server-side)."""
    return JsonResponse(error_body("server_error", "Internal server error."), status=500)
