"""An action or a resignation never waits for a player's row held by another service (PostgreSQL).

The services that lock players' rows (``vacation_start`` / ``vacation_end``, accepting a game,
keyed commands, account deletion) take them first and the game's row after; an action or a
resignation takes only the game's row, then writes rows that refer to the players (the opponent's
``opponent_moved`` event, ``match_over`` events, rating rows), whose foreign keys PostgreSQL checks
with ``FOR KEY SHARE`` on the player's row. With the players locked ``FOR UPDATE`` that check
waited for the other service, which was itself waiting for the game: a deadlock, answered 503
``database_unavailable`` (found racing moves against the opponent's vacation start, 9 of 15 tries).
The player lock is now ``FOR NO KEY UPDATE`` (``games.services.common.PLAYER_LOCK``), which those
checks do not wait for.

The interleaving is forced: the player's row is locked by the services' own lock function in a
transaction held open (``tests.helpers.first_held_then_second``), then the action runs on another
connection; it must finish without waiting for a lock (with ``FOR UPDATE`` it waits).
"""
import pytest
from django.db import connection

from games.models import Game, Move
from games.services import common, vacation
from notifications.models import Event
from players.models import Player
from tests.helpers import first_held_then_second, register

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"


def _started(anon):
    """A started match between alice and bob: (clients by name, game id, name to act, the other)."""
    clients = {"alice": register(anon, "alice"), "bob": register(anon, "bob")}
    r = clients["alice"].post(f"{API}/games/new/", {"kind": "invite", "opponent": "bob"}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert clients["bob"].post(f"{API}/games/{gid}/accept/").status_code == 200
    seen = clients["alice"].get(f"{API}/games/{gid}/").json()
    actor = "alice" if seen["is_your_turn"] else "bob"
    return clients, gid, actor, "bob" if actor == "alice" else "alice"


HOLDERS = {
    "vacation's lock": lambda pk: vacation._player_lock(pk),
    "players' lock": lambda pk: common._players_lock(player_ids=[pk]),
}


@pytest.mark.parametrize("holder", sorted(HOLDERS))
@pytest.mark.parametrize("command", ["action", "resign"])
def test_an_action_or_resignation_does_not_wait_for_a_held_player_row(anon, holder, command):
    assert connection.vendor == "postgresql"
    clients, gid, actor, other = _started(anon)
    other_pk = Player.objects.get(name=other).pk
    before = Game.objects.get(pk=gid)
    answers = []

    def hold():
        HOLDERS[holder](other_pk)

    def play():
        client = clients[actor]
        if command == "action":
            view = client.get(f"{API}/games/{gid}/").json()
            r = client.post(f"{API}/games/{gid}/actions/",
                            {"version": view["version"], "action": view["view"]["legal_actions"][0]}, format="json")
        else:
            r = client.post(f"{API}/games/{gid}/resign/")
        answers.append(r.status_code)
        assert r.status_code == 200, r.content

    waited = first_held_then_second(hold, play)

    assert not waited  # with FOR UPDATE on the player's row, the event's foreign key check waits here
    assert answers == [200]
    after = Game.objects.get(pk=gid)
    assert after.version == before.version + 1
    if command == "action":
        assert Move.objects.filter(game_id=gid).count() == 1
        assert Event.objects.filter(game_id=gid, kind="opponent_moved", player__name=other).count() == 1
    else:
        assert (after.status, after.end_reason) == ("finished", "resigned")
        assert Event.objects.filter(game_id=gid, kind="match_over", player__name=other).count() == 1
