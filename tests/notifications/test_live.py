"""Long-polling: GET events/?cursor=&wait= and GET games/{id}/?wait= with If-None-Match wait for a
change and answer as soon as it is committed, woken in-process (``local``) or through Redis pub/sub
(``redis``); bad wait values are refused; an unreachable Redis answers 503 only when a wait is
needed. Requests run on threads with their own database connections (transactions committed)."""
import re
import threading

import pytest
from django.db import connection

from notifications import live
from tests.e2e.conftest import wait_for
from tests.games.factories import DECK
from tests.helpers import act, register
from tests.sources import source_files

API = "/api/v1"


def _hub_reset():
    if isinstance(live._hub, live.RedisHub):
        live._hub.close()
    live._hub = None  # this process's hub is made again from the settings


@pytest.fixture(autouse=True)
def _fresh_hub_after():
    yield
    _hub_reset()  # later tests make theirs from the settings they run with


@pytest.fixture(params=["local", "redis"])
def backend(request, settings):
    settings.OKGIN_LIVE_BACKEND = request.param
    _hub_reset()
    yield request.param
    _hub_reset()


@pytest.fixture
def pair(transactional_db, anon, monkeypatch):
    from okgin_project.celery import app

    monkeypatch.setitem(app.conf, "task_always_eager", True)
    alice, bob = register(anon, "alice", staff=True), register(anon, "bob")
    r = alice.post(f"{API}/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                   format="json")
    gid = r.json()["id"]
    assert bob.post(f"{API}/games/{gid}/accept/").status_code == 200
    return alice, bob, gid


class Background:
    """One GET on a thread (its own database connection): ``.response`` once done."""

    def __init__(self, client, path, params=None, **headers):
        self.response = None

        def run():
            try:
                self.response = client.get(path, params or {}, **headers)
            finally:
                connection.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def join(self):
        self.thread.join(35)
        assert not self.thread.is_alive()
        return self.response


def _waiting(n):
    wait_for(lambda: live.hub().waiting() == n, timeout=10, what=f"{n} waiting request(s)")


def test_a_waiting_event_poll_is_answered_by_the_opponents_move(backend, pair):
    alice, bob, gid = pair
    cursor = bob.get(f"{API}/events/", {"limit": 1}).json()["next_cursor"]
    version = alice.get(f"{API}/games/{gid}/").json()["version"]
    poll = Background(bob, f"{API}/events/", {"cursor": cursor, "wait": 30})
    _waiting(1)
    assert poll.thread.is_alive()  # nothing for bob yet: it waits
    assert act(alice, gid, version, {"type": "pass"}).status_code == 200  # bob's turn now (R5.1)
    r = poll.join()
    assert r.status_code == 200
    kinds = [e["kind"] for e in r.json()["results"]]
    assert kinds == ["opponent_moved", "your_turn"] and r.json()["next_cursor"] not in (None, cursor)
    assert live.hub().waiting() == 0


def test_the_game_view_waits_for_a_new_version_with_if_none_match(backend, pair):
    alice, bob, gid = pair
    first = bob.get(f"{API}/games/{gid}/")
    poll = Background(bob, f"{API}/games/{gid}/", {"wait": 30}, HTTP_IF_NONE_MATCH=first["ETag"])
    _waiting(1)
    assert act(alice, gid, first.json()["version"], {"type": "pass"}).status_code == 200
    r = poll.join()
    assert r.status_code == 200 and r.json()["version"] == first.json()["version"] + 1
    assert r["ETag"] != first["ETag"] and r.json()["is_your_turn"]


def test_an_unchanged_game_answers_304_after_the_wait(pair, settings):
    settings.OKGIN_LIVE_BACKEND = "local"
    _hub_reset()
    _alice, bob, gid = pair
    first = bob.get(f"{API}/games/{gid}/")
    r = bob.get(f"{API}/games/{gid}/", {"wait": 1}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert r.status_code == 304 and r["ETag"] == first["ETag"]
    r = bob.get(f"{API}/games/{gid}/", {"wait": 30}, HTTP_IF_NONE_MATCH='"other"')  # changed: at once
    assert r.status_code == 200


def test_events_already_there_need_no_wait_even_without_redis(pair, settings):
    settings.OKGIN_LIVE_BACKEND = "redis"
    settings.OKGIN_LIVE_REDIS_URL = "redis://127.0.0.1:20001/0"  # nothing listens there
    _hub_reset()
    try:
        _alice, bob, _gid = pair
        r = bob.get(f"{API}/events/", {"wait": 30})
        assert r.status_code == 200 and [e["kind"] for e in r.json()["results"]] == ["invitation_received"]
        cursor = r.json()["next_cursor"]
        r = bob.get(f"{API}/events/", {"cursor": cursor, "wait": 5})  # a wait is needed: Redis is down
        assert r.status_code == 503 and r.json()["error"]["code"] == "live_unavailable"
        assert int(r["Retry-After"]) > 0
    finally:
        _hub_reset()


@pytest.mark.parametrize("wait", [-1, 31, "1.5", "x", "", "٣"])
def test_bad_wait_values_are_refused(pair, wait):
    _alice, bob, gid = pair
    for path in (f"{API}/events/", f"{API}/games/{gid}/"):
        r = bob.get(path, {"wait": wait})
        assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"


def test_wait_given_twice_or_an_unknown_parameter_is_refused_by_the_game_view(pair):
    """``?wait=0&wait=3`` is 400 (field error repeated), not a 3-second wait; an unknown
    parameter is 400 too, as on the lists."""
    _alice, bob, gid = pair
    for query, field, code in [("wait=0&wait=3", "wait", "repeated"), ("wiat=3", "wiat", "unknown_field")]:
        r = bob.get(f"{API}/games/{gid}/?{query}")
        assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
        assert [e["code"] for e in r.json()["error"]["detail"][field]] == [code]


def test_the_hub_wakes_only_after_a_publish_of_its_key():
    hub = live.LocalHub()
    mark = hub.mark("p1")
    hub.publish(["p2"])
    assert hub.wait("p1", mark, 0.01) is False
    hub.publish(["p1"])
    assert hub.wait("p1", mark, 30) is True  # published after the mark: no wait at all
    hub.release("p1")
    assert hub.waiting() == 0
    assert live.channel_prefix("redis://127.0.0.1:6379/11") == "okgin:live:11:"
    assert live.channel_prefix("redis://127.0.0.1:6379") == "okgin:live:0:"


class Timed(Background):
    """A ``Background`` GET that also records how long it took (seconds, monotonic)."""

    def __init__(self, client, path, params=None, **headers):
        import time

        started = time.monotonic()
        super().__init__(client, path, params, **headers)
        self._started, self._clock = started, time.monotonic

    def join(self):
        response = super().join()
        self.seconds = self._clock() - self._started
        return response


def _invitation(alice, **extra) -> int:
    r = alice.post(f"{API}/games/new/", {"kind": "invite", "opponent": "bob", **extra}, format="json")
    assert r.status_code == 201, r.content
    return r.json()["id"]


def _both_polls(bob, gid):
    """bob long-polls the game view (with its ETag) and his feed (after his latest event), 30 s."""
    first = bob.get(f"{API}/games/{gid}/")
    cursor = bob.get(f"{API}/events/", {"limit": 1}).json()["next_cursor"]
    game_poll = Timed(bob, f"{API}/games/{gid}/", {"wait": 30}, HTTP_IF_NONE_MATCH=first["ETag"])
    feed_poll = Timed(bob, f"{API}/events/", {"cursor": cursor, "wait": 30})
    _waiting(2)
    return first, game_poll, feed_poll


def test_withdrawing_an_invitation_wakes_the_invitees_game_view_and_feed(backend, pair):
    alice, bob, _gid = pair
    gid = _invitation(alice)
    first, game_poll, feed_poll = _both_polls(bob, gid)
    hub, mark = live.hub(), live.hub().mark(live.game_key(gid))  # a publish after this mark is seen
    assert game_poll.thread.is_alive() and feed_poll.thread.is_alive()
    assert alice.post(f"{API}/games/{gid}/abort/").status_code == 200
    assert hub.wait(live.game_key(gid), mark, 30) is True  # the game's key was published (not a timeout)
    hub.release(live.game_key(gid))
    r = game_poll.join()
    assert r.status_code == 200 and r.json()["status"] == "aborted"
    assert r.json()["version"] == first.json()["version"] + 1 and r["ETag"] != first["ETag"]
    events = feed_poll.join().json()["results"]
    assert [(e["kind"], e["game_id"], e["data"]["by"]) for e in events] == [("invitation_withdrawn", gid, "alice")]
    assert game_poll.seconds < 30 and feed_poll.seconds < 30  # answered before their wait ran out


def test_an_expiring_invitation_wakes_the_game_view_and_both_feeds(backend, pair):
    from django.utils import timezone

    from games.services.deadlines import invitations_expire

    alice, bob, _gid = pair
    gid = _invitation(alice)
    first, game_poll, feed_poll = _both_polls(bob, gid)
    alice_cursor = alice.get(f"{API}/events/", {"limit": 1}).json()["next_cursor"]
    alice_poll = Timed(alice, f"{API}/events/", {"cursor": alice_cursor, "wait": 30})
    _waiting(3)
    later = timezone.now() + timezone.timedelta(days=30)  # past any invitation's time to answer
    assert invitations_expire(now=later) == 1
    r = game_poll.join()
    assert r.status_code == 200 and r.json()["status"] == "aborted" and r.json()["end_reason"] == "expired"
    assert r.json()["version"] == first.json()["version"] + 1
    assert [(e["kind"], e["data"]["by"]) for e in feed_poll.join().json()["results"]] == [
        ("invitation_expired", "alice")]
    assert [(e["kind"], e["data"]["by"]) for e in alice_poll.join().json()["results"]] == [
        ("invitation_expired", "bob")]
    assert max(game_poll.seconds, feed_poll.seconds, alice_poll.seconds) < 30  # woken, not timed out


VERSION_WRITE = re.compile(r"\bversion\s*\+=|\bversion\s*=\s*(models\.)?F\(")


def version_writes(root) -> list[str]:
    """``["games/services/common.py:LINE", ...]``: the lines of the project's code under ``root``
    (not tests, benchmarks, migrations or the engine; never a generated copy) that change a
    ``version`` in place."""
    found = []
    for path in source_files(root=root):
        rel = path.relative_to(root).as_posix()
        if "/" not in rel or rel.startswith(("tests/", "benchmarks/")) or "/migrations/" in rel or "/engine/" in rel:
            continue
        found += [f"{rel}:{n}" for n, line in enumerate(path.read_text().splitlines(), 1) if VERSION_WRITE.search(line)]
    return found


def test_no_service_changes_a_game_version_but_through_version_bump():
    """Requests long-polling a game view are woken by ``games.services.common._version_bump``; a
    version changed any other way (``+= 1``, an ``F()`` update) would leave them asleep."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = version_writes(root)
    bump = Path(root / "games/services/common.py").read_text().splitlines()
    assert found == [f"games/services/common.py:{n}" for n, line in enumerate(bump, 1) if VERSION_WRITE.search(line)]
    assert len(found) == 1 and "game.version += 1" in bump[int(found[0].rsplit(":", 1)[1]) - 1]


def test_a_publish_wakes_the_waiters_of_its_key_only():
    """Each waited key has its own condition: a publish of one key leaves the requests waiting on
    other keys asleep (the same waiter lock still queued on their condition, never notified), and
    wakes its own."""
    import threading
    import time

    hub = live.LocalHub()
    woke = {}

    def waiter(key):
        mark = hub.mark(key)
        try:
            woke[key] = hub.wait(key, mark, 30)
        finally:
            hub.release(key)

    threads = {k: threading.Thread(target=waiter, args=(k,)) for k in ("g1", "g2")}
    for t in threads.values():
        t.start()
    deadline = time.monotonic() + 10
    while hub.waiting() < 2 or any(not hub._keys[k].condition._waiters for k in ("g1", "g2")):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    asleep = list(hub._keys["g2"].condition._waiters)
    hub.publish(["g1"])
    threads["g1"].join(timeout=10)
    assert woke == {"g1": True}
    time.sleep(0.05)
    assert list(hub._keys["g2"].condition._waiters) == asleep  # g2's waiter was never notified
    hub.publish(["g2"])
    threads["g2"].join(timeout=10)
    assert woke == {"g1": True, "g2": True} and hub.waiting() == 0


@pytest.mark.django_db
def test_the_keys_of_one_transaction_are_published_in_one_call(django_capture_on_commit_callbacks, monkeypatch):
    """An AI turn changes the game and writes the person's event: both keys go to Redis in one
    publish after commit (one round trip, issue 14), not one each. Keys asked for inside a
    savepoint join the transaction's publish; a publish first asked for inside a savepoint that
    rolls back is dropped with it, so what the block around it asks for afterwards is published
    by a callback of its own (never lost with the rolled-back one)."""
    from types import SimpleNamespace

    from django.db import transaction

    sent = []
    monkeypatch.setattr(live, "live_publish", lambda keys: sent.append(sorted(keys)))  # one call: one round trip
    person, ai = SimpleNamespace(pk=7, is_ai=False), SimpleNamespace(pk=8, is_ai=True)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            live.live_game_publish_after_commit(3)
            live.live_publish_after_commit([SimpleNamespace(player=person), SimpleNamespace(player=ai)])
            with transaction.atomic():  # a savepoint that commits: its key joins the same call
                live.live_game_publish_after_commit(4)
    assert len(callbacks) == 1 and sent == [["g3", "g4", "p7"]]

    sent.clear()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            try:
                with transaction.atomic():
                    live.live_game_publish_after_commit(5)
                    raise RuntimeError("rolled back")
            except RuntimeError:
                pass
            live.live_game_publish_after_commit(6)
    assert len(callbacks) == 1 and sent == [["g6"]]  # g5's change was rolled back: not published
