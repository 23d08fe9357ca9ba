"""Vacation (games/services/vacation.py; docs/correspondence.md), through the API. Time is moved the
project's way, by setting the stored times as if it had passed (no sleeping): "3 days of vacation"
moves the vacation's start and end, and the paused game's ``paused_until``, 3 days into the past.

The worked example: alice has a 3-day move limit, has used 1 day of her turn (2 days left, the
reminder due in 1.4 days), goes on vacation for 3 days, and comes back to 2 days left again."""
import threading
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games import services, tasks
from games.models import Game
from notifications.models import Event, WebhookDelivery, WebhookEndpoint
from players.models import Player
from tests.games.factories import DECK
from tests.helpers import act_ok, assert_error, register
from tests.processes import wait_for

DAY = 86400
LIMIT = 3 * DAY
YEAR = 21 * DAY  # OKGIN_VACATION_DAYS_PER_YEAR = 21 (the default)
MONTH = YEAR // 12  # 1.75 days = 151200 s


def _game(alice, bob, policy="forfeit", opponent="bob") -> int:
    """alice (seat 0, non-dealer) to act on DECK, 3 days a turn."""
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": opponent, "decks": [DECK], "first_dealer": 1,
                                          "move_time_limit": LIMIT, "timeout_policy": policy}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    return gid


def _used_a_day(gid):
    """alice has used 1 day of her 3: 2 days left, the reminder (at 80%: 2.4 days) in 1.4 days."""
    now = timezone.now()
    Game.objects.filter(pk=gid).update(turn_deadline=now + timedelta(seconds=2 * DAY),
                                       turn_reminder_at=now + timedelta(seconds=120960))


def _days_pass(name, seconds, *games):
    """Move time by ``seconds`` for ``name``'s vacation and the paused games."""
    shift = timedelta(seconds=seconds)
    p = Player.objects.get(name=name)
    Player.objects.filter(pk=p.pk).update(vacation_started_at=p.vacation_started_at - shift,
                                          vacation_until=p.vacation_until - shift)
    for gid in games:
        g = Game.objects.get(pk=gid)
        Game.objects.filter(pk=gid).update(paused_until=g.paused_until - shift)


def _events(name, kind):
    return list(Event.objects.filter(player__name=name, kind=kind).order_by("id"))


def _month(now):
    return now.year * 12 + now.month - 1


@pytest.mark.django_db
def test_a_new_player_has_the_full_year(alice):
    body = alice.get("/api/v1/me/vacation/").json()
    now = timezone.now()
    next_month = datetime(now.year + (now.month == 12), now.month % 12 + 1, 1, tzinfo=dt_timezone.utc)
    assert body == {
        "on_vacation": False, "seconds_left": YEAR, "days_left": 21.0, "whole_days_left": 21, "days_per_year": 21,
        "monthly_credit_days": 1.75, "next_credit_at": next_month.isoformat().replace("+00:00", "Z"),
        "started_at": None, "ends_at": None, "days_charged": 0,
    }


@pytest.mark.django_db
@pytest.mark.parametrize("balance, months, expected", [
    (0, 2, 2 * MONTH),  # two month starts since: 3.5 days
    (5 * DAY, 1, 5 * DAY + MONTH),  # 6.75 days
    (20 * DAY, 2, YEAR),  # 20 + 3.5 days, capped at 21
    (3 * DAY, 0, 3 * DAY),  # nothing credited within the month
])
def test_monthly_accrual(alice, balance, months, expected):
    Player.objects.filter(name="alice").update(vacation_balance=balance,
                                               vacation_accrued_month=_month(timezone.now()) - months)
    body = alice.get("/api/v1/me/vacation/").json()
    assert (body["seconds_left"], body["whole_days_left"]) == (expected, expected // DAY)


@pytest.mark.django_db
def test_two_days_left_three_days_of_vacation_two_days_left(alice, bob):
    gid = _game(alice, bob)
    _used_a_day(gid)
    version = Game.objects.get(pk=gid).version

    before = timezone.now()
    r = alice.post("/api/v1/me/vacation/start/")
    assert r.status_code == 200, r.content
    me = r.json()
    assert me["on_vacation"] is True and me["whole_days_left"] == 21 and me["days_charged"] == 1
    started = datetime.fromisoformat(me["started_at"])
    assert before <= started <= timezone.now()
    assert datetime.fromisoformat(me["ends_at"]) - started == timedelta(days=21)  # the whole balance

    # bob sees the pause in the game and in his list, and was told.
    seen = bob.get(f"/api/v1/games/{gid}/").json()
    assert seen["paused_until"] == me["ends_at"] and seen["turn_deadline"] is None
    assert seen["turn_time_left"] == 2 * DAY and seen["version"] == version + 1
    listed = bob.get("/api/v1/games/", {"status": "active"}).json()["results"]
    assert [(g["id"], g["paused_until"]) for g in listed] == [(gid, me["ends_at"])]
    told = _events("bob", "vacation_started")
    assert [(e.game_id, e.data["by"], e.data["paused_until"], e.data["reason"]) for e in told] == [
        (gid, "alice", me["ends_at"], "started")]
    assert _events("alice", "vacation_started") == []  # the opponent is told, not the vacationer
    g = Game.objects.get(pk=gid)
    assert (g.turn_deadline, g.turn_reminder_at, g.turn_time_left, g.turn_reminder_left) == (
        None, None, 2 * DAY, 120960)

    # 3 days pass (a minute less: the third day started; longer than the 2 days alice had left):
    # the sweep and every read find nothing due.
    _days_pass("alice", 3 * DAY - 60, gid)
    assert tasks.deadlines_sweep() == {"timeouts": 0, "reminders": 0, "invitations_expired": 0, "vacations_ended": 0}
    assert services.turn_timeout(game_id=gid) is None
    assert services.deadline_reminder_send(game_id=gid) is False
    assert bob.get(f"/api/v1/games/{gid}/").json()["status"] == "active"
    assert bob.get("/api/v1/me/stats/").status_code == 200
    assert Event.objects.filter(game_id=gid, kind__in=("timeout", "deadline_near", "match_over")).count() == 0

    # alice comes back: 3 days charged (18 left), and her clock has 2 days again.
    before = timezone.now()
    r = alice.post("/api/v1/me/vacation/end/")
    after = timezone.now()
    assert r.status_code == 200, r.content
    me = r.json()
    assert (me["on_vacation"], me["days_charged"], me["seconds_left"], me["whole_days_left"]) == (
        False, 3, YEAR - 3 * DAY, 18)
    g = Game.objects.get(pk=gid)
    assert before + timedelta(days=2) <= g.turn_deadline <= after + timedelta(days=2)
    assert g.turn_deadline - g.turn_reminder_at == timedelta(seconds=2 * DAY - 120960)  # reminder kept too
    assert (g.paused_until, g.turn_time_left, g.turn_reminder_left, g.version) == (None, None, None, version + 2)
    ended = _events("bob", "vacation_ended")
    assert [(e.data["reason"], e.data["paused_until"]) for e in ended] == [("ended", None)]
    assert ended[0].data["turn_deadline"] == bob.get(f"/api/v1/games/{gid}/").json()["turn_deadline"]


@pytest.mark.django_db
@pytest.mark.parametrize("spent, charged", [(0, 1), (DAY - 60, 1), (DAY, 2), (3 * DAY + 3600, 4)])
def test_days_are_charged_per_whole_day_started(alice, spent, charged):
    """``spent`` seconds before the request that ends it (which itself takes a moment, so exactly
    one day already started a second one)."""
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    _days_pass("alice", spent)
    me = alice.post("/api/v1/me/vacation/end/").json()
    assert (me["days_charged"], me["seconds_left"]) == (charged, YEAR - charged * DAY)


@pytest.mark.django_db
@pytest.mark.parametrize("apply", ["sweep", "read", "end"])
def test_running_out_resumes_at_the_vacations_end(alice, bob, apply):
    """alice has 2 days of vacation; her game has 1 day left when it starts. The vacation ran out
    an hour ago and nobody ended it: the sweep (or bob's read, or alice ending it herself) ends it
    at its end, and the clock restarts from there: 1 day after the vacation's end. Both days are
    charged, and bob is told it ran out (not that alice ended it)."""
    Player.objects.filter(name="alice").update(vacation_balance=2 * DAY, vacation_accrued_month=_month(timezone.now()))
    gid = _game(alice, bob)
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() + timedelta(seconds=DAY), turn_reminder_at=None)
    me = alice.post("/api/v1/me/vacation/start/").json()
    assert me["whole_days_left"] == 2
    assert datetime.fromisoformat(me["ends_at"]) - datetime.fromisoformat(me["started_at"]) == timedelta(days=2)
    _days_pass("alice", 2 * DAY + 3600, gid)
    end = Player.objects.get(name="alice").vacation_until
    assert end < timezone.now()

    if apply == "sweep":
        assert tasks.deadlines_sweep()["vacations_ended"] == 1
    elif apply == "end":
        r = alice.post("/api/v1/me/vacation/end/")
        assert r.status_code == 200, r.content
        assert (r.json()["days_charged"], r.json()["on_vacation"]) == (2, False)
    else:
        assert [g["paused_until"] for g in bob.get("/api/v1/games/").json()["results"]] == [None]
    g = Game.objects.get(pk=gid)
    assert (g.paused_until, g.status, g.turn_deadline) == (None, "active", end + timedelta(days=1))
    alice_row = Player.objects.get(name="alice")
    assert (alice_row.vacation_until, alice_row.vacation_balance) == (None, 0)
    assert [e.data["reason"] for e in _events("bob", "vacation_ended")] == ["ran_out"]
    assert alice.get("/api/v1/me/vacation/").json()["on_vacation"] is False


@pytest.mark.django_db
def test_running_out_long_ago_applies_the_timeout_after_the_resume_on_read(alice, bob):
    """The vacation ran out 3 days ago and nothing ran since (no beat): bob's read ends it at its
    end, alice's 1 day then ran out 2 days ago, so the same read applies the forfeit."""
    Player.objects.filter(name="alice").update(vacation_balance=2 * DAY, vacation_accrued_month=_month(timezone.now()))
    gid = _game(alice, bob)
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() + timedelta(seconds=DAY))
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    _days_pass("alice", 5 * DAY, gid)
    rows = bob.get("/api/v1/games/", {"status": "finished"}).json()["results"]
    assert [(g["id"], g["end_reason"], g["winner_seat"]) for g in rows] == [(gid, "timeout", 1)]
    kinds = [e.kind for e in Event.objects.filter(player__name="bob", game_id=gid).order_by("id")]
    assert kinds[-3:] == ["vacation_ended", "timeout", "match_over"]


@pytest.mark.django_db
@pytest.mark.parametrize("policy", ["forfeit", "auto_play"])
def test_no_timeout_or_auto_play_while_paused_even_past_the_old_deadline(alice, bob, policy):
    gid = _game(alice, bob, policy)
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() + timedelta(seconds=60))
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    _days_pass("alice", 10 * DAY, gid)  # far past the old deadline; 11 days of vacation still left
    assert tasks.deadlines_sweep() == {"timeouts": 0, "reminders": 0, "invitations_expired": 0, "vacations_ended": 0}
    assert bob.get(f"/api/v1/games/{gid}/").json()["status"] == "active"
    assert bob.get("/api/v1/events/").status_code == 200
    g = Game.objects.get(pk=gid)
    assert (g.status, g.move_count, g.auto_played0, g.turn_time_left) == ("active", 0, 0, 60)


@pytest.mark.django_db
def test_a_turn_that_ran_out_before_the_vacation_times_out_first(alice, bob):
    gid = _game(alice, bob)
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    g = Game.objects.get(pk=gid)
    assert (g.status, g.end_reason, g.paused_until) == ("finished", "timeout", None)
    assert _events("bob", "vacation_started") == []


@pytest.mark.django_db
def test_moves_while_paused_and_both_players_on_vacation(alice, bob):
    """bob may still move while alice is away; alice's next turn keeps its full 3 days until the
    pause ends. With both away the game stays paused until the later return."""
    gid = _game(alice, bob)
    act_ok(alice, gid, {"type": "pass"})  # bob (dealer) to act
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    act_ok(bob, gid, {"type": "pass"})  # alice to act again: a new turn starts paused
    g = Game.objects.get(pk=gid)
    assert (g.to_act_seat, g.turn_deadline, g.turn_time_left) == (0, None, LIMIT)
    bob_state = bob.post("/api/v1/me/vacation/start/").json()
    alice_end = Player.objects.get(name="alice").vacation_until
    assert Game.objects.get(pk=gid).paused_until == max(alice_end, datetime.fromisoformat(bob_state["ends_at"]))
    assert alice.post("/api/v1/me/vacation/end/").status_code == 200
    g = Game.objects.get(pk=gid)
    assert g.paused_until == datetime.fromisoformat(bob_state["ends_at"]) and g.turn_deadline is None
    assert [e.data["paused_until"] for e in _events("bob", "vacation_ended")] == [bob_state["ends_at"]]
    before = timezone.now()
    assert bob.post("/api/v1/me/vacation/end/").status_code == 200
    g = Game.objects.get(pk=gid)
    assert g.paused_until is None and g.turn_deadline >= before + timedelta(seconds=LIMIT)
    assert [e.data["reason"] for e in _events("alice", "vacation_ended")] == ["ended"]


@pytest.mark.django_db
def test_a_game_accepted_during_a_vacation_starts_paused(alice, bob):
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    gid = _game(alice, bob)
    g = Game.objects.get(pk=gid)
    assert g.paused_until == Player.objects.get(name="alice").vacation_until
    assert (g.turn_deadline, g.turn_time_left) == (None, LIMIT)


@pytest.mark.django_db
def test_webhooks_get_the_vacation_events(alice, bob):
    WebhookEndpoint.objects.create(player=Player.objects.get(name="bob"), url="https://hooks.example.com/x",
                                   secret="s")
    gid = _game(alice, bob)
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    assert alice.post("/api/v1/me/vacation/end/").status_code == 200
    kinds = WebhookDelivery.objects.filter(event__game_id=gid, event__kind__startswith="vacation_") \
        .order_by("id").values_list("event__kind", flat=True)
    assert list(kinds) == ["vacation_started", "vacation_ended"]
    feed = [e["kind"] for e in bob.get("/api/v1/events/").json()["results"]]
    assert feed[-2:] == ["vacation_started", "vacation_ended"]


def _snapshot(gid):
    p = Player.objects.get(name="alice")
    g = Game.objects.get(pk=gid)
    return ((p.vacation_balance, p.vacation_accrued_month, p.vacation_started_at, p.vacation_until),
            (g.version, g.paused_until, g.turn_deadline, g.turn_time_left), Event.objects.count())


@pytest.mark.django_db
@pytest.mark.error_code("vacation_no_days", "vacation_already_on", "vacation_not_on")
def test_refused_vacation_requests_change_nothing(alice, bob):
    gid = _game(alice, bob)
    before = _snapshot(gid)
    err = assert_error(alice.post("/api/v1/me/vacation/end/"), "vacation_not_on")  # not on vacation
    assert err["message"] == "You are not on vacation."
    assert _snapshot(gid) == before

    # Less than one whole day left: 23 h 59 min 59 s.
    Player.objects.filter(name="alice").update(vacation_balance=DAY - 1, vacation_accrued_month=_month(timezone.now()))
    before = _snapshot(gid)
    assert_error(alice.post("/api/v1/me/vacation/start/"), "vacation_no_days")
    assert _snapshot(gid) == before

    Player.objects.filter(name="alice").update(vacation_balance=DAY)
    assert alice.post("/api/v1/me/vacation/start/").status_code == 200
    before = _snapshot(gid)
    assert_error(alice.post("/api/v1/me/vacation/start/"), "vacation_already_on")
    assert _snapshot(gid) == before
    assert_error(bob.post("/api/v1/me/vacation/end/"), "vacation_not_on")  # bob is not away
    assert _snapshot(gid) == before


@pytest.mark.django_db
def test_a_retried_start_replays_the_first_answer(alice, bob):
    """A phone retrying "go on vacation" with its Idempotency-Key gets the first answer again, not
    vacation_already_on, and nothing is applied twice."""
    gid = _game(alice, bob)
    first = alice.post("/api/v1/me/vacation/start/", HTTP_IDEMPOTENCY_KEY="vac-1")
    assert first.status_code == 200
    again = alice.post("/api/v1/me/vacation/start/", HTTP_IDEMPOTENCY_KEY="vac-1")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert len(_events("bob", "vacation_started")) == 1 and Game.objects.get(pk=gid).version == 3


@pytest.mark.django_db(transaction=True)
def test_the_in_process_scheduler_keeps_the_pause_and_ends_a_run_out_vacation():
    """The embedded default's scheduler (games/sweeps.py, the beat schedule on a thread) runs the
    same sweep: nothing expires while paused, and a vacation that ran out a second ago ends at its
    end, the turn's 60 s restarting from there."""
    from games import sweeps
    from tests.games.factories import player_make

    p0, p1 = player_make(), player_make()
    game = services.game_create(creator=p0, kind="invite", opponent_name=p1.name, move_time_limit=60)
    game = services.invitation_accept(game_id=game.pk, player=p1)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() + timedelta(seconds=60))
    services.vacation_start(player=p0)
    _days_pass(p0.name, 10 * DAY, game.pk)  # 10 of 21 days: far past the old deadline
    leader = sweeps.SweepScheduler(owner="leader")
    assert "games.deadlines_sweep" in leader.tick()
    g = Game.objects.get(pk=game.pk)
    assert (g.status, g.turn_deadline, g.turn_time_left) == ("active", None, 60)

    _days_pass(p0.name, 11 * DAY + 1, game.pk)  # now the 21 days ran out a second ago
    until = Player.objects.get(pk=p0.pk).vacation_until
    sweeps.lease_release(name="beat", owner="leader")
    assert "games.deadlines_sweep" in sweeps.SweepScheduler(owner="next").tick()
    end = Player.objects.get(pk=p0.pk)
    assert end.vacation_until is None and end.vacation_balance == 0
    g = Game.objects.get(pk=game.pk)
    assert (g.status, g.paused_until) == ("active", None)
    assert g.turn_deadline == until + timedelta(seconds=60)  # restarted at the vacation's end
    assert Event.objects.filter(game=g, kind="vacation_ended", data__reason="ran_out").count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_turn_with_time_left_when_the_vacation_starts_is_paused_even_if_it_runs_out_while_waiting(anon):
    """vacation_start judges every game at the one moment of the request: alice's turn had an hour
    left then, and its deadline passes while the request waits on the game's row lock (held by
    another transaction), so the game is paused with 0 s left, not timed out."""
    alice, bob = register(anon, "alice", staff=True), register(anon, "bob")
    gid = _game(alice, bob)  # forfeit on timeout
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() + timedelta(hours=1))
    answers = []

    def start():
        try:
            answers.append(alice.post("/api/v1/me/vacation/start/"))
        finally:
            connection.close()

    request = threading.Thread(target=start)
    with transaction.atomic():
        Game.objects.select_for_update().get(pk=gid)
        request.start()
        wait_for(lambda: _lock_waits() == 1, what="the vacation request to wait on the game's row lock")
        Game.objects.filter(pk=gid).update(turn_deadline=timezone.now())  # after the request's moment
    request.join(30)
    assert [r.status_code for r in answers] == [200]
    g = Game.objects.get(pk=gid)
    assert (g.status, g.end_reason, g.turn_time_left, g.turn_deadline) == ("active", "", 0, None)
    assert g.paused_until is not None
    assert len(_events("bob", "vacation_started")) == 1 and _events("bob", "timeout") == []


def _lock_waits() -> int:
    """Sessions of this database waiting on a lock (read afresh: not the transaction's snapshot)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                       " AND wait_event_type = 'Lock'")
        return cursor.fetchone()[0]
