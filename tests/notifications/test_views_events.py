"""GET /api/v1/events: events written with the change they report, cursor pages newest last,
only the player's own, and never an opponent's hidden cards."""
import pytest

from games import engine
from games.models import Game
from notifications.models import Event
from tests.games.factories import DECK
from tests.helpers import act, strings_in

SEAT0_HAND = {"AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "5H"}
SEAT1_HAND = {"7S", "8S", "9S", "2H", "2D", "2S", "KD", "QH", "JH", "3D"}


def _game(alice, bob):
    """alice (seat 0, non-dealer) vs bob on DECK; the stock starts 3H 4H."""
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                   format="json")
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    return gid


def _feed(client, **params):
    r = client.get("/api/v1/events/", params)
    assert r.status_code == 200, r.content
    return r.json()


@pytest.mark.django_db
@pytest.mark.rule("R5.1")
def test_invitation_and_turn_events(alice, bob):
    gid = _game(alice, bob)
    assert [(e["kind"], e["game_id"]) for e in _feed(bob)["results"]] == [("invitation_received", gid)]
    assert _feed(bob)["results"][0]["data"]["by"] == "alice"
    kinds = [e["kind"] for e in _feed(alice)["results"]]
    assert kinds == ["invitation_accepted", "your_turn"]  # alice (non-dealer) acts first (R5.1)
    gid2 = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    bob.post(f"/api/v1/games/{gid2}/decline/")
    last = _feed(alice)["results"][-1]
    assert (last["kind"], last["game_id"], last["data"]["by"]) == ("invitation_declined", gid2, "bob")


@pytest.mark.django_db
def test_opponent_moves_are_redacted_and_hide_the_hand(alice, bob):
    gid = _game(alice, bob)
    v = Game.objects.get(pk=gid).version
    assert act(alice, gid, v, {"type": "pass"}).status_code == 200
    assert act(bob, gid, v + 1, {"type": "pass"}).status_code == 200
    assert act(alice, gid, v + 2, {"type": "draw_stock"}).status_code == 200  # alice draws 3H (secret)
    assert act(alice, gid, v + 3, {"type": "discard", "card": "5H"}).status_code == 200
    feed = _feed(bob)["results"]
    moved = [e for e in feed if e["kind"] == "opponent_moved"]
    assert [e["data"]["action"] for e in moved] == [{"type": "pass"}, {"type": "draw_stock"},
                                                      {"type": "discard", "card": "5H"}]
    assert moved[1]["data"]["events"] == [{"type": "drew_stock", "seat": 0}]  # no card
    assert feed[-1]["kind"] == "your_turn" and feed[-1]["data"]["version"] == v + 4
    # Nothing of alice's hidden hand (nor the card she drew) in bob's feed; bob's own hand is not in alice's.
    assert not strings_in(_feed(bob)) & ((SEAT0_HAND | {"3H", "4H"}) - {"5H"})
    assert not strings_in(_feed(alice)) & SEAT1_HAND


@pytest.mark.django_db
def test_cursor_pages_newest_last_and_only_your_own(alice, bob):
    gid = _game(alice, bob)
    g = Game.objects.get(pk=gid)
    for _ in range(6):  # both pass the upcard, then draw/discard turns
        state = engine.MatchState.from_dict(g.state)
        a = next(a for a in engine.legal_actions(state) if a.type in ("pass", "draw_stock", "discard"))
        client = alice if state.to_act == 0 else bob
        assert act(client, gid, g.version, a.to_dict()).status_code == 200
        g = Game.objects.get(pk=gid)
    mine = list(Event.objects.filter(player__name="bob").order_by("id").values_list("id", flat=True))
    assert len(mine) >= 5
    # Without a cursor: the latest events, newest last; older ones exist (has_prev), newer do not.
    latest = _feed(bob, limit=2)
    assert [e["id"] for e in latest["results"]] == mine[-2:]
    assert (latest["has_more"], latest["has_prev"]) == (False, True)
    # Back to the first event with prev_cursor, pages of 2, each page in order.
    pages, page = [latest["results"]], latest
    while page["has_prev"]:
        page = _feed(bob, cursor=page["prev_cursor"], limit=2)
        pages.insert(0, page["results"])
    assert [e["id"] for p in pages for e in p] == mine and page["prev_cursor"] is not None
    # ...and forward again from the first page with next_cursor, to the end.
    ids = [e["id"] for e in page["results"]]
    while page["has_more"]:
        page = _feed(bob, cursor=page["next_cursor"], limit=3)
        ids += [e["id"] for e in page["results"]]
    assert ids == mine
    # Polling the last next_cursor: empty until something happens, then just the new events.
    empty = _feed(bob, cursor=page["next_cursor"])
    assert empty["results"] == [] and (empty["has_more"], empty["has_prev"]) == (False, True)
    assert [e["id"] for e in _feed(bob, cursor=empty["prev_cursor"], limit=1)["results"]] == mine[-1:]
    bob.post(f"/api/v1/games/{gid}/resign/")
    new = list(Event.objects.filter(player__name="bob", id__gt=mine[-1]).order_by("id").values_list("id", flat=True))
    assert new and [e["id"] for e in _feed(bob, cursor=empty["next_cursor"])["results"]] == new
    assert not {e["id"] for e in _feed(alice, limit=200)["results"]} & set(mine)
    cut = latest["next_cursor"].rsplit("_", 1)[0]  # without its key
    for bad in ("x", "eyJsIjoiZ2FtZXMifQ", cut, latest["next_cursor"].replace("events", "games")):  # another list's
        r = bob.get("/api/v1/events/", {"cursor": bad})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_cursor"
    assert bob.get("/api/v1/events", {"limit": 1}).status_code == 200  # without the slash too


@pytest.mark.django_db
def test_a_rejected_action_writes_no_event(alice, bob):
    gid = _game(alice, bob)
    before = Event.objects.count()
    v = Game.objects.get(pk=gid).version
    assert act(bob, gid, v, {"type": "pass"}).status_code == 409  # not bob's turn
    assert act(alice, gid, v + 5, {"type": "pass"}).status_code == 409  # stale version
    assert act(alice, gid, v, {"type": "discard", "card": "AC"}).status_code in (409, 422)  # wrong phase
    assert Event.objects.count() == before


@pytest.mark.django_db
def test_round_over_and_match_over_events(alice, bob):
    gid = _game(alice, bob)
    bob.post(f"/api/v1/games/{gid}/resign/")
    over = [e for e in _feed(alice)["results"] if e["kind"] == "match_over"]
    assert len(over) == 1 and over[0]["data"]["you_won"] is True and over[0]["data"]["end_reason"] == "resigned"
    assert [e for e in _feed(bob)["results"] if e["kind"] == "match_over"][0]["data"]["you_won"] is False
