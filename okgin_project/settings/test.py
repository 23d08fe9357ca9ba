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
# The suite registers and plays far faster than any client should: no rate limits unless a test
# sets them (tests/okgin_project/test_throttling.py).
OKGIN_THROTTLE_RATES = {"anon": None, "user": None, "auth": None, "actions": None}
