"""A game accepted at the instant one of its players turns vacation on (issue 13): the acceptance
and ``vacation_start`` serialize on the players' rows (``games.services.common._players_lock``), so
whichever commits first, the accepted game of a player on vacation ends up paused and the opponent
sees it.

On PostgreSQL with two threads (two connections), the interleaving forced rather than left to
chance: the first request runs inside an outer transaction held open after it answered (its locks
held, nothing committed); the second then starts on its own connection, and the first commits only
once the second has finished or is waiting for a lock (``pg_locks`` shows its backend waiting).
Without the players' lock the second never waits: it reads the first's state from before its
commit (the vacation sees no active game to pause; the acceptance sees nobody on vacation) and the
game starts, and stays, unpaused."""
import pytest
from django.db import connection

from games.models import Game
from notifications.models import Event
from okgin_project.timestamps import iso
from players.models import Player
from tests.helpers import first_held_then_second, register

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"
LIMIT = 3 * 86400  # 3 days a turn


@pytest.mark.parametrize("keyed", [False, True], ids=["plain", "idempotency-key"])
@pytest.mark.parametrize("on_vacation", ["creator", "invitee"])
@pytest.mark.parametrize("first", ["accept", "vacation"])
def test_a_game_accepted_as_its_player_goes_on_vacation_ends_up_paused(anon, first, on_vacation, keyed):
    assert connection.vendor == "postgresql"
    clients = {"alice": register(anon, "alice"), "bob": register(anon, "bob")}
    r = clients["alice"].post(f"{API}/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": LIMIT},
                              format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    vacationer, opponent = ("alice", "bob") if on_vacation == "creator" else ("bob", "alice")

    def accept():
        headers = {"HTTP_IDEMPOTENCY_KEY": "accept-1"} if keyed else {}
        r = clients["bob"].post(f"{API}/games/{gid}/accept/", **headers)
        assert r.status_code == 200, r.content

    def vacation():
        r = clients[vacationer].post(f"{API}/me/vacation/start/")
        assert r.status_code == 200, r.content

    order = (accept, vacation) if first == "accept" else (vacation, accept)
    waited = first_held_then_second(*order)

    assert waited  # the second waited for the first's players' lock (without it: never)
    until = Player.objects.get(name=vacationer).vacation_until
    g = Game.objects.get(pk=gid)
    assert until is not None and g.status == "active"
    assert g.paused_until == until and g.turn_deadline is None
    assert 0 < g.turn_time_left <= LIMIT  # the turn's clock kept, not running
    seen = clients[opponent].get(f"{API}/games/{gid}/").json()
    assert (seen["status"], seen["paused_until"], seen["turn_deadline"]) == ("active", iso(until), None)
    told = Event.objects.filter(game_id=gid, kind="vacation_started", player__name=opponent).count()
    # accepted first: the vacation then paused the started game and told the opponent; vacation
    # first: the game started paused (the vacation had no game to pause, nothing to tell)
    assert told == (1 if first == "accept" else 0)
