"""games/views.py: invitations, lobby, my-games filters, ETag, errors, export replay."""
import pytest

from games import engine
from games.models import Game, Move
from tests.games.factories import DECK
from tests.helpers import act, assert_error, register


@pytest.mark.django_db
@pytest.mark.error_code("not_found", "not_invited", "own_challenge")
def test_invitation_decline_abort_and_open_challenge(alice, bob, anon):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    gid = r.json()["id"]
    assert_error(alice.post(f"/api/v1/games/{gid}/accept/"), "not_found")
    assert bob.post(f"/api/v1/games/{gid}/decline/").json()["status"] == "declined"
    assert_error(bob.post(f"/api/v1/games/{gid}/accept/"), "not_invited")
    version = Game.objects.get(pk=gid).version
    err = assert_error(bob.post(f"/api/v1/games/{gid}/decline/"), "not_invited")  # declined already
    assert err["message"] == "This game is not waiting for an answer."
    assert (Game.objects.get(pk=gid).status, Game.objects.get(pk=gid).version) == ("declined", version)

    gid2 = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    assert alice.post(f"/api/v1/games/{gid2}/abort/").json()["status"] == "aborted"
    version = Game.objects.get(pk=gid2).version
    err = assert_error(alice.post(f"/api/v1/games/{gid2}/abort/"), "not_invited")  # aborted already
    assert err["message"] == "Only an unanswered invitation can be aborted."
    assert (Game.objects.get(pk=gid2).status, Game.objects.get(pk=gid2).version) == ("aborted", version)

    gid3 = alice.post("/api/v1/games/new/", {"kind": "open"}, format="json").json()["id"]
    lobby = bob.get("/api/v1/games/lobby/").json()["results"]
    assert [g["id"] for g in lobby] == [gid3]
    assert_error(alice.post(f"/api/v1/games/{gid3}/accept/"), "own_challenge")
    assert Game.objects.get(pk=gid3).status == "invited"
    carl = register(anon, "carl")
    r = carl.post(f"/api/v1/games/{gid3}/accept/")
    assert r.status_code == 200 and r.json()["status"] == "active" and r.json()["your_seat"] == 1
    assert bob.get("/api/v1/games/lobby/").json()["results"] == []
    assert bob.get(f"/api/v1/games/{gid3}/").status_code == 404  # not seated


@pytest.mark.django_db
@pytest.mark.error_code("staff_only", "bad_deck", "bad_rules")
def test_only_staff_choose_the_deck(bob, alice):
    r = bob.post("/api/v1/games/new/", {"kind": "invite", "opponent": "alice", "decks": [DECK]}, format="json")
    assert_error(r, "staff_only")
    assert Game.objects.count() == 0
    bad = DECK[:51] + [DECK[0]]
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [bad]}, format="json")
    assert_error(r, "bad_deck")
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": {"variant": "poker"}}, format="json")
    assert_error(r, "bad_rules")
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": {"variant": "classic", "knock_limit": "upcard"}},
                   format="json")
    assert_error(r, "bad_rules")
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.error_code("not_authenticated")
def test_error_shape_for_bad_input(alice, anon):
    assert_error(anon.get("/api/v1/games/"), "not_authenticated")
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
@pytest.mark.error_code("game_not_finished")
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
    page = alice.get("/api/v1/games/?limit=2&ordering=created_at").json()
    assert [g["id"] for g in page["results"]] == sorted([g1, g2, g3])[:2] and page["has_more"]
    rest = alice.get("/api/v1/games/", {"cursor": page["next_cursor"], "ordering": "created_at"}).json()
    assert [g["id"] for g in rest["results"]] == [max(g1, g2, g3)] and not rest["has_more"]

    # Export of the resigned game replays to the stored state.
    export = carl.get(f"/api/v1/games/{g1}/export/").json()  # finished games are public history
    state = engine.replay(engine.RuleSet.from_dict(export["rules"]), export["first_dealer"], export["decks"],
                          [(m["seat"], m["action"]) for m in export["moves"]])
    assert state.to_dict() == Game.objects.get(pk=g1).state
    assert_error(alice.get(f"/api/v1/games/{g3}/export/"), "game_not_finished")


@pytest.mark.django_db
def test_moves_redacted_while_the_round_is_in_play(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                     format="json").json()["id"]
    v = bob.post(f"/api/v1/games/{gid}/accept/").json()["version"]
    for client, action in [(alice, {"type": "pass"}), (bob, {"type": "pass"}), (alice, {"type": "draw_stock"})]:
        v = act(client, gid, v, action).json()["game"]["version"]
    drew = [m for m in bob.get(f"/api/v1/games/{gid}/moves/").json()["results"] if m["action"]["type"] == "draw_stock"][0]
    assert drew["events"] == [{"type": "drew_stock", "seat": 0}]  # bob does not see 3H
    mine = [m for m in alice.get(f"/api/v1/games/{gid}/moves/").json()["results"] if m["action"]["type"] == "draw_stock"][0]
    assert mine["events"] == [{"type": "drew_stock", "seat": 0, "card": "3H"}]
    assert Move.objects.filter(game_id=gid).count() == 3


@pytest.mark.django_db
@pytest.mark.rule("R5.1", "R5.2")
def test_both_upcard_passes_are_in_the_rounds_history(alice, bob):
    """First dealer bob (seat 1), so alice (seat 0) decides on the upcard first (R5.1), then bob
    (R5.2): each pass is in the round's history as both players' views show it."""
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                   format="json")
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200

    def passes(client):
        return [(e["type"], e["seat"]) for e in client.get(f"/api/v1/games/{gid}/").json()["view"]["history"]
                if e["type"] == "upcard_passed"]

    assert (passes(alice), passes(bob)) == ([], [])
    assert act(alice, gid, Game.objects.get(pk=gid).version, {"type": "pass"}).status_code == 200
    assert (passes(alice), passes(bob)) == ([("upcard_passed", 0)], [("upcard_passed", 0)])
    assert act(bob, gid, Game.objects.get(pk=gid).version, {"type": "pass"}).status_code == 200
    assert passes(alice) == passes(bob) == [("upcard_passed", 0), ("upcard_passed", 1)]
