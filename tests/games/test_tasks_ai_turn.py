"""games/tasks.py (eager, task bodies): the AI's turn task is a no-op when delivered twice or late,
plays only while the AI keeps the turn, and the sweep recovers a lost task exactly once."""
from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, services, tasks
from games.models import Game, Move
from notifications.live import PublishAfterCommit
from tests.games.factories import DECK, player_make


def _ai_game():
    """An AI game on DECK where the person (seat 0, non-dealer) acts first; the AI is seat 1."""
    me = player_make()
    game = services.game_create(creator=me, kind="ai", ai_level="random", decks=[DECK], first_dealer=1,
                                allow_preset_deal=True)
    return me, game


def _tasks(callbacks):
    """The after-commit callbacks that queue work (not the wake-ups of long-polling requests)."""
    return [c for c in callbacks if not isinstance(c, PublishAfterCommit)]


def _person_passes(me, game):
    return services.action_submit(game_id=game.pk, player=me, expected_version=game.version,
                                  action={"type": "pass"})


@pytest.mark.django_db
def test_action_making_it_the_ais_turn_queues_one_task_with_the_expected_version(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as created:
        me, game = _ai_game()
    assert _tasks(created) == []  # the person acts first: nothing queued
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _person_passes(me, game)
    callbacks = _tasks(callbacks)
    game = Game.objects.get(pk=game.pk)
    assert game.to_act_seat == 1 and game.awaiting_ai and game.turn_deadline is None
    assert len(callbacks) == 1  # exactly one task, queued after commit (not run: callbacks not executed)
    assert Move.objects.filter(game=game, seat=1).count() == 0


@pytest.mark.django_db
def test_ai_task_delivered_twice_plays_once(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        me, game = _ai_game()
        _person_passes(me, game)
    queued_at = Game.objects.get(pk=game.pk).version
    # The AI (dealer, R5) must take or pass the upcard; a pass makes it the person's turn again.
    assert tasks.ai_turn_play.apply(kwargs={"game_id": game.pk, "expected_version": queued_at}).get() >= 1
    after_first = Game.objects.get(pk=game.pk)
    moves_after_first = Move.objects.filter(game=game).count()
    assert after_first.version > queued_at and not after_first.awaiting_ai and after_first.to_act_seat == 0
    # The duplicate delivery (same version) and a stale one do nothing.
    assert tasks.ai_turn_play.apply(kwargs={"game_id": game.pk, "expected_version": queued_at}).get() == 0
    assert tasks.ai_turn_play.apply(kwargs={"game_id": game.pk, "expected_version": queued_at - 1}).get() == 0
    assert Move.objects.filter(game=game).count() == moves_after_first
    assert Game.objects.get(pk=game.pk).version == after_first.version
    # Moves are consecutive, the AI's all by seat 1 and each one version step.
    seqs = list(Move.objects.filter(game=game).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert after_first.version == 1 + len(seqs)  # an AI game starts at version 1; +1 per move


@pytest.mark.django_db
@pytest.mark.rule("R5.2", "R6.2")
def test_ai_keeps_playing_while_it_keeps_the_turn(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        me, game = _ai_game()
        _person_passes(me, game)
    version = Game.objects.get(pk=game.pk).version
    tasks.ai_turn_play.apply(kwargs={"game_id": game.pk, "expected_version": version})
    ai_moves = list(Move.objects.filter(game=game, seat=1).values_list("action", flat=True))
    if ai_moves[0]["type"] == "take_upcard":
        # took the upcard: the AI must discard in the same turn (R5.2, R6.2)
        assert [m["type"] for m in ai_moves] in (["take_upcard", "discard"], ["take_upcard", "knock"])
    else:
        assert [m["type"] for m in ai_moves] == ["pass"]
    game = Game.objects.get(pk=game.pk)
    assert game.status == "finished" or game.to_act_seat == 0


@pytest.mark.django_db
def test_sweep_requeues_a_lost_ai_task_once(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # the task is "lost": never sent
        me, game = _ai_game()
        _person_passes(me, game)
    assert tasks.ai_turns_sweep.apply(kwargs={"min_age_seconds": 5}).get() == 0  # not due for 5 s yet
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=6))
    before = Move.objects.filter(game=game).count()
    assert tasks.ai_turns_sweep.apply(kwargs={"min_age_seconds": 5}).get() == 1
    game = Game.objects.get(pk=game.pk)
    assert not game.awaiting_ai and Move.objects.filter(game=game).count() > before
    assert tasks.ai_turns_sweep.apply(kwargs={"min_age_seconds": 0}).get() == 0  # nothing left to recover


@pytest.mark.django_db
def test_ai_policy_sees_only_its_player_view(monkeypatch, django_capture_on_commit_callbacks):
    seen = []
    shown_results = []

    def spy(*, level, view, results=()):
        seen.append(view)
        shown_results.append(tuple(results))
        return view.legal_actions[-1]

    monkeypatch.setattr(services.ai, "ai_action_choose", spy)  # where the AI turn looks it up
    with django_capture_on_commit_callbacks(execute=False):
        me, game = _ai_game()
        _person_passes(me, game)
    tasks.ai_turn_play.apply(kwargs={"game_id": game.pk, "expected_version": Game.objects.get(pk=game.pk).version})
    assert seen and all(isinstance(v, engine.PlayerView) and v.seat == 1 for v in seen)
    # The view holds the AI's own ten cards, never seat 0's (AC..9C 5H on DECK).
    assert not {c.code for c in seen[0].hand} & {"AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "5H"}
    # Besides the view, only the finished rounds (revealed in full, R9) reach the policy: none yet.
    assert shown_results and all(r == () for r in shown_results)


@pytest.mark.django_db
def test_ai_level_is_random_simple_or_strong_and_shown(alice):
    r = alice.post("/api/v1/games/new/", {"kind": "ai"}, format="json")
    assert r.status_code == 201
    ai_seat = dict(r.json()["seats"][1])
    published = ai_seat.pop("published_rating")
    assert ai_seat == {"seat": 1, "name": "ai-strong", "is_ai": True, "ai_level": "strong"}
    # strong's published Oklahoma rating, as docs/ratings.md's table gives it (whole points): 1655, RD 52, 234 matches
    assert abs(published["rating"] - 1655) <= 0.5 and abs(published["rd"] - 52) <= 0.5
    assert published["matches"] == 234
    assert r.json()["seats"][0]["ai_level"] is None
    assert r.json()["seats"][0]["published_rating"] is None  # people have no published rating
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "simple"}, format="json")
    assert r.json()["seats"][1]["ai_level"] == "simple"
    n = Game.objects.count()
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "medium"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_ai_level"
    assert Game.objects.count() == n


@pytest.mark.django_db
def test_an_ai_turn_saves_the_game_row_and_writes_its_events_once(django_capture_on_commit_callbacks):
    """A turn of several AI actions (draw then discard, or take the upcard then discard) updates
    the game row once and inserts its moves in one statement and its events in one, still one
    move and one ``opponent_moved`` per AI action, in order, with the version each action reached
    (the moves numbered on from the game's, by the AI's seat, each with its own events); the row
    ends as the turn left it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from notifications.models import Event

    with django_capture_on_commit_callbacks(execute=False):
        me, game = _ai_game()
    for _ in range(20):
        game = Game.objects.get(pk=game.pk)
        assert game.status == "active" and game.to_act_seat == 0
        state = engine.MatchState.from_dict(game.state)
        action = next(a for a in engine.legal_actions(state) if a.type in ("pass", "draw_stock", "discard"))
        with django_capture_on_commit_callbacks(execute=False):
            services.action_submit(game_id=game.pk, player=me, expected_version=game.version,
                                   action=action.to_dict())
        game = Game.objects.get(pk=game.pk)
        if not game.awaiting_ai:
            continue
        moves_before = Move.objects.filter(game=game).count()
        events_before = Event.objects.filter(player=me).count()
        with CaptureQueriesContext(connection) as queries:
            played = tasks.ai_turn_play.apply(kwargs={"game_id": game.pk, "expected_version": game.version}).get()
        if played < 2:
            continue
        sqls = [q["sql"] for q in queries.captured_queries]
        assert sum(s.startswith('UPDATE "games_game"') for s in sqls) == 1, sqls
        assert sum(s.startswith('INSERT INTO "notifications_event"') for s in sqls) == 1, sqls
        assert sum(s.startswith('INSERT INTO "games_move"') for s in sqls) == 1, sqls
        after = Game.objects.get(pk=game.pk)
        ai_moves = list(Move.objects.filter(game=game, seq__gt=moves_before).order_by("seq"))
        assert len(ai_moves) == played and after.version == game.version + played
        assert [m.seq for m in ai_moves] == list(range(moves_before + 1, moves_before + played + 1))
        assert {m.seat for m in ai_moves} == {1} and all(m.events for m in ai_moves)
        assert [m.events[0]["type"] for m in ai_moves] == \
            [{"draw_stock": "drew_stock", "discard": "discarded", "take_upcard": "upcard_taken",
              "draw_discard": "drew_discard", "pass": "upcard_passed", "knock": "knocked"}[m.action["type"]]
             for m in ai_moves]
        moved = list(Event.objects.filter(player=me, kind="opponent_moved").order_by("id"))[-played:]
        assert [e.data["version"] for e in moved] == list(range(game.version + 1, after.version + 1))
        assert [e.data["action"]["type"] for e in moved] == [m.action["type"] for m in ai_moves]
        assert Event.objects.filter(player=me).count() > events_before
        assert after.to_act_seat == 0 or after.status == "finished"
        return
    pytest.fail("no AI turn of two actions in 20 of the person's actions")
