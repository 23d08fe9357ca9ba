"""games/views.py: invitations, lobby, my-games filters, ETag, errors, export replay."""
import pytest

from games import engine
from games.models import Game, Move
from tests.games.factories import DECK
from tests.helpers import act, register


@pytest.mark.django_db
def test_invitation_decline_abort_and_open_challenge(alice, bob, anon):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    gid = r.json()["id"]
    assert alice.post(f"/api/v1/games/{gid}/accept/").json()["error"]["code"] == "not_found"
    assert bob.post(f"/api/v1/games/{gid}/decline/").json()["status"] == "declined"
    assert bob.post(f"/api/v1/games/{gid}/accept/").json()["error"]["code"] == "not_invited"

    gid2 = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    assert alice.post(f"/api/v1/games/{gid2}/abort/").json()["status"] == "aborted"

    gid3 = alice.post("/api/v1/games/new/", {"kind": "open"}, format="json").json()["id"]
    lobby = bob.get("/api/v1/games/lobby/").json()["results"]
    assert [g["id"] for g in lobby] == [gid3]
    assert alice.post(f"/api/v1/games/{gid3}/accept/").json()["error"]["code"] == "own_challenge"
    carl = register(anon, "carl")
    r = carl.post(f"/api/v1/games/{gid3}/accept/")
    assert r.status_code == 200 and r.json()["status"] == "active" and r.json()["your_seat"] == 1
    assert bob.get("/api/v1/games/lobby/").json()["results"] == []
    assert bob.get(f"/api/v1/games/{gid3}/").status_code == 404  # not seated


@pytest.mark.django_db
def test_only_staff_choose_the_deck(bob, alice):
    r = bob.post("/api/v1/games/new/", {"kind": "invite", "opponent": "alice", "decks": [DECK]}, format="json")
    assert r.status_code == 403 and r.json()["error"]["code"] == "staff_only"
    assert Game.objects.count() == 0
    bad = DECK[:51] + [DECK[0]]
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [bad]}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_deck"
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": {"variant": "poker"}}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": {"variant": "classic", "knock_limit": "upcard"}},
                   format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_rules"
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_error_shape_for_bad_input(alice, anon):
    assert anon.get("/api/v1/games/").json()["error"]["code"] == "not_authenticated"
    r = alice.post("/api/v1/games/new/", "{not json", content_type="application/json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
    r = alice.get("/api/v1/games/999999/")
    assert r.status_code == 404 and r.json() == {"error": {"code": "not_found", "message": "No such game."}}
    r = alice.post("/api/v1/games/999999/actions/", {"version": 1, "action": {"type": "pass"}}, format="json")
    assert r.status_code == 404
    r = alice.post("/api/v1/games/1/actions/", {"version": "x"}, format="json")
    assert r.status_code == 400 and set(r.json()["error"]["detail"]) == {"version", "action"}
    assert alice.get("/api/v1/nowhere/").json()["error"]["code"] == "not_found"


@pytest.mark.django_db
def test_etag_changes_with_each_version(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                     format="json").json()["id"]
    bob.post(f"/api/v1/games/{gid}/accept/")
    r = alice.get(f"/api/v1/games/{gid}/")
    etag = r["ETag"]
    assert alice.get(f"/api/v1/games/{gid}/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert bob.get(f"/api/v1/games/{gid}/", HTTP_IF_NONE_MATCH=etag).status_code == 200  # other seat, other body
    act(alice, gid, r.json()["version"], {"type": "pass"})
    r2 = alice.get(f"/api/v1/games/{gid}/", HTTP_IF_NONE_MATCH=etag)
    assert r2.status_code == 200 and r2["ETag"] != etag


@pytest.mark.django_db
def test_my_games_filters_and_resign(alice, bob, anon):
    carl = register(anon, "carl")
    g1 = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                    format="json").json()["id"]
    bob.post(f"/api/v1/games/{g1}/accept/")
    g2 = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "carl"}, format="json").json()["id"]
    g3 = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "carl", "rules": {"variant": "classic"}},
                    format="json").json()["id"]
    carl.post(f"/api/v1/games/{g3}/accept/")

    def ids(client, query=""):
        return sorted(g["id"] for g in client.get("/api/v1/games/" + query).json()["results"])

    assert ids(alice) == sorted([g1, g2, g3])
    assert ids(alice, "?opponent=carl") == sorted([g2, g3])
    assert ids(alice, "?status=invited") == [g2]
    assert ids(alice, "?variant=classic") == [g3]
    to_act_g1 = Game.objects.get(pk=g1).to_act_seat  # seat 0 (alice) is the non-dealer of round 1
    assert to_act_g1 == 0
    my_turn_alice = set(ids(alice, "?my_turn=true"))
    assert g1 in my_turn_alice and g2 not in my_turn_alice
    assert g1 not in ids(bob, "?my_turn=true")

    r = bob.post(f"/api/v1/games/{g1}/resign/")
    assert r.json()["status"] == "finished" and r.json()["winner_seat"] == 0 and r.json()["end_reason"] == "resigned"
    assert ids(alice, "?result=won") == [g1] and ids(bob, "?result=lost") == [g1] and ids(bob, "?result=won") == []
    page = alice.get("/api/v1/games/?page_size=2&ordering=created_at").json()
    assert [g["id"] for g in page["results"]] == sorted([g1, g2, g3])[:2] and page["next"]
    rest = alice.get(page["next"]).json()
    assert [g["id"] for g in rest["results"]] == [max(g1, g2, g3)]

    # Export of the resigned game replays to the stored state.
    export = carl.get(f"/api/v1/games/{g1}/export/").json()  # finished games are public history
    state = engine.replay(engine.RuleSet.from_dict(export["rules"]), export["first_dealer"], export["decks"],
                          [(m["seat"], m["action"]) for m in export["moves"]])
    assert state.to_dict() == Game.objects.get(pk=g1).state
    assert alice.get(f"/api/v1/games/{g3}/export/").json()["error"]["code"] == "game_not_finished"


@pytest.mark.django_db
def test_moves_redacted_while_the_round_is_in_play(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                     format="json").json()["id"]
    v = bob.post(f"/api/v1/games/{gid}/accept/").json()["version"]
    for client, action in [(alice, {"type": "pass"}), (bob, {"type": "pass"}), (alice, {"type": "draw_stock"})]:
        v = act(client, gid, v, action).json()["game"]["version"]
    drew = [m for m in bob.get(f"/api/v1/games/{gid}/moves/").json() if m["action"]["type"] == "draw_stock"][0]
    assert drew["events"] == [{"type": "drew_stock", "seat": 0}]  # bob does not see 3H
    mine = [m for m in alice.get(f"/api/v1/games/{gid}/moves/").json() if m["action"]["type"] == "draw_stock"][0]
    assert mine["events"] == [{"type": "drew_stock", "seat": 0, "card": "3H"}]
    assert Move.objects.filter(game_id=gid).count() == 3
