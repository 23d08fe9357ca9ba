"""Submitting an action and reading a game run a small, fixed number of SQL queries, however many
moves the game already has."""
import pytest
from rest_framework.test import APIClient
from rest_framework_simplejwt.tokens import AccessToken

from games import engine
from games.models import Game
from tests.games.factories import game_make
from tests.helpers import act

SUBMIT_BUDGET = 12
READ_BUDGET = 3


def _clients(game):
    out = []
    for p in (game.player0, game.player1):
        c = APIClient()
        c.credentials(HTTP_AUTHORIZATION=f"Bearer {AccessToken.for_user(p.user)}")
        out.append(c)
    return out


def _play_one(clients, game_id):
    game = Game.objects.get(pk=game_id)
    state = engine.MatchState.from_dict(game.state)
    seat = state.to_act
    action = next(a for a in engine.legal_actions(state) if a.type not in ("knock", "take_upcard"))
    return clients[seat], game, act(clients[seat], game_id, game.version, action.to_dict())


@pytest.mark.django_db
@pytest.mark.parametrize("moves_before", [0, 12])
def test_submit_and_read_query_budget(moves_before, django_assert_max_num_queries):
    game = game_make()
    clients = _clients(game)
    for _ in range(moves_before):
        assert _play_one(clients, game.pk)[2].status_code == 200
    g = Game.objects.get(pk=game.pk)
    state = engine.MatchState.from_dict(g.state)
    action = next(a for a in engine.legal_actions(state) if a.type not in ("knock", "take_upcard"))
    with django_assert_max_num_queries(SUBMIT_BUDGET):
        r = act(clients[state.to_act], game.pk, g.version, action.to_dict(), key=f"budget-{moves_before}")
    assert r.status_code == 200
    with django_assert_max_num_queries(READ_BUDGET):
        r = clients[0].get(f"/api/v1/games/{game.pk}/")
    assert r.status_code == 200
    with django_assert_max_num_queries(READ_BUDGET):
        r304 = clients[0].get(f"/api/v1/games/{game.pk}/", HTTP_IF_NONE_MATCH=r["ETag"])
    assert r304.status_code == 304 and r304.content == b""

