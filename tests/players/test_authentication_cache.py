"""players/authentication.py: a web process reuses an authenticated account for
OKGIN_AUTH_CACHE_SECONDS, and forgets it at once when the account changes in the process
(deactivation, password change, deletion), so those take effect on the next request."""
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.helpers import access_token, assert_error, bearer_client

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _login(anon, name: str) -> APIClient:
    return bearer_client(access_token(anon, name))


def _account_reads(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"{API}/me/").status_code == 200
    return sum(1 for q in queries.captured_queries if 'FROM "auth_user"' in q["sql"])


def test_a_second_request_within_the_cache_time_does_not_read_the_account_again(bob, anon, settings):
    settings.OKGIN_AUTH_CACHE_SECONDS = 60
    client = _login(anon, "bob")
    assert _account_reads(client) == 1
    assert _account_reads(client) == 0
    settings.OKGIN_AUTH_CACHE_SECONDS = 0  # off: every request reads it
    assert _account_reads(client) == 1 and _account_reads(client) == 1


@pytest.mark.error_code("user_inactive", "user_not_found")
def test_deactivating_or_deleting_a_cached_account_takes_effect_on_the_next_request(bob, anon, settings):
    settings.OKGIN_AUTH_CACHE_SECONDS = 60
    client = _login(anon, "bob")
    assert client.get(f"{API}/me/").status_code == 200  # cached now
    user = get_user_model().objects.get(username="bob")
    user.is_active = False
    user.save()
    assert_error(client.get(f"{API}/me/"), "user_inactive")
    user.is_active = True
    user.save()
    assert client.get(f"{API}/me/").status_code == 200
    user.delete()
    assert_error(client.get(f"{API}/me/"), "user_not_found")


@pytest.mark.error_code("token_not_valid")
def test_a_password_change_revokes_a_cached_token_at_once(bob, anon, settings):
    settings.OKGIN_AUTH_CACHE_SECONDS = 60
    old = _login(anon, "bob")
    assert old.get(f"{API}/me/").status_code == 200  # cached now
    r = old.post(f"{API}/me/password/", {"current_password": "s3cret-pass-bob",
                                          "new_password": "another-pass-bob-42"}, format="json")
    assert r.status_code == 200, r.content
    assert_error(old.get(f"{API}/me/"), "token_not_valid")
    new = APIClient()
    new.credentials(HTTP_AUTHORIZATION="Bearer " + r.json()["access"])
    assert new.get(f"{API}/me/").status_code == 200
