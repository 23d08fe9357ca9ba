"""players/authentication.py: the action POST and the game view reuse an account this web process
read in the last OKGIN_AUTH_CACHE_SECONDS while changes of accounts reach the process through the
live hub's Redis listener; a change of the account, in this process or another, is forgotten at
once, so a deactivation, password change or deletion takes effect on the next request. Every
other view reads the account at each request."""
import os
import time
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from notifications import live
from players import authentication
from tests.helpers import access_token, assert_error, bearer_client, register

pytestmark = pytest.mark.django_db
API = "/api/v1"


@pytest.fixture
def cache_on(settings):
    """The cache on (60 s), a fresh Redis hub whose listener is subscribed, an empty cache.

    The hub's channels are this pytest process's own (Redis database 12 + the xdist worker's
    number in the URL, so channel prefix ``okgin:live:12:``, ``okgin:live:13:``, ...): account
    changes that another test process publishes at the same time would otherwise reach this
    listener and forget, or keep from being kept, the accounts these tests read."""
    settings.OKGIN_AUTH_CACHE_SECONDS = 60
    settings.OKGIN_LIVE_BACKEND = "redis"
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:]
    url = urlsplit(settings.OKGIN_LIVE_REDIS_URL)
    settings.OKGIN_LIVE_REDIS_URL = urlunsplit(
        url._replace(path=f"/{12 + (int(worker) if worker.isdigit() else 0)}"))
    _hub_reset()
    live.hub().ready()
    authentication._recent.clear()
    yield settings
    _hub_reset()
    authentication._recent.clear()


def _hub_reset():
    if isinstance(live._hub, live.RedisHub):
        live._hub.close()
    live._hub = None


def _login(anon, name: str) -> APIClient:
    return bearer_client(access_token(anon, name))


def _account_reads(client, path: str, expected: int = 200) -> int:
    with CaptureQueriesContext(connection) as queries:
        r = client.get(path)
    assert r.status_code == expected, r.content
    return sum(1 for q in queries.captured_queries if 'FROM "auth_user"' in q["sql"])


def _game_path(client) -> str:
    game = client.post(f"{API}/games/new/", {"kind": "ai", "ai_level": "random", "first_dealer": 1},
                       format="json").json()  # (staff may choose) seat 0, not the dealer, acts first (R5)
    return f"{API}/games/{game['id']}/"


def test_the_game_view_and_actions_reuse_the_account_other_views_read_it(alice, anon, cache_on):
    client = _login(anon, "alice")
    game = _game_path(client)
    assert _account_reads(client, game) == 1
    assert _account_reads(client, game) == 0  # kept
    view = client.get(game).json()
    with CaptureQueriesContext(connection) as queries:
        r = client.post(f"{game}actions/", {"version": view["version"], "action": view["view"]["legal_actions"][0]},
                        format="json")
    assert r.status_code == 200, r.content
    assert not any('FROM "auth_user"' in q["sql"] for q in queries.captured_queries)
    assert _account_reads(client, f"{API}/me/") == 1 and _account_reads(client, f"{API}/me/") == 1
    cache_on.OKGIN_AUTH_CACHE_SECONDS = 0  # off: every request reads it
    assert _account_reads(client, game) == 1 and _account_reads(client, game) == 1


def test_without_a_subscribed_listener_the_account_is_read_every_time(alice, anon, cache_on):
    """Changes made in other processes could not reach this one: nothing is kept (the local hub
    of the embedded default, or a Redis listener not subscribed yet)."""
    client = _login(anon, "alice")
    game = _game_path(client)
    cache_on.OKGIN_LIVE_BACKEND = "local"
    _hub_reset()
    assert _account_reads(client, game) == 1 and _account_reads(client, game) == 1
    assert authentication._recent == {}


@pytest.mark.error_code("user_inactive")
def test_a_change_published_by_another_process_is_forgotten_here(alice, anon, cache_on):
    """Another process deactivates the account (its row changed, no signal here) and publishes
    ``a<user id>`` after its commit: this process's listener forgets the account, and the next
    request is refused."""
    client = _login(anon, "alice")
    game = _game_path(client)
    user = get_user_model().objects.get(username="alice")
    assert _account_reads(client, game) == 1 and _account_reads(client, game) == 0
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)  # no signal: as elsewhere
    assert _account_reads(client, game) == 0  # not heard of yet: still the kept account
    live.hub().send([f"a{user.pk}"])  # the other process's publish after its commit
    deadline = time.monotonic() + 10
    while str(user.pk) in authentication._recent:
        assert time.monotonic() < deadline, "the listener did not forget the account"
        time.sleep(0.01)
    assert_error(client.get(game), "user_inactive")


@pytest.mark.error_code("user_inactive", "user_not_found", "token_not_valid")
def test_changes_in_this_process_take_effect_on_the_next_request(alice, anon, cache_on):
    client = _login(anon, "alice")
    game = _game_path(client)
    assert _account_reads(client, game) == 1
    user = get_user_model().objects.get(username="alice")
    user.is_active = False
    user.save()
    assert_error(client.get(game), "user_inactive")
    user.is_active = True
    user.save()
    assert _account_reads(client, game) == 1
    r = client.post(f"{API}/me/password/", {"current_password": "s3cret-pass-alice",
                                             "new_password": "another-pass-alice-42"}, format="json")
    assert r.status_code == 200, r.content
    assert_error(client.get(game), "token_not_valid")
    new = bearer_client(r.json()["access"])
    assert new.get(game).status_code == 200
    register(anon, "dora")  # no game of hers keeps her account from being deleted
    dora = _login(anon, "dora")
    assert _account_reads(dora, game, expected=404) == 1 and _account_reads(dora, game, expected=404) == 0
    get_user_model().objects.get(username="dora").delete()
    assert_error(dora.get(game), "user_not_found")


def test_an_account_read_while_an_account_changed_is_not_kept(alice, anon, cache_on, monkeypatch):
    """A change forgotten while the account was being read (it may have been read before the
    change committed): that read is used for this request only."""
    client = _login(anon, "alice")
    game = _game_path(client)
    read = authentication._user_read

    def read_during_a_change(user_id):
        user = read(user_id)
        authentication._forget_here(999_999)  # any account's change, heard meanwhile
        return user

    monkeypatch.setattr(authentication, "_user_read", read_during_a_change)
    assert _account_reads(client, game) == 1 and authentication._recent == {}
    monkeypatch.setattr(authentication, "_user_read", read)
    assert _account_reads(client, game) == 1 and _account_reads(client, game) == 0


def test_a_change_is_published_after_commit_and_a_resubscribe_forgets_everything(
        alice, anon, cache_on, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr(live, "live_publish", lambda keys: sent.append(sorted(keys)))
    user = get_user_model().objects.get(username="alice")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        user.save()
    assert sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert [f"a{user.pk}"] in sent
    assert ("a", authentication._forget_published, authentication._forget_all) in live._key_listeners
    client = _login(anon, "alice")
    assert _account_reads(client, _game_path(client)) == 1 and authentication._recent
    authentication._forget_all()  # what the listener calls when it subscribes again
    assert authentication._recent == {}


def test_an_account_kept_before_the_change_committed_is_forgotten_after_it(
        alice, anon, cache_on, monkeypatch, django_capture_on_commit_callbacks):
    """A request of this process that read the account between the change's forget and its commit
    kept it as it was: the commit forgets it again here, even when the publish to the other
    processes fails."""
    monkeypatch.setattr(live, "live_publish", lambda keys: None)  # the publish lost
    user = get_user_model().objects.get(username="alice")
    with django_capture_on_commit_callbacks(execute=True):
        user.is_active = False
        user.save()  # forgotten now
        authentication._recent[str(user.pk)] = (time.monotonic() + 60, user)  # kept meanwhile
        assert str(user.pk) in authentication._recent
    assert str(user.pk) not in authentication._recent
