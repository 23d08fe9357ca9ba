"""Test settings: PostgreSQL by default (pytest-django creates ``test_okgin``), fast hashing.

``DATABASE_URL`` defaults to ``postgres://postgres@127.0.0.1:5432/okgin``; tasks run eagerly unless
``CELERY_TASK_ALWAYS_EAGER=0`` (end-to-end tests with a real worker set it themselves).
"""
import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/okgin")

from .base import *  # noqa: E402,F401,F403
from .base import env  # noqa: E402

DEBUG = False
SECRET_KEY = env.str("SECRET_KEY", default="okgin-tests-only-not-secret-0123456789abcdef")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
# Tests wrap each test in a transaction the delivery thread could not see: deliver inline after
# commit (tests/notifications/test_dispatch.py turns the thread back on, with a transactional db).
OKGIN_WEBHOOK_INLINE = env.bool("WEBHOOK_INLINE", default=True)
# The strong AI searches a fixed number of playouts per decision, not a time budget: AI moves in
# tests do not depend on machine load, and take a few milliseconds.
OKGIN_AI_ITERATIONS = env.int("AI_ITERATIONS", default=32) or None
# Reviews use the same iteration budget (REVIEW_ITERATIONS overrides it).
OKGIN_REVIEW_ITERATIONS = env.int("REVIEW_ITERATIONS", default=0) or OKGIN_AI_ITERATIONS or 32
# The suite registers and plays far faster than any client should: no rate limits unless a test
# sets them (tests/okgin_project/test_throttling.py).
OKGIN_THROTTLE_RATES = {"anon": None, "user": None, "auth": None, "actions": None}
# Tests run the sweeps themselves (tests/games/test_sweeps.py starts schedulers explicitly).
OKGIN_INPROCESS_SCHEDULER = env.bool("INPROCESS_SCHEDULER", default=False)
# Static files from the apps' folders, as in the embedded default (production collects them).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Every request reads its account, so a test's queries do not depend on whether this process's
# live listener had subscribed yet (tests/players/test_authentication_cache.py turns the cache on).
OKGIN_AUTH_CACHE_SECONDS = env.float("AUTH_CACHE_SECONDS", default=0.0)
