"""Every answer under ``/api/`` has the one JSON error shape, with DEBUG on or off.

``ApiErrorsMiddleware`` (first in ``MIDDLEWARE``): refuses a path or query string with control
characters (NUL...) with 400 ``validation_error`` and a body announced larger than
``OKGIN_MAX_BODY_BYTES`` with 413 ``payload_too_large`` before any view runs (PostgreSQL cannot compare
them); turns an exception that escaped a view into JSON (503 ``busy`` for SQLite's "database is
locked", 400 ``validation_error`` for a database ``DataError``, else a logged 500
``server_error`` without details); and replaces any non-JSON error page (Django's 400/403/413/500
pages, DEBUG's technical pages) by the JSON shape of its status.
"""
from __future__ import annotations

import logging
import re

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import DataError

from okgin_project.errors import CompactJsonResponse, error_body, retryable_error

logger = logging.getLogger("okgin.api")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_BY_STATUS = {
    400: ("bad_request", "Bad request."),
    401: ("not_authenticated", "Authentication credentials were not provided."),
    403: ("permission_denied", "You may not do this."),
    404: ("not_found", "Not found."),
    405: ("method_not_allowed", "Method not allowed."),
    413: ("payload_too_large", "The request body is too large."),
    415: ("unsupported_media_type", "Send JSON (Content-Type: application/json)."),
    429: ("throttled", "Too many requests."),
    503: ("busy", "The server is busy; retry shortly."),
}


def _is_api(request) -> bool:
    return request.path_info.startswith("/api/")


class ApiErrorsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not _is_api(request):
            return self.get_response(request)
        if _CONTROL.search(request.path_info) or _CONTROL.search(request.META.get("QUERY_STRING", "")) or any(
            _CONTROL.search(v) for values in request.GET.lists() for v in values[1]
        ):
            return CompactJsonResponse(error_body("validation_error", "Control characters are not allowed in the URL."),
                                status=400)
        try:
            too_large = int(request.META.get("CONTENT_LENGTH") or 0) > settings.OKGIN_MAX_BODY_BYTES
        except ValueError:
            too_large = False
        if too_large:
            return CompactJsonResponse(error_body("payload_too_large", "The request body is larger than "
                                           f"{settings.OKGIN_MAX_BODY_BYTES} bytes."), status=413)
        response = self.get_response(request)
        if response.status_code >= 400 and not response.get("Content-Type", "").startswith("application/json"):
            code, message = _BY_STATUS.get(response.status_code, ("server_error", "Internal server error."))
            replacement = CompactJsonResponse(error_body(code, message), status=response.status_code)
            for header in ("Retry-After", "Allow", "WWW-Authenticate"):
                if header in response:
                    replacement[header] = response[header]
            return replacement
        return response

    def process_exception(self, request, exception):
        if not _is_api(request):
            return None
        retryable = retryable_error(exception)
        if retryable is not None:
            response = CompactJsonResponse(retryable[0], status=503)
            response["Retry-After"] = retryable[1]
            return response
        if isinstance(exception, RequestDataTooBig):
            return CompactJsonResponse(error_body(*_BY_STATUS[413]), status=413)
        if isinstance(exception, DataError):
            return CompactJsonResponse(error_body("validation_error", "Invalid input."), status=400)
        logger.error("unhandled error on %s %s", request.method, request.path, exc_info=exception)
        return CompactJsonResponse(error_body("server_error", "Internal server error."), status=500)
