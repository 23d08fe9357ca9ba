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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test marked ``@pytest.mark.error_code("code", ...)`` must check each code it names with
    ``tests.helpers.assert_error`` (on a real answer) or it fails: the marker alone proves nothing.
    ``tests/okgin_project/test_error_codes.py`` checks every listed code has such a test."""
    from tests import helpers

    helpers.ASSERTED_CODES.clear()
    result = yield
    named = {code for marker in item.iter_markers("error_code") for code in marker.args}
    unchecked = named - set(helpers.ASSERTED_CODES)
    if unchecked:
        raise AssertionError(f"marked error_code {sorted(unchecked)} but assert_error never saw them")
    return result


def pytest_collection_modifyitems(config, items):
    from okgin_project.error_codes import ERROR_CODES

    # Tests marked slow (minutes each) first, the rest in their order: with parallel processes
    # (scripts/test.sh) one of them starts the longest test at once instead of at the end.
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)

    for item in items:
        for marker in item.iter_markers("error_code"):
            unknown = [c for c in marker.args if c not in ERROR_CODES] or ([] if marker.args else ["(none)"])
            if unknown:
                raise pytest.UsageError(f"{item.nodeid}: error_code marker names unknown codes {unknown}")
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
def throttle_clock(monkeypatch):
    """The rate limits' clock stopped in the middle of a minute (and of an hour and a day), so a
    test's requests all count in one window: a real clock could cross a window boundary between
    them and the estimate (okgin_project.throttling) drop below the limit. Returns the time."""
    from rest_framework.throttling import SimpleRateThrottle

    now = 86_400 * 20_000 + 1_800 + 30.5  # seconds: 30.5 s into a minute, 30 min into an hour
    monkeypatch.setattr(SimpleRateThrottle, "timer", staticmethod(lambda: now))
    return now


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


@pytest.fixture(autouse=True)
def _auth_cache_empty():
    """Each test starts with empty caches of authenticated users and of validated access tokens
    (players.authentication): a database rolled back between tests may give an id to another
    user, and a test may change the token backend."""
    from players import authentication

    authentication._recent.clear()
    authentication._validated.clear()
    yield


@pytest.fixture
def fake(monkeypatch):
    """The fake Web Push service on loopback (tests/notifications/fake_push.py), and
    django-push-notifications pointed at it by its settings (the library holds this very dict)."""
    from tests.notifications.fake_push import FakeWebPush, vapid_private_key_b64

    conf = settings.PUSH_NOTIFICATIONS_SETTINGS
    with FakeWebPush() as service:
        monkeypatch.setitem(conf, "WP_POST_URL", {b: service.base_url for b in conf["WP_POST_URL"]})
        monkeypatch.setitem(conf, "WP_PRIVATE_KEY", vapid_private_key_b64())
        monkeypatch.setitem(conf, "WP_CLAIMS", {"sub": "mailto:push@okgin.test"})
        yield service
