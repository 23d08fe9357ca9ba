"""Settings shared by every environment, read from the environment with django-environ.

Environment variables: ``DATABASE_URL`` (absent: SQLite file and in-process tasks, the embedded
default), ``REDIS_URL`` (Celery broker and result backend), ``SECRET_KEY``, ``DEBUG``,
``ALLOWED_HOSTS`` (comma separated), ``CELERY_TASK_ALWAYS_EAGER``, ``INVITATION_TTL_SECONDS``,
``AI_TIME_BUDGET`` (seconds of search per AI turn, default 0.1), ``AUTO_PLAY_LEVEL``,
``AI_SWEEP_AFTER_SECONDS``, ``SWEEP_INTERVAL_SECONDS``, ``WEBHOOK_MAX_ATTEMPTS``,
``WEBHOOK_BACKOFF_SECONDS``, ``WEBHOOK_TIMEOUT_SECONDS``, ``WEBHOOK_ALLOW_PRIVATE`` (tests only), ``SQLITE_TIMEOUT`` (seconds a SQLite writer waits for the lock), ``THROTTLE_ANON``,
``THROTTLE_USER``, ``THROTTLE_AUTH``, ``THROTTLE_ACTIONS`` (rates, e.g. ``20/min``, or ``off``),
``NUM_PROXIES``, ``CACHE_URL``.
"""
from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="")  # each environment decides whether a default is allowed
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

USES_EXTERNAL_DATABASE = "DATABASE_URL" in env.ENVIRON
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Embedded default: every transaction takes SQLite's write lock when it begins (IMMEDIATE), so
    # two racing writers queue up (for at most ``timeout`` seconds) instead of one failing with
    # "database is locked" when it upgrades a read lock; what still times out answers 503 busy.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].setdefault("transaction_mode", "IMMEDIATE")
    DATABASES["default"]["OPTIONS"].setdefault("timeout", env.float("SQLITE_TIMEOUT", default=20.0))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_simplejwt",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "players",
    "games",
    "notifications",
]

MIDDLEWARE = [
    "okgin_project.middleware.ApiErrorsMiddleware",  # JSON errors under /api/, also with DEBUG
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "okgin_project.urls"
WSGI_APPLICATION = "okgin_project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

# --- Django REST framework ------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.authentication.PlayerJWTAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["okgin_project.parsers.StrictJSONParser"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "okgin_project.errors.exception_handler",
    "DATETIME_FORMAT": "%Y-%m-%dT%H:%M:%S.%fZ",
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_THROTTLE_CLASSES": [
        "okgin_project.throttling.AnonThrottle",
        "okgin_project.throttling.UserThrottle",
        "okgin_project.throttling.ScopedThrottle",
    ],
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),  # X-Forwarded-For is only trusted behind proxies
}

# Rate limits per scope (okgin_project/throttling.py): "<n>/<s|min|hour|day>", or "off".
_RATE_DEFAULTS = {"anon": "60/min", "user": "600/min", "auth": "20/min", "actions": "120/min"}
OKGIN_THROTTLE_RATES = {
    scope: (None if value.lower() == "off" else value)
    for scope, default in _RATE_DEFAULTS.items()
    for value in [env.str(f"THROTTLE_{scope.upper()}", default=default)]
}
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}  # throttle counts

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=env.int("JWT_ACCESS_MINUTES", default=60)),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=env.int("JWT_REFRESH_DAYS", default=30)),
    "AUTH_HEADER_TYPES": ("Bearer",),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "okgin API",
    "DESCRIPTION": (
        "Game server for Oklahoma Gin and classic Gin Rummy. Every error has the shape "
        '{"error": {"code", "message", "rule"?, "detail"?}} with a stable machine code.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.GameStatus",
        "GameKindEnum": "games.models.GameKind",
        "EventKindEnum": "notifications.models.EventKind",
        "DeliveryStatusEnum": "notifications.models.DeliveryStatus",
    },
}

# --- Celery ---------------------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TIMEZONE = "UTC"
CELERY_TASK_TIME_LIMIT = 60  # seconds, hard (the task's process is killed)
CELERY_TASK_SOFT_TIME_LIMIT = 45  # seconds (SoftTimeLimitExceeded is raised in the task)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_IGNORE_RESULT = True  # tasks report through the database, not results
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="celery")
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 600,  # seconds before an unacknowledged message is delivered again
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2}
SWEEP_INTERVAL_SECONDS = env.float("SWEEP_INTERVAL_SECONDS", default=5.0)
CELERY_BEAT_SCHEDULE = {
    "ai-turns-sweep": {"task": "games.ai_turns_sweep", "schedule": SWEEP_INTERVAL_SECONDS},
    "deadlines-sweep": {"task": "games.deadlines_sweep", "schedule": SWEEP_INTERVAL_SECONDS},
    "webhook-deliveries-sweep": {"task": "notifications.webhook_deliveries_sweep", "schedule": 60.0},
}
# Embedded default: no DATABASE_URL means no broker either; tasks run in-process.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not USES_EXTERNAL_DATABASE)
CELERY_TASK_EAGER_PROPAGATES = True

# --- okgin ----------------------------------------------------------------------------------
OKGIN_INVITATION_TTL_SECONDS = env.int("INVITATION_TTL_SECONDS", default=7 * 24 * 3600)
OKGIN_MOVE_TIME_LIMIT_MIN = 60  # seconds per turn: from a minute...
OKGIN_MOVE_TIME_LIMIT_MAX = 14 * 24 * 3600  # ...to 14 days
OKGIN_AUTO_PLAY_LIMIT_DEFAULT = 3  # consecutive auto-played turns before the next timeout forfeits
OKGIN_AUTO_PLAY_LEVEL = env.str("AUTO_PLAY_LEVEL", default="strong")  # AI level playing for the absent
OKGIN_DEADLINE_REMINDER_FRACTION = 0.8  # deadline_near event when this share of the time has passed
# Seconds of search per AI turn (the strong policy splits it between the draw and the discard).
# 0.1 s keeps the AI reply under 250 ms at p95 (benchmarks/ai_latency.py, README); the policy's
# own default is 0.2 s.
OKGIN_AI_TIME_BUDGET = env.float("AI_TIME_BUDGET", default=0.1)
OKGIN_AI_SWEEP_AFTER_SECONDS = env.float("AI_SWEEP_AFTER_SECONDS", default=5.0)
OKGIN_WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=6)
OKGIN_WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", default=10.0)  # 10, 20, 40...
OKGIN_WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
OKGIN_WEBHOOKS_PER_PLAYER = 5
OKGIN_MAX_BODY_BYTES = env.int("MAX_BODY_BYTES", default=256 * 1024)  # larger bodies: 413
DATA_UPLOAD_MAX_MEMORY_SIZE = OKGIN_MAX_BODY_BYTES
# Only for tests with a loopback receiver: allow webhook URLs on loopback/private addresses (SSRF).
OKGIN_WEBHOOK_ALLOW_PRIVATE = env.bool("WEBHOOK_ALLOW_PRIVATE", default=False)
# Eager mode (no broker): deliveries run on a background thread (notifications.dispatch); True runs
# them inline after commit instead (the test settings, where tests share one uncommitted transaction).
OKGIN_WEBHOOK_INLINE = env.bool("WEBHOOK_INLINE", default=False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
