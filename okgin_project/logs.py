"""Structured logs: one JSON object a line (``LOG_FORMAT=json``, the production default) or plain
text, from web (Django under gunicorn) and worker alike, each record carrying the request, game
and task it belongs to.

- :class:`RequestContextMiddleware` gives every HTTP request an id (the client's ``X-Request-ID``
  when it is a plausible id, else a new one), answers it in the ``X-Request-ID`` header, notes the
  game of ``/api/v1/games/<game_id>/...`` URLs, and logs one ``okgin.request`` line per request
  (method, path, status, duration in milliseconds).
- Celery signals (connected in ``okgin_project.celery``): a task's id and the ``game_id`` of its
  keyword arguments are set while it runs; the request id of the web request that queued it
  travels in a message header (``okgin_request_id``), so a worker's lines name the request too.
- :class:`ContextFilter` (on every handler of :func:`logging_config`) copies the three ids onto
  each record: ``request_id``, ``game_id``, ``task_id`` (``null`` where there is none).
"""
from __future__ import annotations

import contextvars
import logging
import re
import time
import uuid

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("okgin_request_id", default=None)
game_id_var: contextvars.ContextVar[int | None] = contextvars.ContextVar("okgin_game_id", default=None)
task_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("okgin_task_id", default=None)

REQUEST_ID_HEADER = "okgin_request_id"  # Celery message header carrying the web request's id
_PLAUSIBLE_ID = re.compile(r"^[A-Za-z0-9._:-]{8,128}$")
_CONTEXT_FIELDS = ("request_id", "game_id", "task_id")
_JSON_FIELDS = ["asctime", "levelname", "name", "message", "process", *_CONTEXT_FIELDS]
_TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [request=%(request_id)s game=%(game_id)s task=%(task_id)s] %(message)s"

request_logger = logging.getLogger("okgin.request")


class ContextFilter(logging.Filter):
    """Adds ``request_id``, ``game_id`` and ``task_id`` of the current context to each record (a
    value the record already has, from ``extra=``, wins). Never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        for field, var in zip(_CONTEXT_FIELDS, (request_id_var, game_id_var, task_id_var)):
            if getattr(record, field, None) is None:
                setattr(record, field, var.get())
        return True


def logging_config(fmt: str = "text", level: str = "INFO", *, extra_loggers: dict | None = None) -> dict:
    """A ``logging.config.dictConfig`` dictionary: one console handler on stderr for the root logger,
    JSON (``fmt="json"``: keys ``time``, ``level``, ``logger``, ``message``, ``process``,
    ``request_id``, ``game_id``, ``task_id`` and any ``extra=`` fields) or text (``fmt="text"``).
    ``extra_loggers`` adds named loggers (gunicorn's). Raises ``ValueError`` for another ``fmt``."""
    if fmt == "json":
        formatter = {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": _JSON_FIELDS,
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        }
    elif fmt == "text":
        formatter = {"format": _TEXT_FORMAT}
    else:
        raise ValueError(f"LOG_FORMAT must be 'json' or 'text', not {fmt!r}")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "okgin_project.logs.ContextFilter"}},
        "formatters": {"okgin": formatter},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "okgin", "filters": ["context"]},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": dict(extra_loggers or {}),
    }


class RequestContextMiddleware:
    """Request id and game id for the logs of one request, and one ``okgin.request`` line for it
    (fields ``method``, ``path``, ``status``, ``duration_ms``). The id is answered in the
    ``X-Request-ID`` response header."""

    def __init__(self, get_response):
        from django.core.signals import request_finished

        self.get_response = get_response
        request_finished.connect(clear_request_context, dispatch_uid="okgin.logs.clear_request_context")

    def __call__(self, request):
        offered = request.headers.get("X-Request-ID", "")
        request_id = offered if _PLAUSIBLE_ID.match(offered) else uuid.uuid4().hex
        request.request_id = request_id
        # Kept until the request finishes (clear_request_context), so Django's own lines about
        # this request (django.request, logged after the middleware) name it too.
        request_id_var.set(request_id)
        game_id_var.set(None)
        started = time.monotonic()
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        request_logger.info(
            "%s %s %s", request.method, request.path, response.status_code,
            extra={"method": request.method, "path": request.path, "status": response.status_code,
                   "duration_ms": round((time.monotonic() - started) * 1000, 1)},
        )
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        if isinstance(view_kwargs.get("game_id"), int):
            game_id_var.set(view_kwargs["game_id"])
        return None


def clear_request_context(**kwargs) -> None:
    """``request_finished`` receiver: the request and game ids no longer apply."""
    request_id_var.set(None)
    game_id_var.set(None)


# --- Celery signal receivers (connected in okgin_project.celery) -------------------------------
task_logger = logging.getLogger("okgin.tasks")
_task_tokens: dict[str, tuple] = {}
_task_started: dict[str, float] = {}


def on_before_task_publish(headers=None, **kwargs) -> None:
    """Puts the current request id into the message headers of a task being queued."""
    if headers is not None and request_id_var.get() is not None:
        headers[REQUEST_ID_HEADER] = request_id_var.get()


def on_task_prerun(task_id=None, task=None, kwargs=None, **_) -> None:
    """Sets the task id, its ``game_id`` argument and the request id that queued it, and logs the
    start of the task."""
    game_id = (kwargs or {}).get("game_id")
    request_id = getattr(task.request, REQUEST_ID_HEADER, None) if task is not None else None
    _task_tokens[task_id] = (
        task_id_var.set(task_id),
        game_id_var.set(game_id if isinstance(game_id, int) else None),
        request_id_var.set(request_id or request_id_var.get()),
    )
    _task_started[task_id] = time.monotonic()
    task_logger.info("task %s started", getattr(task, "name", "?"), extra={"task": getattr(task, "name", None)})


def on_task_postrun(task_id=None, task=None, state=None, **_) -> None:
    """Logs the end of the task (``state``, ``duration_ms``) and restores the context before it."""
    started = _task_started.pop(task_id, None)
    task_logger.info(
        "task %s finished: %s", getattr(task, "name", "?"), state,
        extra={"task": getattr(task, "name", None), "state": state,
               "duration_ms": None if started is None else round((time.monotonic() - started) * 1000, 1)},
    )
    tokens = _task_tokens.pop(task_id, None)
    for var, token in zip((task_id_var, game_id_var, request_id_var), tokens or ()):
        try:
            var.reset(token)
        except ValueError:  # set in another context (cannot happen in a worker); just clear it
            var.set(None)
