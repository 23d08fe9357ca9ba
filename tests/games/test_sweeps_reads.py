"""Issue 13's reproduction, for every read that can show a game: a 60-second forfeit timeout
nobody looked at is applied before the read queries, without beat ("none") and with the beat
sweep having run first ("beat"). alice (seat 0, non-dealer) is to act and runs out of time, so bob
wins by ``timeout``; each read is by bob unless it says otherwise, and afterwards the database
row is checked too (the read applied it, not just rendered it)."""
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import tasks
from games.models import Game
from games.sweeps import deadlines_apply_for_player
from notifications.models import Event
from players.models import Player
from tests.games.factories import DECK

MODES = ["none", "beat"]


def _expired_game(alice, bob) -> int:
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1,
                                          "move_time_limit": 60, "timeout_policy": "forfeit"}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    game = Game.objects.get(pk=gid)
    assert (game.status, game.to_act_seat) == ("active", 0)
    # 61 seconds later: the deadline passed and nobody looked.
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    return gid


def _prepare(mode):
    if mode == "beat":
        result = tasks.deadlines_sweep()
        assert result["timeouts"] == 1


def _assert_applied(gid):
    game = Game.objects.get(pk=gid)
    assert (game.status, game.winner_seat, game.end_reason) == ("finished", 1, "timeout")


def _ids(client, query):
    r = client.get("/api/v1/games/" + query)
    assert r.status_code == 200, r.content
    return [(g["id"], g["status"]) for g in r.json()["results"]]


@pytest.mark.django_db
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("query", ["?status=finished", "?result=won", ""])
def test_games_list_filters_see_the_timeout(alice, bob, mode, query):
    gid = _expired_game(alice, bob)
    _prepare(mode)
    assert _ids(bob, query) == [(gid, "finished")]
    _assert_applied(gid)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", MODES)
def test_games_list_active_and_my_turn_no_longer_show_it(alice, bob, mode):
    gid = _expired_game(alice, bob)
    _prepare(mode)
    assert _ids(alice, "?status=active") == []
    assert _ids(alice, "?my_turn=true") == []
    assert _ids(alice, "?result=lost") == [(gid, "finished")]
    _assert_applied(gid)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("url, expected", [("me/stats/", (1, 1)), ("players/alice/stats/", (1, 0))])
def test_stats_count_it(alice, bob, mode, url, expected):
    gid = _expired_game(alice, bob)
    _prepare(mode)
    stats = bob.get("/api/v1/" + url).json()  # bob's own, then the loser's read by bob
    assert (stats["matches_played"], stats["matches_won"]) == expected
    _assert_applied(gid)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", MODES)
def test_events_carry_timeout_and_match_over(alice, bob, mode):
    gid = _expired_game(alice, bob)
    _prepare(mode)
    r = bob.get("/api/v1/events/")
    assert r.status_code == 200
    mine = [(e["kind"], e["data"].get("you_won")) for e in r.json()["results"] if e["game_id"] == gid]
    assert mine[-2:] == [("timeout", None), ("match_over", True)]
    _assert_applied(gid)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", MODES)
def test_lobby_read_applies_the_viewers_deadlines(alice, bob, mode):
    gid = _expired_game(alice, bob)
    _prepare(mode)
    assert bob.get("/api/v1/games/lobby/").status_code == 200
    _assert_applied(gid)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", ["export/", "rounds/", "moves/", ""])
def test_reads_of_the_game_itself(alice, bob, mode, path):
    gid = _expired_game(alice, bob)
    _prepare(mode)
    r = bob.get(f"/api/v1/games/{gid}/{path}")
    assert r.status_code == 200, r.content
    if path == "export/":
        assert (r.json()["end_reason"], r.json()["winner_seat"]) == ("timeout", 1)
    if path == "":
        assert (r.json()["status"], r.json()["winner_seat"]) == ("finished", 1)
    _assert_applied(gid)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", MODES)
def test_expired_invitation_is_shown_expired(alice, bob, mode):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    Game.objects.filter(pk=gid).update(invitation_expires_at=timezone.now() - timedelta(seconds=1))
    if mode == "beat":
        assert tasks.deadlines_sweep()["invitations_expired"] == 1
    assert _ids(bob, "?status=invited") == []
    assert _ids(alice, "?status=aborted") == [(gid, "aborted")]
    assert Game.objects.get(pk=gid).end_reason == "expired"


@pytest.mark.django_db
def test_timeout_is_applied_once_by_the_read_and_the_sweep(alice, bob):
    gid = _expired_game(alice, bob)
    assert _ids(bob, "?status=finished") == [(gid, "finished")]
    assert tasks.deadlines_sweep()["timeouts"] == 0
    assert _ids(bob, "?status=finished") == [(gid, "finished")]
    kinds = list(Event.objects.filter(game_id=gid, kind__in=("timeout", "match_over"))
                 .values_list("player__name", "kind").order_by("id"))
    assert sorted(kinds) == [("alice", "match_over"), ("alice", "timeout"), ("bob", "match_over"), ("bob", "timeout")]


@pytest.mark.django_db
def test_nothing_due_costs_one_indexed_query(alice, bob):
    gid = _expired_game(alice, bob)
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() + timedelta(hours=1),
                                       turn_reminder_at=timezone.now() + timedelta(minutes=30))
    player = Player.objects.get(name="bob")
    with CaptureQueriesContext(connection) as queries:
        assert deadlines_apply_for_player(player=player) == 0
    assert len(queries) == 1
    sql = queries[0]["sql"]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Seq Scan on games_game" not in plan, plan
    assert Game.objects.get(pk=gid).status == "active"


@pytest.mark.django_db
def test_due_reminder_is_sent_on_read(alice, bob):
    gid = _expired_game(alice, bob)
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() + timedelta(seconds=10),
                                       turn_reminder_at=timezone.now() - timedelta(seconds=1))
    feed = alice.get("/api/v1/events/").json()["results"]
    assert feed[-1]["kind"] == "deadline_near" and feed[-1]["game_id"] == gid
    assert Game.objects.get(pk=gid).status == "active"
    assert alice.get("/api/v1/events/").json()["results"][-1] == feed[-1]  # once per turn
