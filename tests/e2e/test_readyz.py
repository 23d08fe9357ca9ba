"""/readyz with a real Celery worker consuming the default queue: ready, and the answer recorded."""
import time

import pytest
from django.core.cache import cache

from okgin_project.health import WORKER_ANSWER_CACHE_KEY

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_readyz_is_200_when_a_worker_answers_and_records_when(e2e, client):
    cache.delete(WORKER_ANSWER_CACHE_KEY)
    before = time.time()
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body == {"status": "ready", "down": [], "checks": body["checks"]}
    assert {name: part["status"] for name, part in body["checks"].items()} == {
        "database": "ok", "migrations": "ok", "redis": "ok", "celery": "ok"}
    assert before <= cache.get(WORKER_ANSWER_CACHE_KEY) <= time.time()
