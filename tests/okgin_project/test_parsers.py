"""Request bodies: too large (413), nested too deep, lone surrogates, NUL characters: a JSON error,
never a 500, and nothing written."""
import json

import pytest

from games.models import Game, Move
from players.models import Player
from tests.helpers import assert_error


def _post_raw(client, url, text):
    return client.post(url, text.encode("utf-8", "surrogatepass"), content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.error_code("malformed_json")
def test_deeply_nested_json_is_malformed_json(alice, settings, debug):
    settings.DEBUG = debug
    for depth in (33, 5000, 100000):
        r = _post_raw(alice, "/api/v1/games/new/", '{"kind": "ai", "rules": ' + "[" * depth + "]" * depth + "}")
        assert_error(r, "malformed_json")
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_lone_surrogates_are_refused_not_echoed(anon, alice):
    before = Player.objects.count()
    r = _post_raw(anon, "/api/v1/auth/register/", '{"username": "\\ud800x", "password": "correct-horse-42"}')
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
    r = _post_raw(alice, "/api/v1/games/new/", '{"kind": "\\udfff"}')
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
    assert Player.objects.count() == before and Game.objects.count() == 0


@pytest.mark.django_db
def test_nul_characters_in_strings_are_refused(alice):
    r = _post_raw(alice, "/api/v1/games/new/", '{"kind": "ai", "rules": {"knock_limit": "up\\u0000card"}}')
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.error_code("payload_too_large")
def test_a_body_too_large_is_413_json(alice, settings, debug):
    settings.DEBUG = debug
    gid = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json").json()["id"]
    moves = Move.objects.count()
    big = json.dumps({"version": 1, "action": {"type": "pass"}, "pad": "x" * (settings.OKGIN_MAX_BODY_BYTES + 1)})
    r = _post_raw(alice, f"/api/v1/games/{gid}/actions/", big)
    assert_error(r, "payload_too_large")
    assert Move.objects.count() == moves
