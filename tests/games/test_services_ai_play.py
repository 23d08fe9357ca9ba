"""A game against the AI: the AI seat plays in-process after each commit until it is the person's turn."""
import pytest

from games import engine, services
from games.models import Game, Move
from tests.games.factories import player_make


@pytest.mark.django_db
def test_ai_answers_until_it_is_the_persons_turn(django_capture_on_commit_callbacks):
    me = player_make("carol")
    with django_capture_on_commit_callbacks(execute=True):
        game = services.game_create(creator=me, kind="ai", ai_level="simple")
    for _ in range(30):
        game = Game.objects.get(pk=game.pk)
        if game.status != "active":
            break
        assert game.to_act_seat == 0  # the AI has always finished its turn
        state = engine.MatchState.from_dict(game.state)
        action = next(a for a in engine.legal_actions(state) if a.type in ("pass", "draw_stock", "discard"))
        with django_capture_on_commit_callbacks(execute=True):
            services.action_submit(game_id=game.pk, player=me, expected_version=game.version,
                                   action=action.to_dict())
    assert Move.objects.filter(game=game, seat=1).exists()
    seqs = list(Move.objects.filter(game=game).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
