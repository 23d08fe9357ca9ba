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
