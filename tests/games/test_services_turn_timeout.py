"""games/services.py deadlines: the turn clock, timeout policies forfeit and auto_play (with the
limit of consecutive auto-played turns), enforcement on access without beat, reminders."""
from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, services, tasks
from games.models import Game, Move
from notifications.models import Event
from tests.games.factories import DECK, player_make
from tests.helpers import assert_error


def _timed_game(policy="forfeit", limit=3600, auto_play_limit=None):
    """Two people on DECK, seat 0 (non-dealer) to act first, ``limit`` seconds per turn."""
    p0, p1 = player_make(), player_make()
    game = services.game_create(creator=p0, kind="invite", opponent_name=p1.name, decks=[DECK], first_dealer=1,
                                allow_preset_deal=True, move_time_limit=limit, timeout_policy=policy,
                                auto_play_limit=auto_play_limit)
    return services.invitation_accept(game_id=game.pk, player=p1)


def _expire(game_id):
    Game.objects.filter(pk=game_id).update(turn_deadline=timezone.now() - timedelta(seconds=1))


def _kinds(player, game):
    return list(Event.objects.filter(player=player, game=game).order_by("id").values_list("kind", flat=True))


@pytest.mark.django_db
def test_turn_clock_starts_when_the_seat_to_act_changes():
    game = _timed_game(limit=3600)
    assert game.to_act_seat == 0
    assert game.turn_deadline - game.turn_started_at == timedelta(seconds=3600)
    assert game.turn_reminder_at - game.turn_started_at == timedelta(seconds=2880)  # 80%
    p0, p1 = game.player0, game.player1
    services.action_submit(game_id=game.pk, player=p0, expected_version=game.version, action={"type": "pass"})
    g1 = Game.objects.get(pk=game.pk)
    assert g1.to_act_seat == 1 and g1.turn_started_at > game.turn_started_at
    services.action_submit(game_id=game.pk, player=p1, expected_version=g1.version, action={"type": "pass"})
    g2 = Game.objects.get(pk=game.pk)
    services.action_submit(game_id=game.pk, player=p0, expected_version=g2.version, action={"type": "draw_stock"})
    g3 = Game.objects.get(pk=game.pk)
    # Same turn (draw then discard): the clock does not restart.
    assert (g3.to_act_seat, g3.turn_started_at, g3.turn_deadline) == (0, g2.turn_started_at, g2.turn_deadline)


@pytest.mark.django_db
def test_forfeit_policy_the_opponent_wins_the_match():
    game = _timed_game("forfeit")
    _expire(game.pk)
    assert services.turn_timeout(game_id=game.pk) == "forfeit"
    game = Game.objects.get(pk=game.pk)
    assert (game.status, game.winner_seat, game.end_reason) == ("finished", 1, "timeout")
    assert game.turn_deadline is None and game.to_act_seat is None
    assert _kinds(game.player0, game)[-2:] == ["timeout", "match_over"]
    timeout = Event.objects.get(player=game.player1, kind="timeout")
    assert timeout.data["seat"] == 0 and timeout.data["result"] == "forfeit"
    assert Event.objects.get(player=game.player1, kind="match_over").data["you_won"] is True
    assert services.turn_timeout(game_id=game.pk) is None  # twice: nothing more


@pytest.mark.django_db
def test_timeout_does_nothing_before_the_deadline_or_after_a_move():
    game = _timed_game("forfeit")
    assert services.turn_timeout(game_id=game.pk) is None
    version = game.version
    _expire(game.pk)
    # A move got the lock first (before the deadline, here simulated by the version moving on).
    assert services.turn_timeout(game_id=game.pk, expected_version=version + 1) is None
    assert Game.objects.get(pk=game.pk).status == "active"


@pytest.mark.django_db
def test_auto_play_plays_the_whole_turn_then_forfeits_after_the_limit():
    game = _timed_game("auto_play", auto_play_limit=2)
    p0, p1 = game.player0, game.player1
    _expire(game.pk)
    assert services.turn_timeout(game_id=game.pk) == "auto_played"
    g = Game.objects.get(pk=game.pk)
    auto = list(Move.objects.filter(game=g, auto_played=True).values_list("seat", "action"))
    assert auto and all(seat == 0 for seat, _ in auto)  # only the absent player's turn was played
    assert g.to_act_seat == 1 and g.auto_played0 == 1 and g.turn_deadline > timezone.now()
    assert "timeout" in _kinds(p1, g) and _kinds(p1, g)[-1] == "your_turn"

    def person_plays_turn(player, seat):
        while True:
            g = Game.objects.get(pk=game.pk)
            if g.to_act_seat != seat or g.status != "active":
                return
            state = engine.MatchState.from_dict(g.state)
            action = next(a for a in engine.legal_actions(state) if a.type in ("pass", "draw_stock", "discard"))
            services.action_submit(game_id=g.pk, player=player, expected_version=g.version, action=action.to_dict())

    person_plays_turn(p1, 1)
    _expire(game.pk)
    assert services.turn_timeout(game_id=game.pk) == "auto_played"
    assert Game.objects.get(pk=game.pk).auto_played0 == 2
    person_plays_turn(p1, 1)
    _expire(game.pk)
    assert services.turn_timeout(game_id=game.pk) == "forfeit"  # a third timeout in a row: limit 2
    g = Game.objects.get(pk=game.pk)
    assert (g.status, g.winner_seat, g.end_reason) == ("finished", 1, "timeout")


@pytest.mark.django_db
def test_acting_yourself_resets_the_auto_played_count():
    game = _timed_game("auto_play", auto_play_limit=1)
    p0, p1 = game.player0, game.player1
    _expire(game.pk)
    assert services.turn_timeout(game_id=game.pk) == "auto_played"
    g = Game.objects.get(pk=game.pk)
    state = engine.MatchState.from_dict(g.state)
    a = next(a for a in engine.legal_actions(state) if a.type in ("pass", "draw_stock", "discard"))
    services.action_submit(game_id=g.pk, player=p1, expected_version=g.version, action=a.to_dict())
    g = Game.objects.get(pk=game.pk)
    while g.to_act_seat == 1:  # seat 1 finishes its turn
        state = engine.MatchState.from_dict(g.state)
        a = next(a for a in engine.legal_actions(state) if a.type in ("discard",))
        services.action_submit(game_id=g.pk, player=p1, expected_version=g.version, action=a.to_dict())
        g = Game.objects.get(pk=game.pk)
    state = engine.MatchState.from_dict(g.state)
    a = next(a for a in engine.legal_actions(state) if a.type in ("pass", "draw_stock"))
    services.action_submit(game_id=g.pk, player=p0, expected_version=g.version, action=a.to_dict())
    assert Game.objects.get(pk=game.pk).auto_played0 == 0  # seat 0 acted itself
    _expire(game.pk)
    assert services.turn_timeout(game_id=game.pk) == "auto_played"  # not a forfeit: the count restarted


@pytest.mark.django_db
def test_action_after_the_deadline_applies_the_timeout_not_the_action():
    game = _timed_game("forfeit")
    _expire(game.pk)
    with pytest.raises(services.TurnExpired):
        services.action_submit(game_id=game.pk, player=game.player0, expected_version=game.version,
                               action={"type": "pass"})
    g = Game.objects.get(pk=game.pk)
    assert (g.status, g.end_reason, g.winner_seat) == ("finished", "timeout", 1)
    assert Move.objects.filter(game=g).count() == 0


@pytest.mark.django_db
def test_expired_turn_is_enforced_when_the_game_is_read_over_http(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": 600,
                                          "timeout_policy": "forfeit"}, format="json")
    gid = r.json()["id"]
    r = bob.post(f"/api/v1/games/{gid}/accept/")
    to_act = r.json()["to_act"]
    assert r.json()["turn_deadline"] is not None
    listed = alice.get("/api/v1/games/").json()["results"][0]
    assert listed["turn_deadline"] == r.json()["turn_deadline"] and listed["move_time_limit"] == 600
    _expire(gid)
    listed = alice.get("/api/v1/games/").json()["results"][0]  # the list enforces too
    assert listed["status"] == "finished" and listed["end_reason"] == "timeout"
    body = bob.get(f"/api/v1/games/{gid}/").json()
    assert body["status"] == "finished" and body["winner_seat"] == 1 - to_act and body["turn_deadline"] is None


@pytest.mark.django_db
@pytest.mark.error_code("turn_expired")
def test_action_over_http_after_the_deadline_is_409_turn_expired(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": 600},
                     format="json").json()["id"]
    body = bob.post(f"/api/v1/games/{gid}/accept/").json()
    client = alice if body["to_act"] == 0 else bob
    _expire(gid)
    r = client.post(f"/api/v1/games/{gid}/actions/", {"version": body["version"], "action": {"type": "pass"}},
                    format="json")
    assert_error(r, "turn_expired")
    assert Move.objects.filter(game_id=gid).count() == 0
    assert Game.objects.get(pk=gid).end_reason == "timeout"


@pytest.mark.django_db
@pytest.mark.parametrize("policy", [pytest.param("forfeit", marks=pytest.mark.error_code("game_not_active")),
                                    pytest.param("auto_play", marks=pytest.mark.error_code("stale_version"))])
def test_the_other_players_action_after_the_opponents_deadline_is_not_turn_expired(alice, bob, policy):
    """The seat to act lets its time run out; the other player then sends an action (not theirs to
    make). The timeout is applied and committed; the answer is not turn_expired (it was never
    their turn) but what the timeout left: game_not_active after a forfeit (they won on time),
    stale_version with the new version after an auto-played turn. Their action is not applied."""
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": 600,
                                           "timeout_policy": policy}, format="json").json()["id"]
    body = bob.post(f"/api/v1/games/{gid}/accept/").json()
    late = body["to_act"]
    other = bob if late == 0 else alice
    _expire(gid)
    r = other.post(f"/api/v1/games/{gid}/actions/", {"version": body["version"], "action": {"type": "pass"}},
                   format="json")
    g = Game.objects.get(pk=gid)
    if policy == "forfeit":
        assert_error(r, "game_not_active")
        assert (g.status, g.end_reason, g.winner_seat) == ("finished", "timeout", 1 - late)
        assert Move.objects.filter(game_id=gid).count() == 0
    else:
        assert assert_error(r, "stale_version")["detail"] == {"current_version": g.version}
        assert g.status == "active" and g.version > body["version"]
        moves = list(Move.objects.filter(game_id=gid).values_list("seat", "auto_played"))
        assert moves and set(moves) == {(late, True)}  # its turn played for it (take + discard, or a pass)



@pytest.mark.django_db
@pytest.mark.error_code("game_not_active")
@pytest.mark.parametrize("keyed", [False, True], ids=["plain", "idempotency-key"])
def test_resigning_after_the_opponents_deadline_is_409_and_the_opponent_forfeited(alice, bob, keyed):
    # The seat to act lets its time run out; the other player then resigns before anything read
    # the game. The forfeit came first (the resigner wins on time, end reason timeout), so the
    # resignation is refused and changes nothing.
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": 600,
                                           "timeout_policy": "forfeit"}, format="json").json()["id"]
    body = bob.post(f"/api/v1/games/{gid}/accept/").json()
    late = body["to_act"]
    resigner = bob if late == 0 else alice
    _expire(gid)
    headers = {"HTTP_IDEMPOTENCY_KEY": "resign-1"} if keyed else {}
    r = resigner.post(f"/api/v1/games/{gid}/resign/", **headers)
    assert_error(r, "game_not_active")
    seen = resigner.get(f"/api/v1/games/{gid}/").json()  # the timeout, committed now or on this read
    assert (seen["status"], seen["end_reason"], seen["winner_seat"]) == ("finished", "timeout", 1 - late)
    g = Game.objects.get(pk=gid)
    assert (g.status, g.end_reason, g.winner_seat) == ("finished", "timeout", 1 - late)
    assert Event.objects.filter(game_id=gid, kind="match_over").count() == 2  # one per player, once


@pytest.mark.django_db
def test_resigning_after_an_auto_played_timeout_resigns_the_match_as_it_stands():
    # auto_play: the expired turn is played for its seat (a timeout, the game goes on), then the
    # resignation of the other seat is applied: seat 0 (the late one) wins by resignation.
    game = _timed_game("auto_play")
    _expire(game.pk)
    result = services.game_resign(game_id=game.pk, player=game.player1)
    assert (result.status, result.end_reason, result.winner_seat) == ("finished", "resigned", 0)
    assert Move.objects.filter(game=result, auto_played=True, seat=0).exists()
    assert [e.data["result"] for e in Event.objects.filter(game=result, kind="timeout", player=game.player1)] \
        == ["auto_played"]


@pytest.mark.django_db
def test_time_limit_bounds(alice):
    for bad in (59, 14 * 24 * 3600 + 1):
        r = alice.post("/api/v1/games/new/", {"kind": "ai", "move_time_limit": bad}, format="json")
        assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    assert Game.objects.count() == 0
    for ok in (60, 14 * 24 * 3600, None):
        assert alice.post("/api/v1/games/new/", {"kind": "ai", "move_time_limit": ok}, format="json").status_code == 201


@pytest.mark.django_db
def test_sweep_queues_timeouts_and_sends_the_reminder_once():
    game = _timed_game("forfeit")
    other = _timed_game("forfeit")
    Game.objects.filter(pk=game.pk).update(turn_reminder_at=timezone.now() - timedelta(seconds=1))
    _expire(other.pk)
    assert tasks.deadlines_sweep.apply().get() == {"timeouts": 1, "reminders": 1, "invitations_expired": 0,
                                                      "vacations_ended": 0}
    near = Event.objects.get(kind="deadline_near")
    assert near.player == game.player0 and 0 < near.data["seconds_left"] <= 3600
    assert Game.objects.get(pk=other.pk).end_reason == "timeout"
    assert tasks.deadlines_sweep.apply().get() == {"timeouts": 0, "reminders": 0, "invitations_expired": 0,
                                                      "vacations_ended": 0}
    assert Event.objects.filter(kind="deadline_near").count() == 1
