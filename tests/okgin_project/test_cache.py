"""okgin_project/cache.py: Django's Redis cache, keeping one redis-py client per connection pool."""
import uuid

from django.conf import settings

from okgin_project.cache import RedisCache


def test_redis_cache_reuses_one_client_and_still_stores():
    cache = RedisCache(settings.REDIS_URL, {"KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}"})
    client = cache._cache.get_client()
    # One server: reads and writes share its pool, so every call gets that pool's one client
    # (Django's own backend built a new redis.Redis for each of these calls).
    assert cache._cache.get_client("k", write=True) is client
    assert cache._cache.get_client("k") is client
    try:
        assert cache.add("k", [1.5, 2.5], timeout=30) is True
        assert cache.add("k", [9], timeout=30) is False  # already there: add does not overwrite
        assert cache.get("k") == [1.5, 2.5]
        cache.set("k", [3.5], timeout=30)
        assert cache.get("k") == [3.5]
    finally:
        cache.delete("k")
    assert cache.get("k") is None


def test_incr_is_atomic_a_key_expiring_meanwhile_is_not_recreated_without_timeout(tmp_path):
    """A count about to expire is incremented while a second client pauses writes (reads go on;
    keys do not expire during the pause). Django's incr (EXISTS, then INCR) passed its check and
    then re-created the expired key as 1 with no timeout, so a per-minute count never expired
    again (a webhook destination rate-limited until Redis restarted). Ours, one script: the key
    has expired, so ValueError and nothing is created. A Redis of its own (the pause stops every
    client of the server)."""
    import os
    import shutil

    import pytest
    import redis

    from tests.faults.stack import RedisServer, free_port

    if not shutil.which("redis-server"):
        if os.environ.get("OKGIN_REQUIRE_SERVICES") == "1":
            pytest.fail("redis-server not installed")
        pytest.skip("redis-server not installed")
    server = RedisServer(free_port(), tmp_path)
    server.start()
    try:
        cache = RedisCache(server.url, {})
        r = redis.Redis.from_url(server.url)
        assert cache.add("count", 0, timeout=60) is True
        assert cache.incr("count") == 1
        assert cache.incr("count", 5) == 6
        key = cache.make_and_validate_key("count")
        assert r.ttl(key) > 0  # incr keeps the key's timeout
        r.pexpire(key, 300)
        r.execute_command("CLIENT", "PAUSE", 600, "WRITE")
        with pytest.raises(ValueError):
            cache.incr("count")
        assert r.exists(key) == 0
        with pytest.raises(ValueError):
            cache.incr("missing")
        assert r.exists(cache.make_and_validate_key("missing")) == 0
    finally:
        server.stop()


def _window_caches():
    from django.core.cache.backends.locmem import LocMemCache

    prefix = f"test-window-{uuid.uuid4().hex}"
    return [RedisCache(settings.REDIS_URL, {"KEY_PREFIX": prefix}), LocMemCache(prefix, {})]


def test_window_hit_counts_only_what_it_lets_through_and_weighs_the_previous_window():
    """The rate limits' sliding-window count, on Redis (the script) and in process memory (the
    fallback): the same answers. Requests refused are not counted; the previous window's count
    weighs in by its weight; this window's count expires with the timeout given."""
    import redis

    from okgin_project.throttling import window_hit

    for cache in _window_caches():
        try:
            hits = [window_hit(cache, "w:2", "w:1", 3, 0.0, 120) for _ in range(4)]
            assert hits == [(True, 1, 0), (True, 2, 0), (True, 3, 0), (False, 3, 0)], cache
            cache.set("w:2", 4, timeout=120)  # the next window: 4 before, weighed at 0.5 = 2, then 1 more
            assert window_hit(cache, "w:3", "w:2", 3, 0.5, 120) == (True, 1, 4)
            assert window_hit(cache, "w:3", "w:2", 3, 0.5, 120) == (False, 1, 4)
            assert window_hit(cache, "w:3", "w:2", 3, 0.25, 120) == (True, 2, 4)  # later: 1 + 2 < 3
            if isinstance(cache, RedisCache):
                ttl = redis.Redis.from_url(settings.REDIS_URL).pttl(cache.make_and_validate_key("w:3"))
                assert 110_000 < ttl <= 120_000
        finally:
            cache.delete_many(["w:1", "w:2", "w:3"])


def test_window_hits_counts_each_window_on_its_own_in_one_call():
    """Several windows at once (a request's rate-limit scopes): each is let through or refused by
    its own count and limit, and only the windows that let the request through count it; Redis's
    script and the in-process fallback answer the same as one window_hit per window would."""
    from okgin_project.throttling import window_hits

    for cache in _window_caches():
        try:
            cache.set("a:2", 2, timeout=120)  # at its limit of 2: refused, not counted
            cache.set("b:1", 6, timeout=120)  # 6 x 0.5 = 3 before, limit 5: let through, counted
            windows = [("a:2", "a:1", 2, 0.0, 120), ("b:2", "b:1", 5, 0.5, 120), ("c:2", "c:1", 1, 1.0, 60)]
            assert window_hits(cache, windows) == [(False, 2, 0), (True, 1, 6), (True, 1, 0)], cache
            # b: 3 + 1 < 5 lets one more through; then 3 + 2 reaches the limit
            assert window_hits(cache, windows) == [(False, 2, 0), (True, 2, 6), (False, 1, 0)], cache
            assert window_hits(cache, windows) == [(False, 2, 0), (False, 2, 6), (False, 1, 0)], cache
            assert cache.get_many(["a:2", "b:2", "c:2"]) == {"a:2": 2, "b:2": 2, "c:2": 1}
        finally:
            cache.delete_many(["a:1", "a:2", "b:1", "b:2", "c:1", "c:2"])
