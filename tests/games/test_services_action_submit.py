"""games.services.action_submit: versions, idempotency, illegal actions, the row lock."""
import threading

import pytest
from django.db import connection

from games import services
from games.models import Game, IdempotencyRecord, Move
from okgin_project.errors import StaleVersion
from tests.games.factories import DECK, game_make
from tests.helpers import act, assert_error


def _snapshot(game_id):
    g = Game.objects.get(pk=game_id)
    return (g.version, g.state, g.move_count, Move.objects.filter(game_id=game_id).count(),
            IdempotencyRecord.objects.filter(game_id=game_id).count())


@pytest.mark.django_db
def test_stale_version_is_refused_and_writes_nothing():
    game = game_make()
    services.action_submit(game_id=game.pk, player=game.player0, expected_version=game.version,
                           action={"type": "pass"})
    before = _snapshot(game.pk)
    with pytest.raises(StaleVersion):
        services.action_submit(game_id=game.pk, player=game.player1, expected_version=game.version,
                               action={"type": "pass"})
    assert _snapshot(game.pk) == before


@pytest.mark.django_db
@pytest.mark.error_code("stale_version")
def test_stale_version_over_http_is_409_with_code(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "first_dealer": 1,
                                          "decks": [DECK]}, format="json")
    game_id = r.json()["id"]
    v = bob.post(f"/api/v1/games/{game_id}/accept/").json()["version"]
    assert act(alice, game_id, v, {"type": "pass"}).status_code == 200
    before = _snapshot(game_id)
    r = act(bob, game_id, v, {"type": "pass"})
    assert assert_error(r, "stale_version")["detail"] == {"current_version": v + 1}
    assert _snapshot(game_id) == before


@pytest.mark.django_db
@pytest.mark.error_code("idempotency_key_reused")
def test_same_idempotency_key_twice_applies_one_move(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "first_dealer": 1,
                                          "decks": [DECK]}, format="json")
    game_id = r.json()["id"]
    v = bob.post(f"/api/v1/games/{game_id}/accept/").json()["version"]
    first = act(alice, game_id, v, {"type": "pass"}, key="k-1")
    second = act(alice, game_id, v, {"type": "pass"}, key="k-1")
    assert first.status_code == second.status_code == 200
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert Move.objects.filter(game_id=game_id).count() == 1
    assert Game.objects.get(pk=game_id).version == v + 1
    # The same key for another request is refused and writes nothing.
    before = _snapshot(game_id)
    r = act(alice, game_id, v + 1, {"type": "draw_stock"}, key="k-1")
    assert_error(r, "idempotency_key_reused")
    assert _snapshot(game_id) == before


@pytest.mark.django_db
def test_a_new_key_at_the_current_version_is_stored_without_a_lookup_and_replays(alice, bob):
    """Sent at the game's current version, a key cannot have an answer stored for this request, so
    the record is not read before the action (issue 14); it is written once, and a retry, now at an
    old version, reads it and gets the first answer."""
    from django.db import connection as conn
    from django.test.utils import CaptureQueriesContext

    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "first_dealer": 1,
                                          "decks": [DECK]}, format="json")
    game_id = r.json()["id"]
    v = bob.post(f"/api/v1/games/{game_id}/accept/").json()["version"]
    with CaptureQueriesContext(conn) as queries:
        first = act(alice, game_id, v, {"type": "pass"}, key="k-new")
    assert first.status_code == 200
    touching = [q["sql"].split()[0] for q in queries if "games_idempotencyrecord" in q["sql"]]
    assert touching == ["INSERT"]
    with CaptureQueriesContext(conn) as queries:
        again = act(alice, game_id, v, {"type": "pass"}, key="k-new")
    assert [q["sql"].split()[0] for q in queries if "games_idempotencyrecord" in q["sql"]] == ["SELECT"]
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Move.objects.filter(game_id=game_id).count() == 1


@pytest.mark.django_db
@pytest.mark.error_code("idempotency_key_reused")
@pytest.mark.parametrize("action", [{"type": "pass"}, {"type": "knock", "card": "AC"}], ids=["not-your-turn", "illegal"])
def test_a_reused_key_is_422_before_the_refusal_of_the_action(alice, bob, action):
    """A key used for an earlier action and sent again at the current version with an action the
    engine refuses: the reuse is answered (422), as when the key is looked up first, and nothing is
    written."""
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "first_dealer": 1,
                                          "decks": [DECK]}, format="json")
    game_id = r.json()["id"]
    v = bob.post(f"/api/v1/games/{game_id}/accept/").json()["version"]
    assert act(alice, game_id, v, {"type": "pass"}, key="k-1").status_code == 200
    before = _snapshot(game_id)
    assert_error(act(alice, game_id, v + 1, action, key="k-1"), "idempotency_key_reused")
    assert _snapshot(game_id) == before


@pytest.mark.django_db
@pytest.mark.parametrize("reused", [pytest.param(False, marks=pytest.mark.error_code("turn_expired")),
                                    pytest.param(True, marks=pytest.mark.error_code("idempotency_key_reused"))])
def test_a_deadline_passing_during_the_check_gives_the_answer_of_a_lookup_first(alice, bob, monkeypatch, reused):
    """The deadline passes between the check that lets the key's lookup wait (made to miss it
    here) and the action: the timeout found then is rolled back and the request runs again with
    the lookup first. A new key: 409 turn_expired, the timeout applied once. A key used before:
    422, and nothing written (the timeout is left to the next access, as when looked up first)."""
    from datetime import timedelta

    from django.utils import timezone

    from games.services import actions

    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": 600,
                                           "timeout_policy": "forfeit", "first_dealer": 1, "decks": [DECK]},
                     format="json").json()["id"]
    v = bob.post(f"/api/v1/games/{gid}/accept/").json()["version"]
    assert act(alice, gid, v, {"type": "pass"}, key="k-1").status_code == 200  # bob to act at v + 1
    assert act(bob, gid, v + 1, {"type": "pass"}, key="k-1").status_code == 200  # alice at v + 2
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    monkeypatch.setattr(actions, "_deadline_due", lambda game, pause_check: False)
    before = _snapshot(gid)
    r = act(alice, gid, v + 2, {"type": "draw_stock"}, key="k-1" if reused else "k-2")
    g = Game.objects.get(pk=gid)
    if reused:
        assert_error(r, "idempotency_key_reused")
        assert _snapshot(gid) == before and g.status == "active"
    else:
        assert_error(r, "turn_expired")
        assert (g.status, g.end_reason, g.winner_seat) == ("finished", "timeout", 1)
        assert Move.objects.filter(game_id=gid).count() == 2
        assert not IdempotencyRecord.objects.filter(key="k-2").exists()


# Round on factories.DECK, first dealer seat 1: seat 0 (AC..9C 5H) acts first, upcard 6D, stock 3H 4H...
ILLEGAL = [
    # (actions played first as (seat, action), then the offending (seat, action), code, rule, status)
    pytest.param([], (1, {"type": "pass"}), "not_your_turn", "R6", 409, marks=pytest.mark.error_code("not_your_turn")),
    pytest.param([], (0, {"type": "draw_stock"}), "wrong_phase", "R5.1", 409, marks=pytest.mark.error_code("wrong_phase")),
    pytest.param([], (0, {"type": "fly"}), "validation_error", None, 400,
                 marks=pytest.mark.error_code("validation_error")),
    pytest.param([], (0, {"type": "discard"}), "malformed_action", None, 400,
                 marks=pytest.mark.error_code("malformed_action")),
    pytest.param([], (0, {"type": "pass", "card": "AC"}), "malformed_action", None, 400,
                 marks=pytest.mark.error_code("malformed_action")),
    pytest.param([(0, {"type": "pass"}), (1, {"type": "pass"})], (0, {"type": "draw_discard"}), "upcard_unavailable",
                 "R5.4", 422, marks=pytest.mark.error_code("upcard_unavailable")),
    pytest.param([(0, {"type": "take_upcard"})], (0, {"type": "discard", "card": "6D"}), "discard_taken_card", "R6.3",
                 422, marks=pytest.mark.error_code("discard_taken_card")),
    pytest.param([(0, {"type": "take_upcard"})], (0, {"type": "discard", "card": "KS"}), "card_not_in_hand", None,
                 422, marks=pytest.mark.error_code("card_not_in_hand")),
    # After taking 6D: AC..9C 5H 6D; discarding 9C leaves run A-8 + 5H 6D = 11 > 6.
    pytest.param([(0, {"type": "take_upcard"})], (0, {"type": "knock", "card": "9C"}), "knock_over_limit", "R7.2",
                 422, marks=pytest.mark.error_code("knock_over_limit")),
    pytest.param([(0, {"type": "take_upcard"})], (0, {"type": "knock", "card": "5H", "melds": [["AC", "2C", "4C"]]}),
                 "invalid_meld", "R2", 422, marks=pytest.mark.error_code("invalid_meld")),
    pytest.param([(0, {"type": "take_upcard"})], (0, {"type": "discard", "card": "ZZ"}), "malformed_action", None,
                 400, marks=pytest.mark.error_code("malformed_action")),
    # Cards seat 0 holds, but not spelled as the schema's pattern spells them (R1.2): refused as unreadable.
    *[pytest.param([(0, {"type": "take_upcard"})], (0, {"type": "discard", "card": spelled}), "malformed_action",
                   "R1.2", 400, marks=pytest.mark.error_code("malformed_action"), id=f"discard-{spelled!r}")
      for spelled in ("9c", " 9C", "9C ", "5h")],
    pytest.param([(0, {"type": "take_upcard"})], (0, {"type": "knock", "card": "5H",
                                                      "melds": [["ac", "2C", "3C"]]}),
                 "malformed_action", "R1.2", 400, marks=pytest.mark.error_code("malformed_action"), id="knock-meld-ac"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("key", [None, "fresh-key"], ids=["plain", "idempotency-key"])
@pytest.mark.parametrize("before_actions,offending,code,rule,status", ILLEGAL)
def test_each_illegal_action_returns_its_code_and_writes_nothing(before_actions, offending, code, rule, status, key):
    from rest_framework.test import APIClient
    from rest_framework_simplejwt.tokens import AccessToken

    game = game_make()
    clients = []
    for p in (game.player0, game.player1):
        c = APIClient()
        c.credentials(HTTP_AUTHORIZATION=f"Bearer {AccessToken.for_user(p.user)}")
        clients.append(c)
    for seat, action in before_actions:
        v = Game.objects.get(pk=game.pk).version
        assert act(clients[seat], game.pk, v, action).status_code == 200
    before = _snapshot(game.pk)
    seat, action = offending
    r = act(clients[seat], game.pk, before[0], action, key=key)
    assert r.status_code == status, r.content
    error = assert_error(r, code)
    if rule:
        assert error["rule"].startswith(rule)
    assert _snapshot(game.pk) == before


@pytest.mark.django_db(transaction=True)
def test_two_threads_racing_on_one_game_apply_exactly_one_move():
    assert connection.vendor == "postgresql"
    game = game_make()
    barrier = threading.Barrier(2)
    outcomes = []

    def submit(action):
        try:
            barrier.wait(timeout=10)
            services.action_submit(game_id=game.pk, player=game.player0, expected_version=game.version,
                                   action=action)
            outcomes.append("ok")
        except StaleVersion:
            outcomes.append("stale")
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(a,)) for a in ({"type": "pass"}, {"type": "take_upcard"})]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes) == ["ok", "stale"]
    assert Move.objects.filter(game_id=game.pk).count() == 1
    g = Game.objects.get(pk=game.pk)
    assert g.version == game.version + 1 and g.move_count == 1
