"""Shared fixtures. PostgreSQL must answer: with OKGIN_REQUIRE_SERVICES=1 (CI) a missing database
fails the run loudly; otherwise the database tests are skipped with the reason."""
import os

import pytest
from django.conf import settings


def _postgres_reachable() -> tuple[bool, str]:
    import psycopg

    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        return True, ""
    try:
        with psycopg.connect(
            host=db.get("HOST") or "127.0.0.1",
            port=db.get("PORT") or 5432,
            user=db.get("USER") or "postgres",
            password=db.get("PASSWORD") or None,
            dbname="postgres",
            connect_timeout=3,
        ):
            return True, ""
    except psycopg.OperationalError as exc:
        return False, str(exc)


def _redis_reachable() -> tuple[bool, str]:
    import redis

    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=3).ping()
        return True, ""
    except redis.RedisError as exc:
        return False, str(exc)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("OKGIN_REQUIRE_SERVICES") == "1":
        redis_ok, redis_reason = _redis_reachable()
        if not redis_ok:
            raise pytest.UsageError(f"Redis is required (OKGIN_REQUIRE_SERVICES=1) but unreachable: {redis_reason}")
    ok, reason = _postgres_reachable()
    if ok:
        return
    if os.environ.get("OKGIN_REQUIRE_SERVICES") == "1":
        raise pytest.UsageError(f"PostgreSQL is required (OKGIN_REQUIRE_SERVICES=1) but unreachable: {reason}")
    skip = pytest.mark.skip(reason=f"PostgreSQL unreachable: {reason}")
    for item in items:
        if "django_db" in item.keywords or any(
            f in getattr(item, "fixturenames", ()) for f in ("db", "transactional_db", "api", "client")
        ):
            item.add_marker(skip)


@pytest.fixture
def anon():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def alice(db, anon):
    from tests.helpers import register

    return register(anon, "alice", staff=True)


@pytest.fixture
def bob(db, anon):
    from tests.helpers import register

    return register(anon, "bob")
