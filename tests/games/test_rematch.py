"""Rematch after a finished match (games/services/rematch.py): offer, accept (seats swapped, same
rules and time control), decline, one offer per match; refused requests write nothing."""
import threading

import pytest

from games.models import Game
from notifications.models import Event
from tests.helpers import assert_error, register

RULES = {"variant": "classic", "target_score": 150}


def _finished(alice, bob) -> int:
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "rules": RULES,
                                          "move_time_limit": 3600, "timeout_policy": "auto_play",
                                          "auto_play_limit": 2}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    assert alice.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    return gid


def _snapshot(gid):
    game = Game.objects.get(pk=gid)
    return Game.objects.count(), Event.objects.count(), game.version, game.rematch_status, game.rematch_id


def _refused(client, url, gid, code, status=409):
    before = _snapshot(gid)
    r = client.post(url)
    assert r.status_code == status
    assert_error(r, code)
    assert _snapshot(gid) == before  # nothing written
    return r.json()


def _last_event(player_name):
    return Event.objects.filter(player__name=player_name).order_by("-id").first()


@pytest.mark.django_db
@pytest.mark.error_code("rematch_pending", "no_rematch_offer", "rematch_exists")
def test_offer_accept_swaps_seats_and_keeps_rules_and_time_control(alice, bob):
    gid = _finished(alice, bob)
    r = bob.post(f"/api/v1/games/{gid}/rematch/")
    assert r.status_code == 200
    assert r.json()["rematch"] == {"status": "offered", "offered_by": 1, "game_id": None}
    offered = _last_event("alice")
    assert (offered.kind, offered.game_id, offered.data["by"]) == ("rematch_offered", gid, "bob")
    assert offered.data["version"] == alice.get(f"/api/v1/games/{gid}/").json()["version"]  # the offer's version
    _refused(bob, f"/api/v1/games/{gid}/rematch/", gid, "rematch_pending")
    err = _refused(bob, f"/api/v1/games/{gid}/rematch/accept/", gid, "no_rematch_offer")  # your own offer
    assert err["error"]["message"] == "There is no rematch offer for you to answer."

    r = alice.post(f"/api/v1/games/{gid}/rematch/accept/")
    assert r.status_code == 201, r.content
    new = r.json()
    old = Game.objects.get(pk=gid)
    assert new["id"] == old.rematch_id and new["status"] == "active" and new["your_seat"] == 1
    assert new["version"] == 1  # a new game, dealt: its first version, as game_create's
    assert [s["name"] for s in new["seats"]] == ["bob", "alice"]  # swapped
    assert new["rules"] == old.rules and new["variant"] == "classic" and new["rules"]["target_score"] == 150
    assert (new["move_time_limit"], new["timeout_policy"], new["auto_play_limit"]) == (3600, "auto_play", 2)
    assert new["view"]["hand"] and new["deck_commitment"]
    assert Event.objects.get(player__name="bob", kind="rematch_accepted").data["rematch_game_id"] == new["id"]
    assert alice.get(f"/api/v1/games/{gid}/").json()["rematch"] == {
        "status": "accepted", "offered_by": 1, "game_id": new["id"]}
    err = _refused(alice, f"/api/v1/games/{gid}/rematch/accept/", gid, "rematch_exists")
    assert err["error"]["detail"] == {"rematch_game_id": new["id"]}
    _refused(bob, f"/api/v1/games/{gid}/rematch/", gid, "rematch_exists")


@pytest.mark.django_db
@pytest.mark.error_code("rematch_declined")
def test_decline_is_final_for_the_match(alice, bob):
    gid = _finished(alice, bob)
    assert alice.post(f"/api/v1/games/{gid}/rematch/").status_code == 200
    r = bob.post(f"/api/v1/games/{gid}/rematch/decline/")
    assert r.status_code == 200 and r.json()["rematch"]["status"] == "declined"
    declined = _last_event("alice")
    assert (declined.kind, declined.data["by"]) == ("rematch_declined", "bob")
    for client, url in [(alice, "rematch/"), (bob, "rematch/"), (bob, "rematch/accept/"), (bob, "rematch/decline/")]:
        _refused(client, f"/api/v1/games/{gid}/{url}", gid, "rematch_declined")


@pytest.mark.django_db
@pytest.mark.error_code("rematch_already_offered")
def test_an_offer_answering_an_offer_is_refused_and_only_accept_accepts(alice, bob):
    """A second offer is not an accept: 409 with the offering seat, nothing written; the rematch
    starts only when that player accepts explicitly."""
    gid = _finished(alice, bob)
    assert alice.post(f"/api/v1/games/{gid}/rematch/").status_code == 200
    err = _refused(bob, f"/api/v1/games/{gid}/rematch/", gid, "rematch_already_offered")
    assert err["error"]["detail"] == {"offered_by": 0}  # alice's seat
    assert Game.objects.get(pk=gid).rematch_id is None
    r = bob.post(f"/api/v1/games/{gid}/rematch/accept/")
    assert r.status_code == 201 and r.json()["id"] == Game.objects.get(pk=gid).rematch_id
    assert [s["name"] for s in r.json()["seats"]] == ["bob", "alice"]


@pytest.mark.django_db(transaction=True)
def test_simultaneous_offers_from_both_sides_make_one_offer_and_no_rematch():
    """alice and bob press "rematch" at the same moment (threads on a barrier): the row lock
    serializes them; exactly one offer is recorded, the other gets ``rematch_already_offered``,
    and no new match exists until somebody accepts."""
    from django.db import connection

    from games import services
    from okgin_project.errors import Conflict
    from tests.games.factories import game_make

    assert connection.vendor == "postgresql"
    game = game_make()
    services.game_resign(game_id=game.pk, player=game.player0)
    games_before = Game.objects.count()
    barrier = threading.Barrier(2)
    outcomes = {}

    def offer(seat):
        try:
            barrier.wait(timeout=10)
            _, rematch = services.rematch_offer(game_id=game.pk, player=game.player_at(seat))
            outcomes[seat] = "offered" if rematch is None else "started"
        except Conflict as exc:
            outcomes[seat] = exc.code
        finally:
            connection.close()

    threads = [threading.Thread(target=offer, args=(seat,)) for seat in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes.values()) == ["offered", "rematch_already_offered"]
    first = next(seat for seat, outcome in outcomes.items() if outcome == "offered")
    g = Game.objects.get(pk=game.pk)
    assert (g.rematch_status, g.rematch_offered_by, g.rematch_id) == ("offered", first, None)
    assert Game.objects.count() == games_before
    assert Event.objects.filter(game_id=game.pk, kind="rematch_offered").count() == 1


@pytest.mark.django_db
def test_unfinished_and_foreign_games_are_refused(alice, bob, anon):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    gid = r.json()["id"]
    err = _refused(alice, f"/api/v1/games/{gid}/rematch/", gid, "game_not_finished")  # invited
    assert err["error"]["message"] == "A rematch can only follow a finished match."
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    _refused(alice, f"/api/v1/games/{gid}/rematch/", gid, "game_not_finished")  # active
    _refused(bob, f"/api/v1/games/{gid}/rematch/decline/", gid, "game_not_finished")
    alice.post(f"/api/v1/games/{gid}/resign/")
    carol = register(anon, "carol")
    for url in ("rematch/", "rematch/accept/", "rematch/decline/"):
        _refused(carol, f"/api/v1/games/{gid}/{url}", gid, "not_found", status=404)
    _refused(bob, f"/api/v1/games/{gid}/rematch/decline/", gid, "no_rematch_offer")
    before = Game.objects.count()
    assert alice.post("/api/v1/games/999999/rematch/").status_code == 404
    assert Game.objects.count() == before


@pytest.mark.django_db
def test_the_ai_accepts_at_once_and_keeps_seat_one(alice):
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "rules": RULES}, format="json")
    gid = r.json()["id"]
    assert alice.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    r = alice.post(f"/api/v1/games/{gid}/rematch/")
    assert r.status_code == 201, r.content
    new = r.json()
    assert new["kind"] == "ai" and new["your_seat"] == 0 and new["rules"]["target_score"] == 150
    assert new["seats"][1]["name"] == "ai-random"
    assert Game.objects.get(pk=gid).rematch_id == new["id"]


@pytest.mark.django_db
def test_a_retried_accept_replays_the_same_rematch(alice, bob):
    gid = _finished(alice, bob)
    assert bob.post(f"/api/v1/games/{gid}/rematch/", HTTP_IDEMPOTENCY_KEY="offer-1").status_code == 200
    again = bob.post(f"/api/v1/games/{gid}/rematch/", HTTP_IDEMPOTENCY_KEY="offer-1")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"  # not rematch_pending
    first = alice.post(f"/api/v1/games/{gid}/rematch/accept/", HTTP_IDEMPOTENCY_KEY="acc-1")
    assert first.status_code == 201 and first["Location"].endswith(f"/api/v1/games/{first.json()['id']}/")
    before = Game.objects.count()
    retry = alice.post(f"/api/v1/games/{gid}/rematch/accept/", HTTP_IDEMPOTENCY_KEY="acc-1")
    assert retry.status_code == 201 and retry["Idempotent-Replayed"] == "true"
    assert retry.json()["id"] == first.json()["id"] and Game.objects.count() == before


def _delete(client, name):
    r = client.post("/api/v1/me/delete/", {"password": "s3cret-pass-" + name}, format="json")
    assert r.status_code == 204, r.content


def _finished_by_resigning(bob, anon, name):
    """A new player ``name`` accepts bob's invitation and resigns; returns its client and the game id."""
    client = register(anon, name)
    gid = bob.post("/api/v1/games/new/", {"kind": "invite", "opponent": name}, format="json").json()["id"]
    assert client.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    assert client.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    return client, gid


@pytest.mark.django_db
@pytest.mark.error_code("rematch_declined", "invalid_opponent")
def test_no_rematch_can_start_against_a_deleted_account(alice, bob, anon):
    # g1: alice offers, then alice deletes her account: her pending offer is closed, bob cannot
    # accept it into a match against nobody.
    g1 = _finished(alice, bob)
    assert alice.post(f"/api/v1/games/{g1}/rematch/").status_code == 200
    # g2: bob offers to carl, then carl deletes his account: bob's offer is declined, bob is told.
    carl, g2 = _finished_by_resigning(bob, anon, "carl")
    assert bob.post(f"/api/v1/games/{g2}/rematch/").status_code == 200
    # g3: no offer at all; dora deletes her account afterwards.
    dora, g3 = _finished_by_resigning(bob, anon, "dora")

    for client, name in ((alice, "alice"), (carl, "carl"), (dora, "dora")):
        _delete(client, name)

    view = bob.get(f"/api/v1/games/{g1}/").json()
    assert view["rematch"] == {"status": "declined", "offered_by": 0, "game_id": None}
    _refused(bob, f"/api/v1/games/{g1}/rematch/accept/", g1, "rematch_declined")
    view = bob.get(f"/api/v1/games/{g2}/").json()
    assert view["rematch"] == {"status": "declined", "offered_by": 0, "game_id": None}
    told = _last_event("bob")
    assert (told.kind, told.game_id) == ("rematch_declined", g2)
    assert told.data["by"] == Game.objects.get(pk=g2).player1.name  # carl's placeholder, not "carl"
    assert told.data["by"].startswith("deleted-")
    err = _refused(bob, f"/api/v1/games/{g3}/rematch/", g3, "invalid_opponent")
    assert err["error"]["message"] == "Your opponent deleted their account: there is nobody to play a rematch with."
