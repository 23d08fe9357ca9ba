"""No endpoint ever shows the opponent's hidden cards or the stock while a round is in play.

Round on a random deck; after each action, every game-data endpoint is read as each seat, and
every string in the body and headers is checked against the cards that seat may not know: the
opponent's hand (less the cards it took from the discard pile, which are public) and the stock.
"""
import random

import pytest

from games import engine
from games.models import Game
from tests.helpers import ALL_CARDS, act, strings_in

ENDPOINTS = ["/api/v1/games/{id}/", "/api/v1/games/{id}/rounds/", "/api/v1/games/{id}/moves/",
             "/api/v1/games/{id}/moves/?round=1", "/api/v1/games/?status=active", "/api/v1/games/lobby/",
             "/api/v1/games/{id}/export/", "/api/v1/me/stats/"]


def _secret_for(state: engine.MatchState, seat: int) -> set[str]:
    r = state.round
    other = 1 - seat
    known = {c.code for c in r.known[other]}
    return {c.code for c in r.hands[other]} - known | {c.code for c in r.stock}


def _check(client, game_id, seat, extra_bodies=()):
    state = engine.MatchState.from_dict(Game.objects.get(pk=game_id).state)
    if state.round is None:
        return
    secret = _secret_for(state, seat)
    assert secret
    for url in ENDPOINTS:
        r = client.get(url.format(id=game_id))
        assert r.status_code in (200, 409), (url, r.status_code)
        seen = strings_in(r.json()) | set(r.headers.values())
        assert not (seen & secret), (url, seen & secret)
    for body in extra_bodies:
        assert not (strings_in(body) & secret)


@pytest.mark.django_db
def test_no_endpoint_leaks_hidden_cards_during_a_round(alice, bob):
    rng = random.Random(7)
    deck = ALL_CARDS[:]
    rng.shuffle(deck)
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [deck],
                                          "first_dealer": 0}, format="json")
    game_id = r.json()["id"]
    bob.post(f"/api/v1/games/{game_id}/accept/")
    clients = {0: alice, 1: bob}
    steps = 0
    while steps < 40:
        game = Game.objects.get(pk=game_id)
        state = engine.MatchState.from_dict(game.state)
        if state.round is None or game.round_number != 1:
            break
        seat = state.to_act
        legal = [a for a in engine.legal_actions(state) if a.type != "knock"]
        action = rng.choice(legal).to_dict()
        resp = act(clients[seat], game_id, game.version, action)
        assert resp.status_code == 200, resp.content
        # The action's own response, then every endpoint, for both seats.
        _check(clients[seat], game_id, seat, extra_bodies=[resp.json()])
        _check(clients[1 - seat], game_id, 1 - seat)
        # An illegal request's error must not leak either.
        err = act(clients[1 - seat], game_id, game.version + 1, {"type": "discard", "card": "AS"})
        assert err.status_code >= 400
        _check(clients[1 - seat], game_id, 1 - seat, extra_bodies=[err.json()])
        steps += 1
    assert steps >= 20


@pytest.mark.django_db
def test_schema_examples_and_docs_hold_no_game_state(anon):
    r = anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    assert b"deck_order" not in r.content and b'"state"' not in r.content
    r = anon.get("/api/docs/")
    assert r.status_code == 200 and b"swagger" in r.content.lower()
    assert b"//cdn" not in r.content and b"https://" not in r.content  # served offline (sidecar)
