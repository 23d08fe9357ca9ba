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
import threading

import pytest
from django.db import connection, transaction

from games.models import Game
from notifications.models import Event
from okgin_project.timestamps import iso
from players.models import Player
from tests.helpers import lock_waiting, register

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"
LIMIT = 3 * 86400  # 3 days a turn


def _first_held_then_second(first, second) -> bool:
    """Run ``first()`` in a thread inside a transaction held open after it returns; then ``second()``
    in another thread; commit the first once the second is done or waits for a lock. Returns
    whether the second had to wait. Both must answer 200 (asserted by the callables)."""
    first_ran, release, second_done = threading.Event(), threading.Event(), threading.Event()
    second_pid: list[int] = []
    errors: list[BaseException] = []

    def run_first():
        try:
            with transaction.atomic():
                first()
                first_ran.set()
                assert release.wait(60), "never released"
        except BaseException as exc:  # noqa: BLE001 (reported by the test below)
            errors.append(exc)
            first_ran.set()
        finally:
            connection.close()

    def run_second():
        try:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_backend_pid()")
                second_pid.append(cur.fetchone()[0])
            second()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            second_done.set()
            connection.close()

    t1 = threading.Thread(target=run_first)
    t1.start()
    assert first_ran.wait(60) and not errors, errors
    t2 = threading.Thread(target=run_second)
    t2.start()
    for _ in range(1200):  # until done or blocked; a bound against a hang, not a time budget
        if second_done.wait(0.05) or (second_pid and lock_waiting(second_pid[0])):
            break
    waited = not second_done.is_set()
    release.set()
    t1.join(60)
    t2.join(60)
    assert not t1.is_alive() and not t2.is_alive() and not errors, errors
    return waited


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
    waited = _first_held_then_second(*order)

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
