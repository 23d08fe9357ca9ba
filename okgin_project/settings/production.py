"""Production settings: every secret comes from the environment; no default secret key.

Raises ``django.core.exceptions.ImproperlyConfigured`` at start-up when ``SECRET_KEY`` is missing.
PostgreSQL connections come from a psycopg pool per process of at most ``DB_POOL_MAX_SIZE``
connections (default 16: gunicorn's gthread workers run many threads); ``DB_POOL_MAX_SIZE=0``: one
persistent connection per thread for ``CONN_MAX_AGE`` seconds instead.
"""
import logging

from django.core.exceptions import ImproperlyConfigured

from okgin_project.logs import logging_config

from .base import *  # noqa: F401,F403
from .base import LOG_LEVEL, env

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set in the environment for production.")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
SECURE_CONTENT_TYPE_NOSNIFF = True
if "CACHE_URL" not in env.ENVIRON:  # throttle counts shared by every web process
    # Short socket timeouts: an unreachable Redis costs a request at most a second before the rate
    # limits fall back to process memory (okgin_project.throttling).
    # okgin_project.cache.RedisCache: Django's, reusing one redis-py client per connection pool.
    CACHES = {"default": {"BACKEND": "okgin_project.cache.RedisCache",
                          "LOCATION": REDIS_URL,  # noqa: F405
                          "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}}}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.int("DB_POOL_MAX_SIZE", default=16):  # noqa: F405
    # gunicorn's gthread workers run up to 128 requests per process on threads: a process-wide
    # psycopg pool (not one persistent connection per thread) keeps PostgreSQL's connections at
    # DB_POOL_MAX_SIZE per process; a long-polling request returns its connection while it waits.
    # After a PostgreSQL restart the pool replaces all its dead idle connections at the first
    # failed check (okgin_project.db.postgresql), and a reconnection that keeps failing is given up
    # after DB_POOL_RECONNECT_TIMEOUT seconds, so that the next request starts a new one at once:
    # psycopg_pool's default (300 s, retrying after 1, 2, 4, 8, 16... s) left requests waiting for a
    # retry scheduled up to as long after the restart as the outage itself had lasted.
    DATABASES["default"]["ENGINE"] = "okgin_project.db.postgresql"  # noqa: F405
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405 (pooling replaces persistent connections)
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {  # noqa: F405
        "min_size": 1, "max_size": env.int("DB_POOL_MAX_SIZE", default=16), "timeout": 10,
        "reconnect_timeout": env.float("DB_POOL_RECONNECT_TIMEOUT", default=5.0),
    }
else:
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)  # noqa: F405

# Static files: collected (collectstatic, at image build) with content-hashed names and compressed
# copies, served by WhiteNoise (base MIDDLEWARE) with far-future cache headers.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# One JSON object a line on stderr, from web, worker and beat (okgin_project/logs.py).
LOG_FORMAT = env.str("LOG_FORMAT", default="json")
LOGGING = logging_config(LOG_FORMAT, LOG_LEVEL)
logging.captureWarnings(True)  # Python warnings become log records too, not bare stderr lines
