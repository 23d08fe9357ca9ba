"""Settings shared by every environment, read from the environment with django-environ.

Environment variables: ``DATABASE_URL`` (absent: SQLite file and in-process tasks, the embedded
default), ``REDIS_URL`` (Celery broker and result backend), ``SECRET_KEY``, ``DEBUG``,
``ALLOWED_HOSTS`` (comma separated), ``CELERY_TASK_ALWAYS_EAGER``, ``INVITATION_TTL_SECONDS``,
``AI_TIME_BUDGET`` (seconds of search per AI turn, default 0.1), ``AI_ITERATIONS`` (instead of
the time budget, playouts per AI decision: the same choice on any machine; 0, the default, keeps
the time budget; 32 in ``test``), ``AUTO_PLAY_LEVEL``,
``AI_SWEEP_AFTER_SECONDS``, ``SWEEP_INTERVAL_SECONDS``, ``WEBHOOK_MAX_ATTEMPTS``,
``WEBHOOK_BACKOFF_SECONDS``, ``WEBHOOK_TIMEOUT_SECONDS``, ``WEBHOOK_ALLOW_PRIVATE`` (tests only), ``SQLITE_TIMEOUT`` (seconds a SQLite writer waits for the lock), ``THROTTLE_ANON``,
``THROTTLE_USER``, ``THROTTLE_AUTH``, ``THROTTLE_ACTIONS`` (rates, e.g. ``20/min``, or ``off``),
``NUM_PROXIES``, ``CACHE_URL``, ``CORS_ALLOWED_ORIGINS`` (comma separated; none by default), ``STATIC_ROOT``, ``INPROCESS_SCHEDULER`` (run the beat schedule in
the web process; default on when tasks run in-process), ``CSRF_TRUSTED_ORIGINS``, ``LOG_FORMAT``
(``json`` or ``text``), ``LOG_LEVEL``, ``READYZ_WORKER_MAX_AGE``, ``LIVE_BACKEND`` (``local`` or ``redis``: how
long-polling requests are woken, see ``notifications.live``), ``LIVE_REDIS_URL``.
"""
from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from okgin_project.logs import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="")  # each environment decides whether a default is allowed
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
# Origins (scheme://host[:port]) trusted for unsafe requests with a session (the admin) when they
# differ from the Host the server sees, e.g. behind a TLS proxy: "https://games.example.org".
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

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
else:
    # A database that does not answer fails the request (503 database_unavailable) within seconds
    # instead of holding a web worker; a persistent connection is checked before it is reused, so
    # the first request after an outage gets a fresh connection instead of the dead one.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", 5)  # seconds
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Parameters bound by the server and every statement prepared at its first execution on a
    # connection (psycopg's prepare_threshold): PostgreSQL parses and plans the hot statements once
    # per connection instead of at each execution, about 40% of its CPU per action (issue 14,
    # benchmarks/README.md, action_profile.py). DB_PREPARE_THRESHOLD: executions before a statement
    # is prepared; "off": parameters bound by the client and nothing prepared, for a pooler in
    # transaction mode that cannot keep prepared statements (PgBouncer before 1.21).
    _prepare = env.str("DB_PREPARE_THRESHOLD", default="1")
    if _prepare != "off":
        if not _prepare.isdigit():
            raise ImproperlyConfigured(f"DB_PREPARE_THRESHOLD must be a whole number or off, not {_prepare!r}")
        DATABASES["default"]["OPTIONS"].setdefault("server_side_binding", True)
        DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", int(_prepare))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "corsheaders",
    "rest_framework",
    "rest_framework_simplejwt",
    "rest_framework_simplejwt.token_blacklist",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "health_check",
    "push_notifications",
    "axes",
    "players",
    "games",
    "notifications",
]

MIDDLEWARE = [
    "corsheaders.middleware.CorsMiddleware",  # first: preflights answered before anything else
    "okgin_project.health.HealthMiddleware",  # /healthz and /readyz, before host checks and logs
    "okgin_project.logs.RequestContextMiddleware",  # request id, game id, one log line a request
    "okgin_project.middleware.ApiErrorsMiddleware",  # JSON errors under /api/, also with DEBUG
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files (collectstatic) without a proxy
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # admin login lockout (below)
]

# CORS (django-cors-headers) for web and hybrid apps: the API only, origins from the environment
# (comma separated, e.g. "https://play.example.com"; none by default). Credentials are bearer
# tokens in a header, not cookies.
CORS_ALLOWED_ORIGINS = env.list("CORS_ALLOWED_ORIGINS", default=[])
CORS_URLS_REGEX = r"^/api/.*$"
CORS_ALLOW_HEADERS = ("accept", "authorization", "content-type", "idempotency-key", "if-none-match")
CORS_EXPOSE_HEADERS = ("etag", "retry-after", "idempotent-replayed", "location")
CORS_PREFLIGHT_MAX_AGE = 600  # seconds

# Admin login: django-axes locks out an IP address, and separately a user name, after 5 wrong
# passwords, for 15 minutes;
# a locked-out login answers 429, the attempts and lockouts are listed in the admin ("Axes"), and
# `manage.py axes_reset` lifts them. Logins at the API's token endpoint are not seen by axes at all
# (they have their own rate limit, THROTTLE_AUTH).
AUTHENTICATION_BACKENDS = [
    "okgin_project.security.AdminLoginLockout",  # django-axes (below)
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ONLY_ADMIN_SITE = True
AXES_HANDLER = "okgin_project.security.AdminOnlyAxesHandler"  # failed API logins are not counted
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "okgin_project.security.client_ip"  # same proxy rule as the rate limits
AXES_VERBOSE = False  # no banner at start-up; lockouts are still logged

ROOT_URLCONF = "okgin_project.urls"
WSGI_APPLICATION = "okgin_project.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [Path(__file__).resolve().parent.parent / "templates"],  # okgin_project/templates
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
    {"NAME": "players.passwords.NotOnlyWhitespaceValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where collectstatic gathers the static files (the Docker image: /app/staticfiles).
STATIC_ROOT = env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles"))

# --- Django REST framework ------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.authentication.PlayerJWTAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "okgin_project.negotiation.ContentNegotiation",
    "DEFAULT_PARSER_CLASSES": ["okgin_project.parsers.StrictJSONParser"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "okgin_project.schema.OkginAutoSchema",
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
# Seconds during which a web process skips Redis (cache and broker) after it failed to answer:
# rate limits count in process memory and queued work is left to the sweeps (okgin_project.degraded).
OKGIN_REDIS_RETRY_SECONDS = 5.0

# Seconds a web process reuses an authenticated user and player (players.authentication; 0: off).
# Changes made in the process apply at once; other processes see them within these seconds.
# Seconds the action POST and the game view may reuse an account read by this web process; any
# change of an account is forgotten at once in every process (players/authentication.py). 0: off.
OKGIN_AUTH_CACHE_SECONDS = env.float("AUTH_CACHE_SECONDS", default=10.0)

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=env.int("JWT_ACCESS_MINUTES", default=60)),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=env.int("JWT_REFRESH_DAYS", default=30)),
    "AUTH_HEADER_TYPES": ("Bearer",),
    # Each refresh answers a new refresh token and blacklists the one used (token_blacklist).
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
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
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "okgin_project.schema.unify_action_schema",
        "okgin_project.schema.name_enum_values",
    ],
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "games.models.GameStatus",
        "GameKindEnum": "games.models.GameKind",
        "EventKindEnum": "notifications.models.EventKind",
        "DeliveryStatusEnum": "notifications.models.DeliveryStatus",
        "EndReasonEnum": "games.models.EndReason",
        "OutcomeEnum": "games.models.RoundOutcome",
        "TimeoutPolicyEnum": "games.models.TimeoutPolicy",
        "AiLevelEnum": "players.models.AiLevel",
        "ActionTypeEnum": "games.serializers.ACTION_TYPES",
        "ErrorCodeEnum": "okgin_project.error_codes.ERROR_CODE_CHOICES",
        "RematchStatusEnum": [("offered", "offered"), ("accepted", "accepted"), ("declined", "declined")],
    },
}

# Each notification kind's one-value enum (the discriminator of Notification) gets a stable name;
# notifications/serializers.py checks that these are exactly EventKind's values.
OKGIN_EVENT_KINDS = ("your_turn", "opponent_moved", "round_over", "match_over", "invitation_received",
                     "invitation_accepted", "invitation_declined", "invitation_withdrawn", "invitation_expired",
                     "deadline_near", "timeout", "rematch_offered", "rematch_accepted", "rematch_declined",
                     "vacation_started", "vacation_ended")
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update({
    "".join(p.title() for p in kind.split("_")) + "KindEnum": [(kind, kind)] for kind in OKGIN_EVENT_KINDS
})
# The same for the discriminators (``type``) of Action and GameEvent (games/serializers.py checks
# them against the engine's action and event types).
OKGIN_ACTION_TYPES = ("take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock")
OKGIN_GAME_EVENT_TYPES = ("round_dealt", "upcard_taken", "upcard_passed", "drew_stock", "drew_discard",
                          "discarded", "knocked", "round_ended", "match_ended")
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update({
    "".join(p.title() for p in kind.split("_")) + "TypeEnum": [(kind, kind)]
    for kind in OKGIN_ACTION_TYPES + OKGIN_GAME_EVENT_TYPES
})

# --- Celery ---------------------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = REDIS_URL
# kombu's Redis transport, fixed so a worker survives a Redis outage (see okgin_project/broker.py).
CELERY_BROKER_TRANSPORT = "okgin_project.broker:Transport"
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
# Celery's prefork pool, fixed so a worker survives re-registering after a broker outage
# (see okgin_project/worker_pool.py).
CELERY_WORKER_POOL = "okgin_project.worker_pool:TaskPool"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None  # a worker waits out any broker outage (never gives up)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 600,  # seconds before an unacknowledged message is delivered again
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2}
SWEEP_INTERVAL_SECONDS = env.float("SWEEP_INTERVAL_SECONDS", default=5.0)
# A sweep message not started within its interval is dropped (the next one is on its way); the
# sweeps are also single-flight (okgin_project.celery.SweepTask), so outages never pile them up.
CELERY_BEAT_SCHEDULE = {
    "ai-turns-sweep": {"task": "games.ai_turns_sweep", "schedule": SWEEP_INTERVAL_SECONDS,
                       "options": {"expires": SWEEP_INTERVAL_SECONDS}},
    "deadlines-sweep": {"task": "games.deadlines_sweep", "schedule": SWEEP_INTERVAL_SECONDS,
                        "options": {"expires": SWEEP_INTERVAL_SECONDS}},
    "webhook-deliveries-sweep": {"task": "notifications.webhook_deliveries_sweep", "schedule": SWEEP_INTERVAL_SECONDS,
                                 "options": {"expires": SWEEP_INTERVAL_SECONDS}},
    "idempotency-records-prune": {"task": "games.idempotency_records_prune", "schedule": 3600.0,
                                  "options": {"expires": 3600.0}},
    "notification-records-prune": {"task": "notifications.records_prune", "schedule": 3600.0,
                                   "options": {"expires": 3600.0}},
    "push-deliveries-sweep": {"task": "notifications.push_deliveries_sweep", "schedule": SWEEP_INTERVAL_SECONDS,
                              "options": {"expires": SWEEP_INTERVAL_SECONDS}},
    "expired-tokens-flush": {"task": "players.expired_tokens_flush", "schedule": 24 * 3600.0,
                             "options": {"expires": 24 * 3600.0}},
}
# Seconds within which a sweep queues the same lost work (an AI turn at one version, a timeout, a
# delivery) at most once; that copy expires after as long (okgin_project.celery.requeue_once).
OKGIN_REQUEUE_WITHIN_SECONDS = max(30.0, 3 * SWEEP_INTERVAL_SECONDS)
# Embedded default: no DATABASE_URL means no broker either; tasks run in-process.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=not USES_EXTERNAL_DATABASE)
CELERY_TASK_EAGER_PROPAGATES = True
# Without beat (tasks in-process), each web process runs the beat schedule on a thread while it
# holds the database lease (games.sweeps.SweepScheduler); one process sweeps at a time.
OKGIN_INPROCESS_SCHEDULER = env.bool("INPROCESS_SCHEDULER", default=CELERY_TASK_ALWAYS_EAGER)

# --- okgin ----------------------------------------------------------------------------------
# Seconds an Idempotency-Key protects its request (retries answer the first result); older records
# are ignored and pruned hourly (games.idempotency_records_prune).
OKGIN_IDEMPOTENCY_TTL_SECONDS = 24 * 3600
# Days an event stays in the feed, and a delivered or failed webhook delivery in its list, before
# the hourly notifications.records_prune deletes it.
OKGIN_EVENT_RETENTION_DAYS = 90
OKGIN_DELIVERY_RETENTION_DAYS = 30
OKGIN_INVITATION_TTL_SECONDS = env.int("INVITATION_TTL_SECONDS", default=7 * 24 * 3600)
OKGIN_MOVE_TIME_LIMIT_MIN = 60  # seconds per turn: from a minute...
OKGIN_MOVE_TIME_LIMIT_MAX = 14 * 24 * 3600  # ...to 14 days
OKGIN_AUTO_PLAY_LIMIT_DEFAULT = 3  # consecutive auto-played turns before the next timeout forfeits
OKGIN_AUTO_PLAY_LEVEL = env.str("AUTO_PLAY_LEVEL", default="strong")  # AI level playing for the absent
# Ratings (games.ratings): idle time that widens a rating's deviation by one Glicko-2 period, and
# how many rated matches put a player on a variant's leaderboard.
OKGIN_RATING_PERIOD_DAYS = env.float("RATING_PERIOD_DAYS", default=7.0)
OKGIN_LEADERBOARD_MIN_GAMES = env.int("LEADERBOARD_MIN_GAMES", default=5)
# Vacation (games.services.vacation, docs/correspondence.md): days a year, credited 1/12 at each
# month start (UTC), never above a year's days.
OKGIN_VACATION_DAYS_PER_YEAR = env.int("VACATION_DAYS_PER_YEAR", default=21)
# Time bank bounds (seconds): initial and cap from a minute to 60 days, increment up to 14 days.
OKGIN_TIME_BANK_MAX_SECONDS = 60 * 24 * 3600
OKGIN_DEADLINE_REMINDER_FRACTION = 0.8  # deadline_near event when this share of the time has passed
# Seconds of search per AI turn (the strong policy splits it between the draw and the discard).
# 0.1 s keeps the AI reply under 250 ms at p95 (benchmarks/ai_latency.py, README); the policy's
# own default is 0.2 s.
OKGIN_AI_TIME_BUDGET = env.float("AI_TIME_BUDGET", default=0.1)
OKGIN_AI_ITERATIONS = env.int("AI_ITERATIONS", default=0) or None  # 0: the time budget
# Game reviews (games.services.review): playouts per reviewed decision (the strong evaluator's
# budget; no clock is read); 0: the AI's own AI_ITERATIONS (32 in the test settings).
OKGIN_REVIEW_ITERATIONS = env.int("REVIEW_ITERATIONS", default=400) or OKGIN_AI_ITERATIONS or 400
OKGIN_AI_SWEEP_AFTER_SECONDS = env.float("AI_SWEEP_AFTER_SECONDS", default=5.0)
OKGIN_WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=6)
OKGIN_WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", default=10.0)  # 10, 20, 40...
OKGIN_WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
OKGIN_WEBHOOKS_PER_PLAYER = 5
OKGIN_MAX_BODY_BYTES = env.int("MAX_BODY_BYTES", default=256 * 1024)  # larger bodies: 413
DATA_UPLOAD_MAX_MEMORY_SIZE = OKGIN_MAX_BODY_BYTES
# Only for tests with a loopback receiver: allow webhook URLs on loopback/private addresses (SSRF).
OKGIN_WEBHOOK_ALLOW_PRIVATE = env.bool("WEBHOOK_ALLOW_PRIVATE", default=False)
# Ports a webhook URL may use ("any": no limit).
_webhook_ports = env.str("WEBHOOK_PORTS", default="80,443")
OKGIN_WEBHOOK_PORTS = None if _webhook_ports == "any" else frozenset(int(p) for p in _webhook_ports.split(","))
# At most this many webhook POSTs per minute to one destination (host and port), whoever registered
# it; more wait for the next minute (notifications.services.webhook_delivery_attempt).
OKGIN_WEBHOOK_PER_DESTINATION_PER_MINUTE = 60
# Eager mode (no broker): deliveries run on a background thread (notifications.dispatch); True runs
# them inline after commit instead (the test settings, where tests share one uncommitted transaction).
OKGIN_WEBHOOK_INLINE = env.bool("WEBHOOK_INLINE", default=False)

# --- push notifications (django-push-notifications; see notifications/push.py) --------------
OKGIN_PUSH_DEVICES_PER_PLAYER = 10
OKGIN_PUSH_MAX_ATTEMPTS = env.int("PUSH_MAX_ATTEMPTS", default=6)
OKGIN_PUSH_BACKOFF_SECONDS = env.float("PUSH_BACKOFF_SECONDS", default=10.0)  # 10, 20, 40...
OKGIN_PUSH_TIMEOUT_SECONDS = 5.0
OKGIN_PUSH_TTL_SECONDS = 24 * 3600  # how long a push service keeps an undelivered push
OKGIN_PUSH_QUEUE_HOLD_MAX_SECONDS = 300.0  # longer holds (quiet hours) are sent by the sweep
_WEBPUSH_POST_URL = env.str("WEBPUSH_POST_URL", default="")  # one push service for every browser
PUSH_NOTIFICATIONS_SETTINGS = {
    # Web Push: VAPID key (base64url of the raw P-256 private key, or a PEM file's path) and subject
    "WP_PRIVATE_KEY": env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="") or None,
    "WP_CLAIMS": {"sub": env.str("WEBPUSH_VAPID_SUBJECT", default="mailto:admin@localhost")},
    "WP_ERROR_TIMEOUT": OKGIN_PUSH_TIMEOUT_SECONDS,
    # FCM (Android and iOS): firebase-admin with FCM_CREDENTIALS_FILE (notifications/apps.py)
    "FIREBASE_APP": None,
}
if _WEBPUSH_POST_URL:
    PUSH_NOTIFICATIONS_SETTINGS["WP_POST_URL"] = {
        b: _WEBPUSH_POST_URL for b in ("CHROME", "OPERA", "FIREFOX", "EDGE", "SAFARI")}
OKGIN_FCM_CREDENTIALS_FILE = env.str("FCM_CREDENTIALS_FILE", default="")
# Replaces https://fcm.googleapis.com for FCM HTTP v1 sends (tests' fake, a relay): notifications/push_providers.py
OKGIN_FCM_ENDPOINT = env.str("FCM_ENDPOINT", default="")
# APNs (aioapns): a token-based key (.p8 file, its key id, the team id) or a certificate (PEM with its
# key); APNS_TOPIC is the app's bundle id; APNS_USE_SANDBOX sends to Apple's development server.
_APNS_AUTH_KEY_FILE = env.str("APNS_AUTH_KEY_FILE", default="")
_APNS_CERTIFICATE_FILE = env.str("APNS_CERTIFICATE_FILE", default="")
if _APNS_AUTH_KEY_FILE:
    PUSH_NOTIFICATIONS_SETTINGS.update({
        "APNS_AUTH_KEY_PATH": _APNS_AUTH_KEY_FILE, "APNS_AUTH_KEY_ID": env.str("APNS_AUTH_KEY_ID", default=""),
        "APNS_TEAM_ID": env.str("APNS_TEAM_ID", default="")})
elif _APNS_CERTIFICATE_FILE:
    PUSH_NOTIFICATIONS_SETTINGS["APNS_CERTIFICATE"] = _APNS_CERTIFICATE_FILE
PUSH_NOTIFICATIONS_SETTINGS["APNS_TOPIC"] = env.str("APNS_TOPIC", default="") or None
PUSH_NOTIFICATIONS_SETTINGS["APNS_USE_SANDBOX"] = env.bool("APNS_USE_SANDBOX", default=False)
# host:port replacing Apple's APNs server (tests' fake, a relay): notifications/push_providers.py
OKGIN_APNS_ENDPOINT = env.str("APNS_ENDPOINT", default="")

# Long-polling (``?wait=`` on events/ and games/{id}/): woken in-process (``local``, the embedded
# default) or through Redis pub/sub across processes (``redis``, the default with DATABASE_URL).
OKGIN_LIVE_BACKEND = env.str("LIVE_BACKEND", default="redis" if USES_EXTERNAL_DATABASE else "local")
OKGIN_LIVE_REDIS_URL = env.str("LIVE_REDIS_URL", default=REDIS_URL)
OKGIN_LIVE_WAIT_MAX = 30  # seconds a request may wait

# Seconds a Celery worker's last answer keeps /readyz's "celery" part up (okgin_project/health.py).
OKGIN_READYZ_WORKER_MAX_AGE = env.float("READYZ_WORKER_MAX_AGE", default=30.0)
# A worker whose shutdown hangs leaves anyway so its supervisor restarts it
# (okgin_project/worker_watchdog.py): seconds after an unrecoverable error; seconds of a normal
# warm shutdown (0: the longest task hard time limit + 30).
OKGIN_WORKER_FAILED_STOP_SECONDS = env.float("WORKER_FAILED_STOP_SECONDS", default=30.0)
OKGIN_WORKER_STOP_SECONDS = env.float("WORKER_STOP_SECONDS", default=0.0)

# Beat records each scheduling pass in Redis (okgin_project/heartbeat.py) and wakes at least every
# 10 s, so its healthcheck can tell a scheduling beat from a stuck one.
CELERY_BEAT_SCHEDULER = "okgin_project.heartbeat:HeartbeatScheduler"
CELERY_BEAT_MAX_LOOP_INTERVAL = 10

# Logs: text here, one JSON object a line in production (LOG_FORMAT=json), with request/game/task ids.
LOG_FORMAT = env.str("LOG_FORMAT", default="text")
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = logging_config(LOG_FORMAT, LOG_LEVEL)
