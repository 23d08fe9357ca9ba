"""GET /api/v1/players/{name}/games.ndjson: every finished game of a player, one export per line
(the same object as games/{id}/export/), the games list's filters, streamed."""
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game


def _lines(client, query=""):
    r = client.get("/api/v1/players/alice/games.ndjson" + query, HTTP_ACCEPT="application/x-ndjson")
    assert r.status_code == 200 and r["Content-Type"] == "application/x-ndjson" and r.streaming
    body = b"".join(r.streaming_content).decode()
    assert body == "" or body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


@pytest.mark.django_db
def test_streams_each_finished_game_as_its_export(alice, bob):
    ids = []
    for variant, resigner in (("oklahoma", bob), ("classic", alice), ("oklahoma", alice)):
        gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob",
                                                "rules": {"variant": variant}}, format="json").json()["id"]
        bob.post(f"/api/v1/games/{gid}/accept/")
        assert resigner.post(f"/api/v1/games/{gid}/resign/").status_code == 200
        ids.append(gid)
    active = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": 60},
                        format="json").json()["id"]
    bob.post(f"/api/v1/games/{active}/accept/")
    records = _lines(bob)  # anyone signed in may read a player's finished games
    assert [r["id"] for r in records] == ids[::-1]  # newest first; the active game is not there
    for record in records:
        assert record == bob.get(f"/api/v1/games/{record['id']}/export/").json()
    assert [r["id"] for r in _lines(bob, "?result=won")] == [ids[0]]  # won by alice, not by the reader
    assert [r["id"] for r in _lines(bob, "?variant=classic")] == [ids[1]]
    assert _lines(bob, "?opponent=nobody") == []
    # A timed-out game nobody looked at is finished before the stream starts.
    Game.objects.filter(pk=active).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert _lines(bob)[0]["id"] == active and _lines(bob)[0]["end_reason"] == "timeout"


@pytest.mark.django_db
def test_unknown_player_and_bad_filter(alice):
    r = alice.get("/api/v1/players/nobody/games.ndjson")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = alice.get("/api/v1/players/alice/games.ndjson?result=draw")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
