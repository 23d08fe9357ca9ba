"""An Idempotency-Key belongs to one player in one game: the same key, version and action sent by
another player, or by the same player in another game, is a new request of its own (never the
stored answer of the first, which holds the first player's hand)."""
import pytest

from games.models import IdempotencyRecord, Move
from tests.games.factories import DECK
from tests.helpers import act, assert_error, deck_for, register

# The hands of seat 0 (non-dealer, acts first) on DECK and on OTHER.
HAND_DECK = sorted("AC 2C 3C 4C 5C 6C 7C 8C 9C 5H".split())
OTHER = deck_for(nondealer="KS QS JS 10S 9S 2D 3D 4D 5D 6D", dealer="AH 2H 3H 4H 5H 6H 7H 8H 9H 10H", upcard="KD")
HAND_OTHER = sorted("KS QS JS 10S 9S 2D 3D 4D 5D 6D".split())


def _game(creator, opponent_name, opponent, deck):
    r = creator.post("/api/v1/games/new/", {"kind": "invite", "opponent": opponent_name, "decks": [deck],
                                            "first_dealer": 1}, format="json")
    assert r.status_code == 201, r.content
    return opponent.post(f"/api/v1/games/{r.json()['id']}/accept/").json()


def _hand(body):
    return sorted(body["game"]["view"]["hand"])


@pytest.mark.django_db
@pytest.mark.error_code("stale_version")
def test_another_player_with_the_same_key_version_and_action_is_not_replayed(alice, bob):
    game = _game(alice, "bob", bob, DECK)
    gid, v = game["id"], game["version"]
    first = act(alice, gid, v, {"type": "pass"}, key="same-key")
    assert first.status_code == 200 and _hand(first.json()) == HAND_DECK
    # bob sends the identical request: it is his own, on a game that moved on.
    r = act(bob, gid, v, {"type": "pass"}, key="same-key")
    assert_error(r, "stale_version")
    assert "Idempotent-Replayed" not in r.headers
    assert Move.objects.filter(game_id=gid).count() == 1
    # At the right version bob's key works for bob: his own hand, applied once.
    r = act(bob, gid, v + 1, {"type": "pass"}, key="same-key")
    assert r.status_code == 200 and "Idempotent-Replayed" not in r.headers
    assert sorted(r.json()["game"]["view"]["hand"]) == sorted("7S 8S 9S 2H 2D 2S KD QH JH 3D".split())
    assert Move.objects.filter(game_id=gid).count() == 2
    assert IdempotencyRecord.objects.filter(game_id=gid, key="same-key").count() == 2


@pytest.mark.django_db
def test_the_same_player_and_key_in_another_game_is_a_new_request(alice, bob, anon):
    carl = register(anon, "carl")
    first_game = _game(alice, "bob", bob, DECK)
    other_game = _game(alice, "carl", carl, OTHER)
    assert first_game["version"] == other_game["version"]
    v = first_game["version"]
    first = act(alice, first_game["id"], v, {"type": "pass"}, key="k1")
    assert first.status_code == 200 and _hand(first.json()) == HAND_DECK
    second = act(alice, other_game["id"], v, {"type": "pass"}, key="k1")
    assert second.status_code == 200 and "Idempotent-Replayed" not in second.headers
    assert second.json()["game"]["id"] == other_game["id"] and _hand(second.json()) == HAND_OTHER
    assert Move.objects.filter(game_id=other_game["id"]).count() == 1
    # Each game replays its own answer.
    again = act(alice, other_game["id"], v, {"type": "pass"}, key="k1")
    assert again.json() == second.json() and again.headers["Idempotent-Replayed"] == "true"


@pytest.mark.django_db
def test_another_player_in_another_game_with_the_same_key_gets_their_own_hand(alice, bob, anon):
    carl, dora = register(anon, "carl", staff=True), register(anon, "dora")
    game = _game(alice, "bob", bob, DECK)
    other = _game(carl, "dora", dora, OTHER)
    v = game["version"]
    assert act(alice, game["id"], v, {"type": "pass"}, key="k").status_code == 200
    r = act(carl, other["id"], v, {"type": "pass"}, key="k")
    assert r.status_code == 200 and "Idempotent-Replayed" not in r.headers
    assert _hand(r.json()) == HAND_OTHER and not set(_hand(r.json())) & set(HAND_DECK)
