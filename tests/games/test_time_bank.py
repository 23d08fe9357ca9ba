"""Time banks (games/services/common.py ``_set_turn``; docs/correspondence.md): a Fischer-style clock
for correspondence games instead of a fixed ``move_time_limit``. Worked example: 3 days in each bank,
1 day added after each turn, at most 5 days. Time is moved the project's way: the turn's stored
deadline is set as if time had passed (no sleeping); seconds left are counted rounded up, so a
deadline set to now + N s still has N s left when the action arrives within a second."""
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game
from notifications.models import Event
from tests.games.factories import DECK
from tests.helpers import act_ok, assert_error

DAY = 86400
BANK = {"initial": 3 * DAY, "increment": DAY, "max": 5 * DAY}


def _bank_game(alice, bob, policy="forfeit", bank=BANK) -> int:
    """alice (seat 0, non-dealer) acts first (R5.1) on DECK."""
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1,
                                          "time_bank": bank, "timeout_policy": policy}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    return gid


def _left(gid, seconds):
    """Move time: the turn to act has ``seconds`` left on its clock."""
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() + timedelta(seconds=seconds))


def _end_turn(client, gid, left, action) -> int:
    """With ``left`` seconds on the clock, play ``action``, which ends the turn. Returns how many
    whole seconds the request itself took (0 or more): the seconds left when the server ends the
    turn are ``left`` minus at most that (rounded up), so a bank is checked as the worked value
    minus at most that many seconds of the request's own run time."""
    _left(gid, left)
    start = timezone.now()
    act_ok(client, gid, action)
    return int((timezone.now() - start).total_seconds())


def _turn(client, gid, left) -> int:
    """Draw from the stock, then with ``left`` seconds on the clock discard (never knock): one
    whole turn (R6). Returns as ``_end_turn``."""
    act_ok(client, gid, {"type": "draw_stock"})
    legal = client.get(f"/api/v1/games/{gid}/").json()["view"]["legal_actions"]
    return _end_turn(client, gid, left, next(a for a in legal if a["type"] == "discard"))


def _assert_bank(gid, seat, expected, slack):
    bank = Game.objects.get(pk=gid).bank(seat)
    assert expected - slack <= bank <= expected, (bank, expected, slack)


def _banks(gid):
    g = Game.objects.get(pk=gid)
    return [g.bank0, g.bank1]


@pytest.mark.django_db
@pytest.mark.rule("R5.1")
def test_bank_arithmetic_with_increment_and_cap(alice, bob):
    gid = _bank_game(alice, bob)
    game = alice.get(f"/api/v1/games/{gid}/").json()
    assert game["time_bank"] == BANK and game["move_time_limit"] is None
    assert game["time_banks"] == [3 * DAY, 3 * DAY] and game["to_act"] == 0
    g = Game.objects.get(pk=gid)
    assert g.turn_deadline - g.turn_started_at == timedelta(seconds=3 * DAY)
    assert g.turn_reminder_at - g.turn_started_at == timedelta(seconds=0.8 * 3 * DAY)

    # alice thinks for a day: 2 days left; the view shows it; she passes the upcard (R5).
    _left(gid, 2 * DAY)
    assert alice.get(f"/api/v1/games/{gid}/").json()["time_banks_left"][1] == 3 * DAY
    slack = _end_turn(alice, gid, 2 * DAY, {"type": "pass"})
    _assert_bank(gid, 0, 2 * DAY + DAY, slack)  # 2 days left + 1 day increment
    g = Game.objects.get(pk=gid)
    assert g.to_act_seat == 1 and g.turn_deadline - g.turn_started_at == timedelta(seconds=3 * DAY)
    assert g.bank1 == 3 * DAY

    # bob answers with all his 3 days left: 3 + 1 = 4 days (under the 5-day cap).
    slack = _end_turn(bob, gid, 3 * DAY, {"type": "pass"})
    _assert_bank(gid, 1, 4 * DAY, slack)
    # alice's turn (draw, discard) starts with her bank; she ends it with 2.5 days left: 3.5 days.
    g = Game.objects.get(pk=gid)
    assert g.turn_deadline - g.turn_started_at == timedelta(seconds=g.bank0)
    slack = _turn(alice, gid, 2 * DAY + DAY // 2)
    _assert_bank(gid, 0, 3 * DAY + DAY // 2, slack)
    # bob with 4 days left at the end: 4 + 1 = 5 days, the cap exactly.
    slack = _turn(bob, gid, 4 * DAY)
    _assert_bank(gid, 1, 5 * DAY, slack)
    # alice with 3.5 days left: 3.5 + 1 = 4.5 days.
    slack = _turn(alice, gid, 3 * DAY + DAY // 2)
    _assert_bank(gid, 0, 4 * DAY + DAY // 2, slack)
    # bob with all his 5 days left: 5 + 1 = 6 days, capped at 5 (exact: the cap leaves no slack).
    _turn(bob, gid, 5 * DAY)
    assert Game.objects.get(pk=gid).bank1 == 5 * DAY
    game = bob.get(f"/api/v1/games/{gid}/").json()
    assert game["time_banks"][1] == 5 * DAY and game["time_banks_left"][1] == 5 * DAY
    g = Game.objects.get(pk=gid)
    assert g.to_act_seat == 0 and g.turn_deadline - g.turn_started_at == timedelta(seconds=g.bank0)


@pytest.mark.django_db
def test_running_out_of_bank_forfeits(alice, bob):
    gid = _bank_game(alice, bob, "forfeit")
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.turn_timeout(game_id=gid) == "forfeit"
    g = Game.objects.get(pk=gid)
    assert (g.status, g.winner_seat, g.end_reason) == ("finished", 1, "timeout")
    # alice's clock stopped at 0 (it showed the 3 days she had when her turn began); bob's untouched
    assert _banks(gid) == [0, 3 * DAY]
    assert alice.get(f"/api/v1/games/{gid}/").json()["time_banks"] == [0, 3 * DAY]


@pytest.mark.django_db
def test_resigning_stops_the_running_clock_where_it_stood(alice, bob):
    """alice (to act) has 2 days left when bob resigns: her bank shows those 2 days (no increment),
    not the 3 she had when her turn began."""
    gid = _bank_game(alice, bob, "forfeit")
    _left(gid, 2 * DAY)
    assert bob.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    bank = _banks(gid)
    assert 2 * DAY - 5 <= bank[0] <= 2 * DAY and bank[1] == 3 * DAY


@pytest.mark.django_db
def test_running_out_of_bank_under_auto_play_leaves_only_the_increment(alice, bob):
    """The auto-played turn ended with 0 s left: the bank becomes 0 + the increment (1 day)."""
    gid = _bank_game(alice, bob, "auto_play")
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.turn_timeout(game_id=gid) == "auto_played"
    g = Game.objects.get(pk=gid)
    assert g.status == "active" and g.to_act_seat == 1 and g.auto_played0 == 1
    assert _banks(gid) == [DAY, 3 * DAY]
    assert g.turn_deadline - g.turn_started_at == timedelta(seconds=3 * DAY)  # bob's own bank


@pytest.mark.django_db
def test_the_rematch_keeps_the_time_bank(alice, bob):
    gid = _bank_game(alice, bob)
    assert alice.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    assert alice.post(f"/api/v1/games/{gid}/rematch/").status_code == 200
    new = bob.post(f"/api/v1/games/{gid}/rematch/accept/").json()
    assert new["time_bank"] == BANK and new["time_banks"] == [3 * DAY, 3 * DAY] and new["move_time_limit"] is None


def _refused_create(client, body, code):
    games, events = Game.objects.count(), Event.objects.count()
    r = client.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", **body}, format="json")
    error = assert_error(r, code)
    assert (Game.objects.count(), Event.objects.count()) == (games, events)  # nothing written
    return error


@pytest.mark.django_db
@pytest.mark.error_code("bad_time_control", "time_control_conflict")
@pytest.mark.parametrize("bank, field", [
    ({"initial": DAY, "increment": 0, "delay": 5}, "time_bank.delay"),  # unknown field
    ({"initial": 59, "increment": 0}, "time_bank"),  # under a minute
    ({"initial": 61 * DAY, "increment": 0}, "time_bank"),  # over 60 days
    ({"initial": DAY, "increment": 15 * DAY}, "time_bank"),  # increment over 14 days
    ({"initial": 3 * DAY, "increment": DAY, "max": 2 * DAY}, "time_bank"),  # cap under the start
    ({"initial": "3d", "increment": DAY}, "time_bank"),  # not a number
    ({"increment": DAY}, "time_bank"),  # initial missing
    ("3+1", "time_bank"),  # not an object
])
def test_bad_time_banks_are_refused_and_create_nothing(alice, bob, bank, field):
    error = _refused_create(alice, {"time_bank": bank}, "bad_time_control")
    assert any(key.startswith(field) for key in error["detail"]), error
    # Together with a fixed limit: refused whatever the bank.
    _refused_create(alice, {"time_bank": BANK, "move_time_limit": 3600}, "time_control_conflict")


@pytest.mark.django_db
def test_max_defaults_to_initial_and_null_limit_goes_with_a_bank(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": None,
                                          "time_bank": {"initial": DAY, "increment": 3600}}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["time_bank"] == {"initial": DAY, "increment": 3600, "max": DAY}


@pytest.mark.django_db
def test_an_invitation_shows_each_seat_the_initial_bank(alice, bob):
    """Before the match starts (and after an invitation is withdrawn) each seat's bank is the
    bank's initial seconds, whole numbers as the schema says (it was [null, null])."""
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "time_bank": BANK}, format="json")
    assert r.status_code == 201
    game = r.json()
    assert game["time_banks"] == [BANK["initial"]] * 2 and game["time_banks_left"] == [BANK["initial"]] * 2
    assert alice.post(f"/api/v1/games/{game['id']}/abort/").json()["time_banks"] == [BANK["initial"]] * 2
    assert alice.get("/api/v1/games/").json()["results"][0]["time_banks"] == [BANK["initial"]] * 2
