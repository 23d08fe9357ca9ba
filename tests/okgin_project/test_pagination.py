"""One pagination for every collection: keyset pages with opaque cursors in both directions,
truthful has_more/has_prev, 400 bad_cursor, and ETag/304 on the lists clients poll."""
import pytest

from games.models import Game, Move
from tests.helpers import assert_error


def _page(client, url, **params):
    r = client.get(url, params)
    assert r.status_code == 200, r.content
    body = r.json()
    assert set(body) == {"results", "next_cursor", "has_more", "prev_cursor", "has_prev"}
    return body


def _walk_forward(client, url, limit, **params):
    """Every page from the first, following next_cursor; returns the pages."""
    pages = [_page(client, url, limit=limit, **params)]
    while pages[-1]["has_more"]:
        pages.append(_page(client, url, limit=limit, cursor=pages[-1]["next_cursor"], **params))
    return pages


@pytest.mark.django_db
@pytest.mark.parametrize("ordering", ["-created_at", "created_at", "-updated_at", "updated_at"])
def test_games_pages_cover_every_game_once_in_both_directions(alice, bob, ordering):
    ids = [alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
           for _ in range(7)]
    # Three games created in the same instant: the id breaks the tie, none is skipped or repeated.
    Game.objects.filter(pk__in=ids[2:5]).update(created_at=Game.objects.get(pk=ids[2]).created_at,
                                                 updated_at=Game.objects.get(pk=ids[2]).updated_at)
    games = Game.objects.filter(pk__in=ids)
    field = ordering.lstrip("-")
    expected = [g.pk for g in sorted(games, key=lambda g: (getattr(g, field), g.pk), reverse=ordering[0] == "-")]
    pages = _walk_forward(alice, "/api/v1/games/", 3, ordering=ordering)
    assert [len(p["results"]) for p in pages] == [3, 3, 1]
    assert [g["id"] for p in pages for g in p["results"]] == expected
    assert [p["has_prev"] for p in pages] == [False, True, True]
    # Backwards from the last page with prev_cursor: the same pages, each in list order.
    back, page = [], pages[-1]
    while page["has_prev"]:
        page = _page(alice, "/api/v1/games/", limit=3, cursor=page["prev_cursor"], ordering=ordering)
        back.insert(0, [g["id"] for g in page["results"]])
    assert back == [[g["id"] for g in p["results"]] for p in pages[:-1]]
    assert page["has_more"] is True
    # A cursor of this order is refused with another order.
    other = "created_at" if ordering != "created_at" else "-created_at"
    r = alice.get("/api/v1/games/", {"cursor": pages[0]["next_cursor"], "ordering": other})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_cursor"


@pytest.mark.django_db
def test_moves_and_rounds_are_pages(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    seats = {0: alice, 1: bob}
    for _ in range(8):  # pass the upcard, then draw from the stock and discard the first legal card
        game = alice.get(f"/api/v1/games/{gid}/").json()
        mover = seats[game["to_act"]]
        legal = mover.get(f"/api/v1/games/{gid}/").json()["view"]["legal_actions"]
        action = next(a for a in legal if a["type"] in ("pass", "draw_stock", "discard"))
        assert mover.post(f"/api/v1/games/{gid}/actions/", {"version": game["version"], "action": action},
                          format="json").status_code == 200
    seqs = list(Move.objects.filter(game_id=gid).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, 9))
    pages = _walk_forward(alice, f"/api/v1/games/{gid}/moves/", 3)
    assert [[m["seq"] for m in p["results"]] for p in pages] == [[1, 2, 3], [4, 5, 6], [7, 8]]
    assert _page(alice, f"/api/v1/games/{gid}/rounds/")["results"][0]["number"] == 1


@pytest.mark.django_db
@pytest.mark.error_code("bad_cursor")
def test_a_bad_cursor_is_400_everywhere(alice):
    gid = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json").json()["id"]
    hook = alice.post("/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, format="json").json()["id"]
    games_cursor = _page(alice, "/api/v1/games/")["next_cursor"]  # real cursors, of other lists
    hooks_cursor = _page(alice, "/api/v1/webhooks/")["next_cursor"]
    assert games_cursor and hooks_cursor
    for url in ("/api/v1/games/", "/api/v1/games/lobby/", "/api/v1/events/", f"/api/v1/games/{gid}/rounds/",
                f"/api/v1/games/{gid}/moves/", "/api/v1/webhooks/", f"/api/v1/webhooks/{hook}/deliveries/"):
        foreign = hooks_cursor if url == "/api/v1/games/" else games_cursor
        for bad in ("nonsense", "eyJsIjoiZXZlbnRzIn0", foreign):
            assert_error(alice.get(url, {"cursor": bad}), "bad_cursor")


@pytest.mark.django_db
def test_polled_lists_answer_304_until_something_changes(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "open"}, format="json").json()["id"]
    for client, url in ((alice, "/api/v1/games/"), (bob, "/api/v1/games/lobby/"), (alice, "/api/v1/events/")):
        r = client.get(url)
        assert r.status_code == 200 and r["ETag"]
        again = client.get(url, HTTP_IF_NONE_MATCH=r["ETag"])
        assert again.status_code == 304 and not again.content and again["ETag"] == r["ETag"]
    etags = {url: client.get(url)["ETag"] for client, url in ((alice, "/api/v1/games/"), (bob, "/api/v1/games/lobby/"),
                                                              (alice, "/api/v1/events/"))}
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200  # changes all three
    assert alice.get("/api/v1/games/", HTTP_IF_NONE_MATCH=etags["/api/v1/games/"]).status_code == 200
    assert bob.get("/api/v1/games/lobby/", HTTP_IF_NONE_MATCH=etags["/api/v1/games/lobby/"]).status_code == 200
    assert alice.get("/api/v1/events/", HTTP_IF_NONE_MATCH=etags["/api/v1/events/"]).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["limit=", "ordering=", "status=", "my_turn=", "cursor="])
def test_an_empty_query_parameter_is_refused(alice, query):
    """An empty value is no value the schema allows (an empty cursor matches no cursor's pattern)."""
    r = alice.get(f"/api/v1/games/?{query}")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"


@pytest.mark.django_db
@pytest.mark.parametrize("micros", ["0", "9999999999999999"])
def test_any_cursor_of_the_pattern_is_a_position_not_an_error(alice, micros):
    """Every string of the cursor's pattern (the schema's) is accepted: the first and the last
    instant a cursor can name (1970, and 9999999999999999 microseconds later: the year 2286)
    are positions before or after every game, never a 400 or a 500."""
    import re

    ids = [alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json").json()["id"]
           for _ in range(2)]
    schema = alice.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    param = next(p for p in schema["paths"]["/api/v1/games/"]["get"]["parameters"] if p["name"] == "cursor")
    for direction in "np":
        cursor = f"games0{direction}x_{micros}_0"  # -created_at order: after (n) or before (p) that instant
        assert re.fullmatch(param["schema"]["pattern"], cursor)
        page = _page(alice, "/api/v1/games/", cursor=cursor)
        newest_first = sorted(ids, reverse=True)
        # Newest first: after 1970 comes nothing, before it every game; after 2286 every game.
        expected = {("n", "0"): [], ("p", "0"): newest_first,
                    ("n", "9999999999999999"): newest_first, ("p", "9999999999999999"): []}[(direction, micros)]
        assert [g["id"] for g in page["results"]] == expected


@pytest.mark.django_db
@pytest.mark.error_code("bad_cursor")
def test_a_cursor_outside_the_pattern_or_of_another_order_is_bad_cursor(alice):
    alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json")
    real = _page(alice, "/api/v1/games/", limit=1)["next_cursor"]
    assert real.startswith("games0nx_")
    before = Game.objects.count()
    for bad in (real + "x", real.replace("games0", "games7"), real.replace("games0", "lobby0"), "games0nx_1"):
        assert_error(alice.get("/api/v1/games/", {"cursor": bad}), "bad_cursor")
    assert_error(alice.get("/api/v1/games/", {"cursor": real, "ordering": "updated_at"}), "bad_cursor")
    assert Game.objects.count() == before


LISTS = ["/api/v1/games/", "/api/v1/games/lobby/", "/api/v1/events/", "/api/v1/games/{gid}/rounds/",
         "/api/v1/games/{gid}/moves/", "/api/v1/webhooks/", "/api/v1/webhooks/{hook}/deliveries/",
         "/api/v1/leaderboard/oklahoma/", "/api/v1/devices/{device}/pushes/", "/api/v1/players/alice/games.ndjson", "/api/v1/devices/"]


@pytest.mark.django_db
@pytest.mark.error_code("validation_error")
@pytest.mark.parametrize("url", LISTS)
def test_every_list_refuses_an_unknown_query_parameter(alice, url):
    """A filter the list does not have (here a misspelt one) is 400 validation_error naming it
    (field error unknown_field), not ignored; the list's own parameters are accepted."""
    gid = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json").json()["id"]
    hook = alice.post("/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, format="json").json()["id"]
    device = alice.post("/api/v1/devices/", {"platform": "apns", "registration_id": "ab" * 32},
                        format="json").json()["id"]
    url = url.format(gid=gid, hook=hook, device=device)
    own = {"/api/v1/games/": {"status": "active", "ordering": "created_at"}, "/api/v1/events/": {"wait": "0"},
           f"/api/v1/games/{gid}/moves/": {"round": "1"}, f"/api/v1/webhooks/{hook}/deliveries/": {"status": "failed"},
           f"/api/v1/devices/{device}/pushes/": {"status": "held"},
           "/api/v1/players/alice/games.ndjson": {"variant": "classic"}}.get(url, {})
    assert alice.get(url, own).status_code == 200
    r = alice.get(url, {**own, "stauts": "active"})
    assert_error(r, "validation_error")
    assert r.json()["error"]["detail"] == {"stauts": [{"code": "unknown_field", "message": "Unknown query parameter."}]}
    # A parameter given twice is refused, not read as its last value.
    name, value = next(iter({**own, "limit": "5"}.items()))
    r = alice.get(f"{url}?{name}={value}&{name}={value}")
    assert_error(r, "validation_error")
    assert r.json()["error"]["detail"] == {name: [{"code": "repeated", "message": "Give this parameter once."}]}


@pytest.mark.django_db
def test_devices_are_pages_in_both_directions(alice):
    """The devices of three platforms (three tables) are one list, oldest first, in pages."""
    tokens = [("apns", "ab" * 32), ("fcm", "f" * 40), ("apns", "cd" * 32), ("fcm", "e" * 40), ("apns", "ef" * 32)]
    ids = [alice.post("/api/v1/devices/", {"platform": p, "registration_id": t}, format="json").json()["id"]
           for p, t in tokens]
    pages = _walk_forward(alice, "/api/v1/devices/", 2)
    assert [[d["id"] for d in p["results"]] for p in pages] == [ids[0:2], ids[2:4], ids[4:5]]
    assert [(p["has_prev"], p["has_more"]) for p in pages] == [(False, True), (True, True), (True, False)]
    back = _page(alice, "/api/v1/devices/", limit=2, cursor=pages[-1]["prev_cursor"])
    assert [d["id"] for d in back["results"]] == ids[2:4] and back["has_prev"] and back["has_more"]
    end = _page(alice, "/api/v1/devices/", cursor=pages[-1]["next_cursor"])
    assert end["results"] == [] and end["has_prev"] and not end["has_more"]
    assert [d["id"] for d in _page(alice, "/api/v1/devices/", cursor=end["prev_cursor"])["results"]] == ids
    assert_error(alice.get("/api/v1/devices/", {"cursor": pages[0]["next_cursor"].replace("devices", "games")}),
                 "bad_cursor")


@pytest.mark.django_db
def test_a_filter_that_matches_no_one_is_an_empty_page(alice):
    """opponent= a name nobody has: the filter's empty queryset was a 500 on PostgreSQL (the seats'
    UNION of empty members is one sliced query that cannot be ordered)."""
    alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json")
    assert _page(alice, "/api/v1/games/", opponent="nobody")["results"] == []
    assert _page(alice, "/api/v1/games/", opponent="nobody", my_turn="false")["results"] == []
