"""gunicorn settings of okgin's web processes: ``gunicorn -c python:okgin_project.gunicorn_conf
okgin_project.wsgi`` (the Docker image's command).

Environment: ``HOST`` (default ``0.0.0.0``) and ``PORT`` (default 8000) to bind;
``WEB_CONCURRENCY`` worker processes (default 3; scale further by running more containers), each
with ``GUNICORN_THREADS`` threads (default 128); ``GUNICORN_TIMEOUT`` seconds before a silent
worker is restarted (default 60, more than the longest long-poll); ``LOG_FORMAT``
(``json``, the default, or ``text``) and ``LOG_LEVEL`` for gunicorn's own lines, which use the
same format as Django's (``okgin_project.logs``). Requests are logged by Django
(``okgin.request``, with the request id), so gunicorn's access log stays off.

Worker class ``gthread``: a long-polling request (``?wait=``, up to 30 s) sleeps on a
``threading.Condition`` (``notifications.live``) holding one thread and no database connection,
so each process lets over a hundred clients wait while play goes on (``benchmarks/longpoll.py``).
Chosen over ``gevent``: no monkey-patching of psycopg, Redis, Celery's client or the standard
library, and the same code runs threaded under ``runserver`` in the embedded default. Sync workers
would be held by the first waiting clients.
"""
import logging
import os

from gunicorn.glogging import Logger as _GunicornLogger

from okgin_project.logs import logging_config

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
worker_class = "gthread"
threads = int(os.environ.get("GUNICORN_THREADS", "128"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
keepalive = 35  # seconds: a client that long-polls again reuses its connection
graceful_timeout = 20
accesslog = None
logger_class = "okgin_project.gunicorn_conf.Logger"
logconfig_dict = logging_config(
    os.environ.get("LOG_FORMAT", "json"),
    os.environ.get("LOG_LEVEL", "INFO"),
    extra_loggers={
        "gunicorn.error": {"level": os.environ.get("LOG_LEVEL", "INFO"), "handlers": ["console"], "propagate": False},
        # off: Django logs each request once (okgin.request), with its id; probes are not logged
        "gunicorn.access": {"level": "WARNING", "handlers": ["console"], "propagate": False},
    },
)


def post_worker_init(worker) -> None:
    """gunicorn's hook, in each worker process once the WSGI application is loaded: the URLconf is
    imported and the start-up objects frozen out of the garbage collector's full passes
    (``okgin_project.warm``)."""
    from okgin_project.warm import freeze_startup_objects

    freeze_startup_objects(load_urls=True)


class Logger(_GunicornLogger):
    """gunicorn's logger, except that a request's access line is built only when the
    ``gunicorn.access`` logger would emit it (INFO enabled). gunicorn builds it for every request
    once a ``logconfig_dict`` is set, though the level above drops it: about 3% of a web process's
    CPU under load (py-spy, ``benchmarks/load.py``)."""

    def access(self, resp, req, environ, request_time) -> None:
        """gunicorn's access line (see ``gunicorn.glogging.Logger.access``) when INFO is enabled
        on ``gunicorn.access``; nothing otherwise."""
        if self.access_log.isEnabledFor(logging.INFO):
            super().access(resp, req, environ, request_time)
