"""End-to-end: a real Celery worker process over Redis, PostgreSQL, and the API over HTTP.

AI turns arrive through the worker, a duplicated task gives one move, a killed worker's lost turn
is recovered by the sweep, deadlines time out under both policies, a person's action racing the
timeout leaves a consistent game, and webhooks reach a loopback receiver, signed, with retries.
"""
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from games import tasks
from games.management.commands.verify_games import game_verify
from games.models import Game, Move
from notifications.models import Event, WebhookDelivery
from tests.e2e.client import Player, simple_choice
from tests.e2e.conftest import queue_length, wait_for
from tests.games.factories import DECK
from tests.helpers import deck_for
from tests.notifications.receiver import Receiver

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _my_turn_or_over(player, gid, timeout=30.0):
    return wait_for(lambda: (lambda g: g if g["status"] != "active" or g["is_your_turn"] else None)(
        player.game(gid)), timeout=timeout, what="the AI's reply")


def _ai_game_person_first(base):
    """A person (staff, to fix the deal) vs the AI on DECK; the person is non-dealer and acts first."""
    from django.contrib.auth import get_user_model

    me = Player(base)
    get_user_model().objects.filter(username=me.name).update(is_staff=True)
    r = me.post("/games/new/", {"kind": "ai", "ai_level": "random", "decks": [DECK], "first_dealer": 1})
    assert r.status_code == 201, r.text
    return me, r.json()["id"]


def test_person_plays_a_whole_match_against_the_ai_over_http(e2e):
    me = Player(e2e)
    r = me.post("/games/new/", {"kind": "ai", "rules": {"target_score": 50}})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    assert r.json()["seats"][1]["ai_level"] == "strong"
    actions = 0
    while True:
        game = _my_turn_or_over(me, gid)
        if game["status"] != "active":
            break
        r = me.act(gid, game["version"], simple_choice(game["view"]))
        assert r.status_code == 200, r.text
        actions += 1
        assert actions < 2000
    assert game["status"] == "finished" and game["end_reason"] == "target_score"
    assert max(game["scores"]) >= 50 and game["winner_seat"] == game["scores"].index(max(game["scores"]))
    moves, page = [], {"has_more": True, "next_cursor": None}
    while page["has_more"]:  # pages in order, first to last
        page = me.get(f"/games/{gid}/moves/", limit=500, **({"cursor": page["next_cursor"]} if moves else {}))
        moves += page["results"]
    assert [m["seq"] for m in moves] == list(range(1, len(moves) + 1))
    assert sum(m["seat"] == 1 for m in moves) > 0 and sum(m["seat"] == 0 for m in moves) == actions
    g = Game.objects.get(pk=gid)
    assert game_verify(g) is None and g.version == 1 + len(moves)
    page = me.get("/events/", limit=200)  # the latest events; older pages before them
    kinds = [e["kind"] for e in page["results"]]
    while page["has_prev"]:  # a match against the strong AI can have more events than one page
        page = me.get("/events/", cursor=page["prev_cursor"], limit=200)
        kinds = [e["kind"] for e in page["results"]] + kinds
    assert "opponent_moved" in kinds and "round_over" in kinds and kinds[-1] == "match_over"


def test_a_task_delivered_twice_produces_one_move(e2e):
    me, gid = _ai_game_person_first(e2e)
    game = me.game(gid)
    r = me.act(gid, game["version"], {"type": "pass"})
    assert r.status_code == 200
    queued = r.json()["game"]["version"]  # the version the after-commit task carries
    for _ in range(3):  # the same message delivered again (e.g. redelivered after a lost ack)
        tasks.ai_turn_play.apply_async(kwargs={"game_id": gid, "expected_version": queued})
    game = _my_turn_or_over(me, gid)
    wait_for(lambda: queue_length() == 0, what="the duplicates to be consumed")
    time.sleep(0.5)  # let the last duplicate finish
    ai = list(Move.objects.filter(game_id=gid, seat=1).values_list("action", flat=True))
    assert [a["type"] for a in ai] in (["pass"], ["take_upcard", "discard"], ["take_upcard", "knock"])
    assert Game.objects.get(pk=gid).version == game["version"] == queued + len(ai)


def test_a_killed_workers_lost_turn_is_recovered_by_the_sweep(e2e, celery_worker):
    from okgin_project.celery import app

    me, gid = _ai_game_person_first(e2e)
    celery_worker.kill()  # SIGKILL: worker and pool processes gone at once
    game = me.game(gid)
    r = me.act(gid, game["version"], {"type": "pass"})
    assert r.status_code == 200
    queued = r.json()["game"]["version"]
    assert queue_length() == 1
    app.control.purge()  # ...and the message is lost with it
    celery_worker.start()
    time.sleep(1.0)
    assert Game.objects.get(pk=gid).awaiting_ai  # nobody plays the AI's turn
    assert tasks.ai_turns_sweep.apply_async(kwargs={"min_age_seconds": 0.5}) is not None
    game = _my_turn_or_over(me, gid)
    ai = list(Move.objects.filter(game_id=gid, seat=1).values_list("action", flat=True))
    assert len(ai) in (1, 2) and game["version"] == queued + len(ai)
    # The lost message turning up after all (redelivery) and the next sweep change nothing.
    tasks.ai_turn_play.apply_async(kwargs={"game_id": gid, "expected_version": queued})
    tasks.ai_turns_sweep.apply_async(kwargs={"min_age_seconds": 0})
    wait_for(lambda: queue_length() == 0, what="queue drained")
    time.sleep(0.5)
    assert Move.objects.filter(game_id=gid, seat=1).count() == len(ai)
    assert game_verify(Game.objects.get(pk=gid)) is None


# Seat 0 (non-dealer, first to act) holds no meld and cannot knock whatever it does on its first
# turn (80 points of deadwood, upcard 9D: knock limit 9), so a turn played for it at its timeout
# ends in the opponent's turn of the same round. (On a shuffled deck, a knock at once that is
# undercut would give seat 0 the next round's first turn: about 5 deals in a million.)
NO_KNOCK_DECK = deck_for(nondealer="KC QD JH 10S 8C 6D 4H 2S KH QS",
                         dealer="AC 2C 3C 5D 7S 9H 3S 4D 5S 8H", upcard="9D")


def _timed_game(base, policy):
    """An invitation game of alice (staff, to fix the deal) and bob on ``NO_KNOCK_DECK`` with a
    60 s move limit under ``policy``; seat 0 acts first."""
    from django.contrib.auth import get_user_model

    alice, bob = Player(base), Player(base)
    get_user_model().objects.filter(username=alice.name).update(is_staff=True)
    r = alice.post("/games/new/", {"kind": "invite", "opponent": bob.name, "move_time_limit": 60,
                                   "timeout_policy": policy, "decks": [NO_KNOCK_DECK], "first_dealer": 1})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    game = bob.post(f"/games/{gid}/accept/").json()
    return alice, bob, gid, game


@pytest.mark.parametrize("policy", ["forfeit", "auto_play"])
def test_a_deadline_a_few_seconds_away_times_out(e2e, policy):
    alice, bob, gid, game = _timed_game(e2e, policy)
    seat = game["to_act"]
    deadline = timezone.now() + timedelta(seconds=2)
    Game.objects.filter(pk=gid).update(turn_deadline=deadline)
    tasks.deadlines_sweep.apply_async()  # before the deadline: nothing happens
    time.sleep(0.5)
    assert Game.objects.get(pk=gid).version == game["version"]

    def swept():
        tasks.deadlines_sweep.apply_async()
        time.sleep(0.25)
        return Game.objects.get(pk=gid).version != game["version"]

    wait_for(swept, timeout=15, what="the timeout")
    assert timezone.now() >= deadline
    g = Game.objects.get(pk=gid)
    if policy == "forfeit":
        assert (g.status, g.end_reason, g.winner_seat) == ("finished", "timeout", 1 - seat)
    else:
        auto = list(Move.objects.filter(game=g).values_list("seat", "auto_played"))
        assert auto and all(s == seat and a for s, a in auto)
        assert g.status == "active" and g.to_act_seat == 1 - seat and g.auto_played(seat) == 1
        assert g.turn_deadline > timezone.now() + timedelta(seconds=50)  # the opponent's new minute
    for p in (alice, bob):
        timeout = [e for e in p.get("/events/")["results"] if e["kind"] == "timeout"]
        assert len(timeout) == 1 and timeout[0]["data"]["seat"] == seat
    assert game_verify(g) is None


def test_an_action_racing_the_timeout_leaves_a_consistent_game(e2e):
    for offset in (-0.2, -0.05, -0.01, 0.0, 0.01, 0.05, 0.2):
        alice, bob, gid, game = _timed_game(e2e, "forfeit")
        me = alice if game["to_act"] == 0 else bob
        deadline = timezone.now() + timedelta(seconds=0.5)
        Game.objects.filter(pk=gid).update(turn_deadline=deadline)
        results = {}

        def person():
            time.sleep(max(0.0, (deadline - timezone.now()).total_seconds() + offset))
            results["r"] = me.act(gid, game["version"], {"type": "pass"})

        thread = threading.Thread(target=person)
        thread.start()
        time.sleep(max(0.0, (deadline - timezone.now()).total_seconds()))
        tasks.turn_timeout.apply_async(kwargs={"game_id": gid, "expected_version": game["version"]})
        thread.join()
        time.sleep(0.3)
        tasks.deadlines_sweep.apply_async()  # whatever is still due
        g = wait_for(lambda: (lambda g: g if g.status != "active" or g.to_act_seat != game["to_act"] else None)(
            Game.objects.get(pk=gid)), what="a decision")
        moves = Move.objects.filter(game=g).count()
        timeouts = Event.objects.filter(game=g, kind="timeout").count()
        status = results["r"].status_code
        if status == 200:  # the move was first: no timeout, the game goes on
            assert (g.status, moves, timeouts, g.version) == ("active", 1, 0, game["version"] + 1)
        else:  # the timeout was first: the match is forfeited and the move was refused
            assert status == 409 and results["r"].json()["error"]["code"] in ("turn_expired", "stale_version", "game_not_active")
            assert (g.status, g.end_reason, moves, timeouts) == ("finished", "timeout", 0, 2)
            assert g.version == game["version"] + 1
        assert game_verify(g) is None  # (which side wins each race depends on timing; both are consistent)


def test_webhooks_are_signed_and_a_failing_receiver_is_retried(e2e, settings):
    settings.OKGIN_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback (the worker: env)
    settings.OKGIN_WEBHOOK_PORTS = None
    alice, bob = Player(e2e), Player(e2e)
    with Receiver(statuses=[500, 502]) as receiver:
        created = bob.post("/webhooks/", {"url": receiver.url}).json()
        alice.post("/games/new/", {"kind": "invite", "opponent": bob.name})
        wait_for(lambda: WebhookDelivery.objects.filter(status="delivered").exists(), what="delivery")
        bodies = receiver.verified(created["secret"])
    assert len(bodies) == 3 and all(b == bodies[0] for b in bodies)  # the same event, retried twice
    assert bodies[0]["kind"] == "invitation_received" and bodies[0]["data"]["by"] == alice.name
    [d] = bob.get(f"/webhooks/{created['id']}/deliveries/")["results"]
    assert (d["status"], d["attempts"], d["last_status_code"]) == ("delivered", 3, 200)
