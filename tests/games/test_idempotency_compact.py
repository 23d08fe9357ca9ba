"""games/idempotency.py, compact action records (issue 14): an action's record keeps the move it
applied and the game row's version and times, not its answer; a retry rebuilds the answer from the
moves, byte for byte the first answer, even after later moves, rounds and the end of the match."""
import random

import pytest

from games.engine import min_deadwood, parse_cards
from games.idempotency import ACTION_ROW_FIELDS
from games.models import IdempotencyRecord, Move
from games.services import common
from tests.helpers import act, assert_error, register


@pytest.fixture(autouse=True)
def seeded_deals(monkeypatch):
    """The server's shuffles and first dealer from a seeded generator instead of SystemRandom, so
    every run plays the same deals: whether a 1-point match ends within the action budget (a walled
    round scores nothing, R8) no longer depends on chance."""
    monkeypatch.setattr(common, "_system_random", random.Random(20261201))


def _choice(view: dict) -> dict:
    """A plain legal action (from the list the server offers, so always legal): knock when allowed,
    else pass or draw from the stock, else the discard that leaves the least deadwood (R6), so
    hands improve and rounds end in a knock rather than a wall."""
    legal = view["legal_actions"]
    knock_or_draw = next((a for a in legal if a["type"] == "knock"), None) or \
        next((a for a in legal if a["type"] in ("pass", "draw_stock")), None)
    if knock_or_draw:
        return knock_or_draw
    hand = view["hand"]
    discards = [a for a in legal if a["type"] == "discard"]
    if not discards:
        return legal[-1]
    return min(discards, key=lambda a: min_deadwood(parse_cards([c for c in hand if c != a["card"]])))


def _match(alice, bob, target_score: int = 100, max_actions: int = 600, rounds: int | None = None):
    """Alice and bob play a whole match to ``target_score`` points (or, with ``rounds``, until that
    many rounds have ended), every action with its own key. Returns the game id and
    ``(client, version, action, key, response)`` of every action."""
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob",
                                            "rules": {"target_score": target_score}}, format="json").json()["id"]
    game = bob.post(f"/api/v1/games/{gid}/accept/").json()
    clients = {game["your_seat"]: bob, 1 - game["your_seat"]: alice}
    played, ended = [], 0
    while game["status"] == "active" and len(played) < max_actions and (rounds is None or ended < rounds):
        client = clients[game["to_act"]]
        view = client.get(f"/api/v1/games/{gid}/").json()
        action, key = _choice(view["view"]), f"key-{len(played)}"
        r = act(client, gid, view["version"], action, key=key)
        assert r.status_code == 200, r.content
        played.append((client, view["version"], action, key, r))
        game = r.json()["game"]
        ended += sum(1 for e in r.json()["events"] if e["type"] == "round_ended")
    assert game["status"] == "finished" or ended == rounds, "the match should end within the action budget"
    return gid, played


@pytest.mark.django_db
def test_every_action_of_a_match_replays_its_first_answer_byte_for_byte_after_later_moves(alice, bob):
    gid, played = _match(alice, bob, rounds=2)  # the match to 100 points goes on after both rounds
    rounds_ended = sum(1 for *_, r in played for e in r.json()["events"] if e["type"] == "round_ended")
    assert rounds_ended >= 1  # the replays cover a round's end and the next deal (the match's end: below)
    moves = Move.objects.filter(game_id=gid).count()
    assert moves == len(played)
    for client, version, action, key, first in played:
        again = act(client, gid, version, action, key=key)
        assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
        assert again.content == first.content
    assert Move.objects.filter(game_id=gid).count() == moves  # nothing applied again


@pytest.mark.django_db
def test_an_action_record_holds_the_move_and_the_row_fields_only(alice, bob):
    gid, played = _match(alice, bob, target_score=1)
    records = {r.key: r for r in IdempotencyRecord.objects.filter(game_id=gid, operation="action")}
    assert len(records) == len(played)
    for seq, (_client, _version, _action, key, first) in enumerate(played, start=1):
        record = records[key]
        assert record.move_seq == seq and Move.objects.filter(game_id=gid, seq=seq).exists()
        assert set(record.response_body) == set(ACTION_ROW_FIELDS)
        assert record.response_body["version"] == first.json()["game"]["version"]
        # No hand, discard pile or event is kept: none of the answer's cards appear in the record.
        assert "view" not in str(record.response_body) and "events" not in str(record.response_body)
    # The action that ended the match replays its first answer too.
    client, version, action, key, first = played[-1]
    assert first.json()["game"]["status"] == "finished"
    assert act(client, gid, version, action, key=key).content == first.content


@pytest.mark.django_db
@pytest.mark.error_code("game_not_active", "idempotency_key_reused")
def test_after_later_moves_the_key_stays_scoped_to_its_player_and_game(alice, bob, anon):
    # One round, then the match is over: to 1 point a won round ends it; a wall (random deals, no
    # winner) does not, so alice then resigns it.
    gid, played = _match(alice, bob, target_score=1, rounds=1)
    if alice.get(f"/api/v1/games/{gid}/").json()["status"] == "active":
        assert alice.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    alice_first = next(p for p in played if p[0] is alice)
    _client, version, action, key, first = alice_first
    # Bob sends alice's key with her request: his own request on a game now over, never her answer.
    r = act(bob, gid, version, action, key=key)
    assert_error(r, "game_not_active")
    assert "Idempotent-Replayed" not in r.headers
    # Alice's key with another request in the same game is refused, and still replays her own.
    other = {"type": "draw_stock"} if action != {"type": "draw_stock"} else {"type": "pass"}
    assert_error(act(alice, gid, version, other, key=key), "idempotency_key_reused")
    assert act(alice, gid, version, action, key=key).content == first.content
    # The same key in another game of alice's is a new request there.
    carl = register(anon, "carl")
    other_game = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "carl"}, format="json").json()
    carl.post(f"/api/v1/games/{other_game['id']}/accept/")
    view = alice.get(f"/api/v1/games/{other_game['id']}/").json()
    while not view["is_your_turn"]:  # carl acts first when alice deals
        carl_view = carl.get(f"/api/v1/games/{other_game['id']}/").json()
        assert act(carl, other_game["id"], carl_view["version"], _choice(carl_view["view"])).status_code == 200
        view = alice.get(f"/api/v1/games/{other_game['id']}/").json()
    r = act(alice, other_game["id"], view["version"], _choice(view["view"]), key=key)
    assert r.status_code == 200 and "Idempotent-Replayed" not in r.headers
    assert r.json()["game"]["id"] == other_game["id"]


@pytest.mark.django_db
def test_an_action_under_a_time_bank_replays_its_banks_as_they_were(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob",
                                            "time_bank": {"initial": 600, "increment": 5, "max": 900}},
                     format="json").json()["id"]
    game = bob.post(f"/api/v1/games/{gid}/accept/").json()
    assert game["time_bank"] is not None
    clients = {game["your_seat"]: bob, 1 - game["your_seat"]: alice}
    played = []
    for i in range(6):
        client = clients[game["to_act"]]
        view = client.get(f"/api/v1/games/{gid}/").json()
        action = _choice(view["view"])
        r = act(client, gid, view["version"], action, key=f"bank-{i}")
        assert r.status_code == 200, r.content
        played.append((client, view["version"], action, f"bank-{i}", r))
        game = r.json()["game"]
    for client, version, action, key, first in played:  # the banks moved on since: the replay keeps them
        assert act(client, gid, version, action, key=key).content == first.content
