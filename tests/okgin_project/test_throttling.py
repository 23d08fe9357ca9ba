"""Rate limits: over the limit a request answers 429 ``throttled`` in the error shape with
Retry-After, and writes nothing. (The test settings switch limits off; these tests set some.)"""
import pytest
from django.core.cache import cache

from games.models import Move
from players.models import Player
from tests.helpers import assert_error, register


@pytest.fixture
def rates(settings, throttle_clock):
    cache.clear()
    yield settings
    cache.clear()


@pytest.mark.django_db
@pytest.mark.error_code("throttled")
def test_auth_endpoints_are_limited_per_ip(anon, rates):
    rates.OKGIN_THROTTLE_RATES = {"auth": "3/min"}
    register(anon, "dora")  # one registration + one token request
    r = anon.post("/api/v1/auth/token/", {"username": "dora", "password": "wrong"}, format="json")
    assert r.status_code == 401
    before = Player.objects.count()
    r = anon.post("/api/v1/auth/register/", {"username": "eve", "password": "correct-horse-42"}, format="json")
    assert_error(r, "throttled")
    assert 1 <= int(r["Retry-After"]) <= 60
    assert Player.objects.count() == before
    r = anon.post("/api/v1/auth/token/", {"username": "dora", "password": "s3cret-pass-dora"}, format="json")
    assert r.status_code == 429 and r.json()["error"]["code"] == "throttled"


@pytest.mark.django_db
def test_actions_are_limited_per_player(alice, rates):
    game = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "first_dealer": 1},
                      format="json").json()
    rates.OKGIN_THROTTLE_RATES = {"actions": "2/min"}
    body = {"version": game["version"] + 7, "action": {"type": "pass"}}
    assert alice.post(f"/api/v1/games/{game['id']}/actions/", body, format="json").status_code == 409  # stale
    assert alice.post(f"/api/v1/games/{game['id']}/actions/", body, format="json").status_code == 409
    good = {"version": game["version"], "action": game["view"]["legal_actions"][0]}
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", good, format="json")
    assert r.status_code == 429 and r.json()["error"]["code"] == "throttled" and int(r["Retry-After"]) >= 1
    assert Move.objects.count() == 0
    assert alice.get(f"/api/v1/games/{game['id']}/").status_code == 200  # reads are another scope


@pytest.mark.django_db
def test_anonymous_requests_are_limited(anon, rates):
    rates.OKGIN_THROTTLE_RATES = {"anon": "2/min"}  # (auth endpoints also count against anon)
    codes = [anon.post("/api/v1/auth/register/", {"username": "x"}, format="json").status_code for _ in range(3)]
    assert codes == [400, 400, 429]


def test_default_rates():
    from okgin_project.settings import base

    assert base.OKGIN_THROTTLE_RATES == {"anon": "60/min", "user": "600/min", "auth": "20/min",
                                         "actions": "120/min"}


@pytest.mark.django_db
@pytest.mark.error_code("throttled")
def test_limits_count_in_redis_one_window_key_per_scope(alice, settings, throttle_clock):
    """With production's Redis cache: the limit holds, the answer is 429 ``throttled`` with a
    Retry-After of at most the period, and each limited scope keeps one count per client and window
    (this window's count, expiring after two periods)."""
    import uuid

    import redis

    prefix = f"test-throttle-{uuid.uuid4().hex}"  # (not cleared with cache.clear(): that flushes the db)
    settings.CACHES = {"default": {"BACKEND": "okgin_project.cache.RedisCache", "LOCATION": settings.REDIS_URL,
                                   "KEY_PREFIX": prefix}}
    settings.OKGIN_THROTTLE_RATES = {"user": "3/min"}
    codes = [alice.get("/api/v1/games/").status_code for _ in range(3)]
    r = alice.get("/api/v1/games/")
    assert codes == [200, 200, 200]
    assert_error(r, "throttled")
    assert 1 <= int(r["Retry-After"]) <= 60
    client = redis.Redis.from_url(settings.REDIS_URL)
    keys = client.keys(f"{prefix}:*")
    try:
        assert len(keys) == 1 and b"throttle_user_" in keys[0]
        assert int(client.get(keys[0])) == 3  # the refused request is not counted
        assert 60_000 < client.pttl(keys[0]) <= 120_000
    finally:
        if keys:
            client.delete(*keys)


@pytest.mark.django_db
@pytest.mark.error_code("throttled")
def test_all_scopes_of_a_request_are_counted_in_one_redis_call(alice, settings, throttle_clock, monkeypatch):
    """An action POST is limited by two scopes (``user`` and ``actions``): with production's Redis
    cache both are counted in one script call, one round trip (issue 14), each in its own key, and
    each on its own: when ``actions`` refuses, ``user`` still counts the request, as DRF counts
    every throttle whatever the others answer. The refused action writes nothing."""
    import uuid

    import redis

    from okgin_project.cache import RedisCacheClient

    game = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "first_dealer": 1},
                      format="json").json()
    prefix = f"test-throttle-{uuid.uuid4().hex}"
    settings.CACHES = {"default": {"BACKEND": "okgin_project.cache.RedisCache", "LOCATION": settings.REDIS_URL,
                                   "KEY_PREFIX": prefix}}
    settings.OKGIN_THROTTLE_RATES = {"user": "10/min", "actions": "1/min"}
    calls = []
    real = RedisCacheClient.window_hits
    monkeypatch.setattr(RedisCacheClient, "window_hits",
                        lambda self, windows: calls.append(len(windows)) or real(self, windows))
    stale = {"version": game["version"] + 7, "action": {"type": "pass"}}
    assert alice.post(f"/api/v1/games/{game['id']}/actions/", stale, format="json").status_code == 409
    good = {"version": game["version"], "action": game["view"]["legal_actions"][0]}
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", good, format="json")
    assert_error(r, "throttled")
    assert Move.objects.count() == 0
    assert alice.get(f"/api/v1/games/{game['id']}/").status_code == 200
    assert calls == [2, 2, 1]  # two scopes per action POST, one for the read, one call each
    client = redis.Redis.from_url(settings.REDIS_URL)
    keys = sorted(client.keys(f"{prefix}:*"))
    try:
        counts = {k.decode().split(":")[2].rsplit("_", 1)[0]: int(client.get(k)) for k in keys}
        assert counts == {"throttle_actions": 1, "throttle_user": 3}
    finally:
        if keys:
            client.delete(*keys)


@pytest.mark.django_db
@pytest.mark.parametrize("backend", ["redis", "local memory"])
def test_two_throttles_with_one_key_count_twice_as_drf_counts_them(settings, throttle_clock, backend):
    """A view with the same scope twice counts each request twice (DRF asks each throttle, each
    counts on its own): with 4/min the second request is the last let through."""
    import uuid

    from django.contrib.auth import get_user_model
    from rest_framework.response import Response
    from rest_framework.test import APIRequestFactory, force_authenticate
    from rest_framework.views import APIView

    from okgin_project.throttling import UserThrottle

    prefix = f"test-throttle-{uuid.uuid4().hex}"
    settings.CACHES = {"default": {"BACKEND": "okgin_project.cache.RedisCache", "LOCATION": settings.REDIS_URL,
                                   "KEY_PREFIX": prefix}} if backend == "redis" else \
        {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": prefix}}
    settings.OKGIN_THROTTLE_RATES = {"user": "4/min"}

    class Twice(APIView):
        throttle_classes = [UserThrottle, UserThrottle]

        def get(self, request):
            return Response({})

    user = get_user_model().objects.create(username="twice")
    codes = []
    for _ in range(3):
        request = APIRequestFactory().get("/twice/")
        force_authenticate(request, user=user)
        codes.append(Twice.as_view()(request).status_code)
    assert codes == [200, 200, 429]
