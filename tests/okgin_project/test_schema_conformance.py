"""The OpenAPI schema at /api/schema/ describes the real request and response bodies.

A client generated from the schema must be able to play a whole game: this test drives one over
HTTP (registration, tokens, an invitation with fixed staff decks, actions chosen from the view's
``legal_actions`` until round 1 ends, history, lobby, statistics, events, webhooks, resignation,
export and the usual error answers) and checks every body against the schema:

* the response body validates (jsonschema, Draft 7) against the operation's documented schema
  for that exact status code, with ``$ref`` resolved into ``components`` and OpenAPI 3.0
  ``nullable: true`` turned into a JSON-schema type union;
* every key of every object in the body is listed in the ``properties`` of the schema it
  validates against (recursively, where that schema declares properties): an undocumented field
  is invisible to a generated client;
* every request body sent (except the deliberately malformed one, which the schema must refuse
  too) validates against the operation's ``requestBody`` schema.

Round 1 is the one of tests/games/test_views_full_match.py (RULES.md R4-R9): alice (seat 0,
non-dealer) holds AC..9C + 5H, bob 7S 8S 9S 2H 2D 2S KD QH JH 3D, upcard 6D (knock limit 6).
Both pass the upcard, alice draws 3H and may knock (deadwood 3 or 5 <= 6): the round ends.
"""
from __future__ import annotations

import copy
import re

import jsonschema
import pytest
from rest_framework.test import APIClient

# The two fixed deals of the full-match test (a knock, then gin to the target; worked out there).
from tests.games.test_views_full_match import ROUND1, ROUND2


# --- schema handling -------------------------------------------------------------------------

def _to_json_schema(node, components):
    """An OpenAPI 3.0 schema object as a Draft 7 JSON schema: ``$ref`` into ``components`` kept
    resolvable (the components are carried along in ``definitions``), ``nullable: true`` as a type
    union with ``null`` (and ``None`` allowed in an ``enum``/``allOf``/``oneOf`` by wrapping)."""
    if isinstance(node, list):
        return [_to_json_schema(x, components) for x in node]
    if not isinstance(node, dict):
        return node
    node = {k: _to_json_schema(v, components) for k, v in node.items()}
    if "$ref" in node:
        node["$ref"] = node["$ref"].replace("#/components/schemas/", "#/definitions/")
    if node.pop("nullable", False):
        if "type" in node and "enum" not in node:
            t = node["type"]
            node["type"] = (t if isinstance(t, list) else [t]) + ["null"]
        else:
            node = {"anyOf": [{"type": "null"}, node]}
    # OpenAPI-only keywords jsonschema does not know are ignored; readOnly/writeOnly are harmless.
    return node


class Schema:
    """The fetched OpenAPI document: operations by (path template, method)."""

    def __init__(self, doc: dict):
        self.doc = doc
        self.definitions = {
            name: _to_json_schema(s, None) for name, s in doc.get("components", {}).get("schemas", {}).items()
        }
        self.templates = []
        for template in doc["paths"]:
            pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
            self.templates.append((re.compile(pattern), template))

    def operation(self, path: str, method: str) -> dict:
        path = path.split("?")[0]
        matches = [t for rx, t in self.templates if rx.match(path)]
        assert matches, f"{path} is in no path template of the schema"
        # A literal segment beats a parameter (e.g. /games/new/ over /games/{game_id}/).
        template = min(matches, key=lambda t: t.count("{"))
        op = self.doc["paths"][template].get(method.lower())
        assert op is not None, f"{method} {template} is not documented"
        return op

    def resolve(self, schema: dict) -> dict:
        while "$ref" in schema:
            schema = self.definitions[schema["$ref"].split("/")[-1]]
        return schema

    def validator(self, schema: dict):
        full = {**copy.deepcopy(schema), "definitions": self.definitions}
        return jsonschema.Draft7Validator(full)

    def check(self, schema: dict, body, where: str):
        errors = sorted(self.validator(_to_json_schema(schema, None)).iter_errors(body), key=str)
        assert not errors, f"{where}: body does not match the schema: " + "; ".join(
            f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
        undocumented = sorted(self._undocumented(_to_json_schema(schema, None), body, "$"))
        assert not undocumented, f"{where}: fields not in the schema: {undocumented}"

    def _undocumented(self, schema, body, at: str) -> set[str]:
        """Paths of object keys in ``body`` that no ``properties`` of ``schema`` lists."""
        schema = self.resolve(schema)
        out: set[str] = set()
        alternatives = schema.get("anyOf") or schema.get("oneOf")
        if alternatives:
            non_null = [a for a in alternatives if self.resolve(a).get("type") != "null"]
            if body is None:
                return out
            # Take the alternative that leaves the fewest undocumented keys.
            found = [self._undocumented(a, body, at) for a in non_null]
            return min(found, key=len) if found else out
        for part in schema.get("allOf", []):
            out |= self._undocumented(part, body, at)
        if isinstance(body, dict) and "properties" in schema:
            props = schema["properties"]
            for key, value in body.items():
                if key not in props:
                    out.add(f"{at}.{key}")
                else:
                    out |= self._undocumented(props[key], value, f"{at}.{key}")
        elif isinstance(body, list) and isinstance(schema.get("items"), dict):
            for i, value in enumerate(body):
                out |= self._undocumented(schema["items"], value, f"{at}[{i}]")
        return out

    def response_schema(self, path: str, method: str, status: int) -> dict | None:
        op = self.operation(path, method)
        responses = op["responses"]
        assert str(status) in responses, (
            f"{method} {path}: status {status} is not documented (documented: {sorted(responses)})")
        content = responses[str(status)].get("content")
        if not content:
            return None
        assert "application/json" in content, f"{method} {path} {status}: no application/json content"
        return content["application/json"]["schema"]

    def request_schema(self, path: str, method: str) -> dict:
        op = self.operation(path, method)
        assert "requestBody" in op, f"{method} {path}: no requestBody documented"
        return op["requestBody"]["content"]["application/json"]["schema"]


# --- the conforming client -------------------------------------------------------------------

class Checked:
    """An APIClient whose every exchange is checked against the schema."""

    def __init__(self, schema: Schema, client: APIClient, checked: list):
        self.schema, self.client, self.checked = schema, client, checked

    def call(self, method: str, path: str, data=None, *, expect: int, validate_request: bool = True,
             query: dict | None = None, **headers):
        if data is not None and validate_request:
            self.schema.check(self.schema.request_schema(path, method), data, f"request {method} {path}")
        fn = getattr(self.client, method.lower())
        if method == "GET":
            r = fn(path, query or {}, **headers)
        else:
            r = fn(path, data, format="json", **headers) if data is not None else fn(path, **headers)
        assert r.status_code == expect, (method, path, r.status_code, r.content[:500])
        body_schema = self.schema.response_schema(path, method, r.status_code)
        if r.status_code in (204, 304):
            assert not r.content
            assert body_schema is None, f"{method} {path} {r.status_code}: a body is documented but none is sent"
            body = None
        else:
            body = r.json()
            assert body_schema is not None, f"{method} {path} {r.status_code}: no body documented"
            self.schema.check(body_schema, body, f"response {method} {path} {r.status_code}")
        self.checked.append((method, self.schema.operation(path, method)["operationId"], r.status_code))
        return r, body


@pytest.fixture
def schema(client):
    r = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    return Schema(r.json())


def _login(api: Checked, anon: Checked, name: str) -> Checked:
    password = "s3cret-pass-" + name
    anon.call("POST", "/api/v1/auth/register/", {"username": name, "password": password}, expect=201)
    _, tokens = anon.call("POST", "/api/v1/auth/token/", {"username": name, "password": password}, expect=200)
    _, refreshed = anon.call("POST", "/api/v1/auth/token/refresh/", {"refresh": tokens["refresh"]}, expect=200)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer " + refreshed["access"])
    return Checked(api.schema, client, api.checked)


def _choose(legal: list[dict]) -> dict:
    """Knock when legal; otherwise pass the upcard, draw from the stock, discard (first legal)."""
    for kind in ("knock", "pass", "draw_stock", "discard"):
        for a in legal:
            if a["type"] == kind:
                return {k: v for k, v in a.items() if v is not None}
    raise AssertionError(f"no usable legal action in {legal}")


def _play_until(players: dict, gid: int, done, limit: int = 40) -> dict:
    """Play game ``gid`` from each mover's ``legal_actions`` (``_choose``) until ``done(game)``."""
    for _ in range(limit):
        _, game = players[0].call("GET", f"/api/v1/games/{gid}/", expect=200)
        if done(game):
            return game
        mover = players[game["to_act"]]
        _, view = mover.call("GET", f"/api/v1/games/{gid}/", expect=200)
        mover.call("POST", f"/api/v1/games/{gid}/actions/",
                   {"version": view["version"], "action": _choose(view["view"]["legal_actions"])}, expect=200)
    raise AssertionError(f"game {gid} did not get there in {limit} actions")


@pytest.mark.django_db
@pytest.mark.rule("R5.1", "R7.7", "R10.1")
def test_a_whole_game_over_the_api_conforms_to_the_schema(schema, anon):
    from django.contrib.auth import get_user_model

    checked: list = []
    guest = Checked(schema, anon, checked)
    alice = _login(guest, guest, "alice")
    get_user_model().objects.filter(username="alice").update(is_staff=True)
    bob = _login(guest, guest, "bob")
    _, me = alice.call("GET", "/api/v1/me/", expect=200)
    assert me["name"] == "alice"

    # An AI game, and an invitation with a fixed deck that bob accepts.
    _, ai_game = alice.call("POST", "/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, expect=201)
    assert {"is_ai": True, "ai_level": "random"}.items() <= ai_game["seats"][1].items()
    _, game = alice.call("POST", "/api/v1/games/new/", {
        "kind": "invite", "opponent": "bob", "decks": [ROUND1], "first_dealer": 1}, expect=201)
    gid = game["id"]
    assert game["status"] == "invited"
    _, game = bob.call("POST", f"/api/v1/games/{gid}/accept/", expect=200)
    assert game["status"] == "active"

    # Detail with its ETag, then 304 with If-None-Match.
    r, game = alice.call("GET", f"/api/v1/games/{gid}/", expect=200)
    alice.call("GET", f"/api/v1/games/{gid}/", expect=304, HTTP_IF_NONE_MATCH=r["ETag"])

    # Errors on the action endpoint: malformed (400), stale version (409), illegal (422).
    bad = {"version": game["version"], "action": {"type": "fly"}}
    with pytest.raises(AssertionError):  # the schema refuses it as well
        schema.check(schema.request_schema(f"/api/v1/games/{gid}/actions/", "POST"), bad, "malformed")
    _, err = alice.call("POST", f"/api/v1/games/{gid}/actions/", bad, expect=400, validate_request=False)
    assert err["error"]["code"] == "validation_error"
    _, err = alice.call("POST", f"/api/v1/games/{gid}/actions/",
                        {"version": game["version"] + 5, "action": {"type": "pass"}}, expect=409)
    assert err["error"]["code"] == "stale_version"
    # Alice (non-dealer) decides on the upcard first (R5.1): knocking now is the wrong phase (409).
    _, err = alice.call("POST", f"/api/v1/games/{gid}/actions/",
                        {"version": game["version"], "action": {"type": "knock", "card": "5H"}}, expect=409)
    assert err["error"]["code"] == "wrong_phase"

    # Play from the legal actions until round 1 ends.
    players = {0: alice, 1: bob}
    tried_illegal = False
    for _ in range(20):
        _, game = alice.call("GET", f"/api/v1/games/{gid}/", expect=200)
        if game["round_number"] > 1 or game["status"] != "active":
            break
        mover = players[game["to_act"]]
        _, view = mover.call("GET", f"/api/v1/games/{gid}/", expect=200)
        if view["view"]["phase"] == "discard" and not tried_illegal:
            # Discarding a card not in the hand is illegal (422); nothing changes.
            absent = next(c for c in ROUND1 if c not in view["view"]["hand"])
            _, err = mover.call("POST", f"/api/v1/games/{gid}/actions/",
                                {"version": view["version"], "action": {"type": "discard", "card": absent}},
                                expect=422)
            assert err["error"]["code"] == "card_not_in_hand"
            tried_illegal = True
        action = _choose(view["view"]["legal_actions"])
        _, out = mover.call("POST", f"/api/v1/games/{gid}/actions/",
                            {"version": view["version"], "action": action}, expect=200)
    else:
        raise AssertionError("round 1 did not end")
    assert tried_illegal
    assert game["last_round_result"]["outcome"] == "knock" and game["last_round_result"]["winner"] == 0

    # History and lists.
    _, rounds = bob.call("GET", f"/api/v1/games/{gid}/rounds/", expect=200)
    assert rounds["results"][0]["outcome"] == "knock"
    _, moves = bob.call("GET", f"/api/v1/games/{gid}/moves/", expect=200)
    assert len(moves["results"]) == 4
    bob.call("GET", f"/api/v1/games/{gid}/moves/", expect=200, query={"round": 1})
    _, mine = alice.call("GET", "/api/v1/games/", expect=200, query={"status": "active"})
    assert gid in [g["id"] for g in mine["results"]]
    _, challenge = bob.call("POST", "/api/v1/games/new/", {"kind": "open"}, expect=201)
    assert challenge["seats"][1] is None  # the empty seat of an open challenge
    _, lobby = alice.call("GET", "/api/v1/games/lobby/", expect=200)
    assert [g["id"] for g in lobby["results"]] == [challenge["id"]]
    _, aborted = bob.call("POST", f"/api/v1/games/{challenge['id']}/abort/", expect=200)
    assert aborted["status"] == "aborted" and aborted["seats"][1] is None

    # Webhooks (a public address literal: no DNS needed) and the event feed.
    _, hook = bob.call("POST", "/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, expect=201)
    bob.call("GET", "/api/v1/webhooks/", expect=200)
    bob.call("GET", f"/api/v1/webhooks/{hook['id']}/deliveries/", expect=200)
    bob.call("POST", "/api/v1/webhooks/", {"url": "https://93.184.215.14/okgin"}, expect=409)
    _, other = bob.call("POST", "/api/v1/webhooks/", {"url": "https://93.184.215.14/other"}, expect=201)
    bob.call("DELETE", f"/api/v1/webhooks/{other['id']}/", expect=204)

    # Export refuses a game in play (409); resign to finish it, then export.
    bob.call("GET", f"/api/v1/games/{gid}/export/", expect=409)
    _, game = bob.call("POST", f"/api/v1/games/{gid}/resign/", expect=200)
    assert game["status"] == "finished" and game["winner_seat"] == 0
    _, export = bob.call("GET", f"/api/v1/games/{gid}/export/", expect=200)
    assert export["decks"][0] == ROUND1

    # A whole match to the target score (rounds of tests/games/test_views_full_match.py): round 1
    # as above; round 2 bob (no meld) passes, alice passes, bob draws 5S and discards, alice draws
    # 6S and her only legal knock is discarding 6S (upcard 4D: limit 4), gin (R7.7): at least
    # 28 + 98 + 25 > 100 points (R10.1). The finished view, the gin result and match events are checked.
    _, game = alice.call("POST", "/api/v1/games/new/", {
        "kind": "invite", "opponent": "bob", "decks": [ROUND1, ROUND2], "first_dealer": 1}, expect=201)
    gid2 = game["id"]
    bob.call("POST", f"/api/v1/games/{gid2}/accept/", expect=200)
    game = _play_until(players, gid2, lambda g: g["status"] != "active")
    assert game["status"] == "finished" and game["end_reason"] == "target_score" and game["winner_seat"] == 0
    assert game["last_round_result"]["outcome"] == "gin"
    _, export = alice.call("GET", f"/api/v1/games/{gid2}/export/", expect=200)
    assert export["decks"] == [ROUND1, ROUND2]
    bob.call("GET", f"/api/v1/games/{gid2}/rounds/", expect=200)
    bob.call("GET", f"/api/v1/games/{gid2}/moves/", expect=200, query={"round": 2})
    _, mine = alice.call("GET", "/api/v1/games/", expect=200, query={"result": "won"})
    assert {gid, gid2} <= {g["id"] for g in mine["results"]}

    # The AI game ends by resignation; its export (seat names, decks) conforms too.
    _, ai_game = alice.call("POST", f"/api/v1/games/{ai_game['id']}/resign/", expect=200)
    assert ai_game["status"] == "finished" and ai_game["winner_seat"] == 1
    alice.call("GET", f"/api/v1/games/{ai_game['id']}/export/", expect=200)

    # An invitation bob declines.
    _, game = alice.call("POST", "/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, expect=201)
    _, game = bob.call("POST", f"/api/v1/games/{game['id']}/decline/", expect=200)
    assert game["status"] == "declined"

    _, feed = bob.call("GET", "/api/v1/events/", expect=200, query={"limit": 200})
    kinds = {e["kind"] for e in feed["results"]}
    assert {"round_over", "match_over"} <= kinds
    bob.call("GET", "/api/v1/events/", expect=200, query={"limit": 2})
    bob.call("GET", "/api/v1/me/stats/", expect=200)
    _, stats = bob.call("GET", "/api/v1/players/alice/stats/", expect=200)
    assert stats["matches_won"] == 2

    # Unauthenticated (401) and not found (404).
    guest.call("GET", "/api/v1/me/", expect=401)
    guest.call("POST", "/api/v1/auth/token/", {"username": "alice", "password": "wrong-password"}, expect=401)
    guest.call("POST", "/api/v1/auth/register/", {"username": "alice", "password": "another-pass-1"},
               expect=409)
    alice.call("GET", "/api/v1/games/999999/", expect=404)
    alice.call("GET", "/api/v1/players/nobody-here/stats/", expect=404)

    # Every operation exercised was checked at least once.
    assert {"register", "token_obtain", "token_refresh", "me", "game_create", "invitation_accept", "game_detail",
            "action_submit", "game_rounds", "game_moves", "game_list_mine", "lobby_list", "webhook_create",
            "webhook_list", "webhook_deliveries", "game_resign", "game_export", "events_list", "my_stats",
            "player_stats"} <= {op for _, op, _ in checked}


@pytest.mark.django_db
def test_the_checker_refuses_undocumented_fields_and_wrong_types(schema):
    """The checks above can fail: an extra top-level or nested key, a null where none is documented,
    and a wrong type are each caught (bodies built by hand from the documented error shape)."""
    err = schema.response_schema("/api/v1/games/1/actions/", "POST", 409)
    schema.check(err, {"error": {"code": "stale_version", "message": "m"}}, "ok")
    for body in (
        {"error": {"code": "c", "message": "m"}, "extra": 1},
        {"error": {"code": "c", "message": "m", "hint": "x"}},
        {"error": {"code": None, "message": "m"}},
        {"error": {"code": 7, "message": "m"}},
    ):
        with pytest.raises(AssertionError):
            schema.check(err, body, "bad")
    seats = schema.response_schema("/api/v1/games/new/", "POST", 201)
    body = {"seats": [None, {"seat": 1, "name": "b", "is_ai": False, "ai_level": None, "rating": 3}],
            "view": {"hand": ["AC"], "peek": []}}
    assert schema._undocumented(_to_json_schema(seats, None), body, "$") == {"$.seats[1].rating", "$.view.peek"}
