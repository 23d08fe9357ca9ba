"""Provably fair decks (games/fairness.py): the commitment published at the deal is SHA-256 of the
documented bytes, the deck and salt stay hidden while the round is in play and are revealed after,
and GET verify/ and ``manage.py verify_game`` check every finished round (and catch tampering)."""
import hashlib
import random
import re

import pytest
from django.core.management import CommandError, call_command

from games.models import Game, Move, Round
from games.services import common
from tests.games.factories import DECK
from tests.helpers import act, strings_in

READS = ["/api/v1/games/{id}/", "/api/v1/games/{id}/rounds/", "/api/v1/games/{id}/moves/",
         "/api/v1/games/{id}/export/", "/api/v1/games/{id}/verify/", "/api/v1/games/", "/api/v1/events/",
         "/api/v1/me/stats/"]


def _by_hand(deck: list[str], salt: str) -> str:
    """The README's recipe: sha256 of 'AC,2C,...|<salt>' in UTF-8, hex."""
    return hashlib.sha256((",".join(deck) + "|" + salt).encode()).hexdigest()


def _game(alice, bob) -> int:
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [DECK], "first_dealer": 1},
                   format="json")
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    return gid


def _play_round_one(alice, bob, gid):
    """Alice passes, bob passes, alice draws 3H and knocks discarding 5H (see test_views_full_match)."""
    for client, action in [(alice, {"type": "pass"}), (bob, {"type": "pass"}), (alice, {"type": "draw_stock"}),
                           (alice, {"type": "knock", "card": "5H"})]:
        assert act(client, gid, Game.objects.get(pk=gid).version, action).status_code == 200


def _assert_hidden(clients, gid, rnd: Round):
    """Neither the salt nor the deck order of ``rnd`` in any read, for either seat."""
    for client in clients:
        for url in READS:
            body = client.get(url.format(id=gid)).json()
            assert rnd.salt not in strings_in(body), url
            assert rnd.deck not in _lists_in(body), url


def _lists_in(value):
    out = []
    if isinstance(value, list):
        out.append(value)
        for v in value:
            out += _lists_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            out += _lists_in(v)
    return out


@pytest.mark.django_db
def test_commitment_at_the_deal_reveal_after_and_verify(alice, bob, capsys):
    gid = _game(alice, bob)
    round1 = Round.objects.get(game_id=gid, number=1)
    assert re.fullmatch(r"[0-9a-f]{64}", round1.salt)
    for client in (alice, bob):
        detail = client.get(f"/api/v1/games/{gid}/").json()
        assert (detail["deck_commitment"], detail["preset_deck"]) == (round1.commitment, True)
    rounds = alice.get(f"/api/v1/games/{gid}/rounds/").json()["results"]
    assert [(r["commitment"], r["deck"], r["salt"], r["preset_deck"]) for r in rounds] == [
        (round1.commitment, None, None, True)]
    _assert_hidden((alice, bob), gid, round1)
    assert alice.get(f"/api/v1/games/{gid}/verify/").json() == {
        "game_id": gid, "verified": True, "rounds_checked": 0, "rounds": []}  # nothing over yet

    _play_round_one(alice, bob, gid)
    round2 = Round.objects.get(game_id=gid, number=2)
    rounds = bob.get(f"/api/v1/games/{gid}/rounds/").json()["results"]
    first, second = rounds
    assert first["deck"] == DECK and first["salt"] == round1.salt
    assert first["commitment"] == _by_hand(DECK, first["salt"])  # anyone can check it by hand
    assert (second["deck"], second["salt"], second["preset_deck"]) == (None, None, False)
    assert second["commitment"] == bob.get(f"/api/v1/games/{gid}/").json()["deck_commitment"] != first["commitment"]
    assert round2.salt != round1.salt
    _assert_hidden((alice, bob), gid, round2)

    report = bob.get(f"/api/v1/games/{gid}/verify/").json()
    assert report["verified"] is True and report["rounds_checked"] == 1
    assert report["rounds"][0] == {"number": 1, "preset_deck": True, "commitment": round1.commitment,
                                   "commitment_ok": True, "replay_ok": True, "problems": []}

    assert alice.post(f"/api/v1/games/{gid}/resign/").status_code == 200  # round 2 is over unfinished
    rounds = bob.get(f"/api/v1/games/{gid}/rounds/").json()["results"]
    assert rounds[1]["deck"] == round2.deck and rounds[1]["commitment"] == _by_hand(round2.deck, rounds[1]["salt"])
    report = bob.get(f"/api/v1/games/{gid}/verify/").json()
    assert (report["verified"], report["rounds_checked"]) == (True, 2)
    export = bob.get(f"/api/v1/games/{gid}/export/").json()
    assert export["deck_proofs"] == [
        {"round": 1, "commitment": round1.commitment, "salt": round1.salt, "preset_deck": True},
        {"round": 2, "commitment": round2.commitment, "salt": round2.salt, "preset_deck": False}]
    call_command("verify_game", gid)
    out = capsys.readouterr().out
    assert "round 1 (staff preset deck): commitment" in out and "2 round(s) checked, verified" in out


@pytest.mark.django_db
@pytest.mark.parametrize("tamper, problem", [
    ("result", "replaying the moves does not give the recorded result"),
    ("deck", "the commitment does not match the revealed deck and salt"),
    ("salt", "the commitment does not match the revealed deck and salt"),
    ("move", "the moves do not replay from this deck"),
])
def test_verify_catches_tampering(alice, bob, capsys, tamper, problem):
    gid = _game(alice, bob)
    _play_round_one(alice, bob, gid)
    rnd = Round.objects.get(game_id=gid, number=1)
    if tamper == "result":
        rnd.result = {**rnd.result, "points": rnd.result["points"] + 1}
    elif tamper == "deck":
        rnd.deck = rnd.deck[:-2] + [rnd.deck[-1], rnd.deck[-2]]  # two cards at the bottom of the stock
    elif tamper == "salt":
        rnd.salt = "0" * 64
    else:
        Move.objects.filter(game_id=gid, seq=4).update(action={"type": "knock", "card": "AC"})  # 8 > 6
    rnd.save()
    report = alice.get(f"/api/v1/games/{gid}/verify/").json()
    assert report["verified"] is False
    assert any(p.startswith(problem) for p in report["rounds"][0]["problems"]), report
    with pytest.raises(CommandError):
        call_command("verify_game", gid)
    assert "FAILED" in capsys.readouterr().out


@pytest.mark.django_db
def test_verify_is_for_history_readers_only(alice, bob, anon):
    gid = _game(alice, bob)
    from tests.helpers import register

    carol = register(anon, "carol")
    assert carol.get(f"/api/v1/games/{gid}/verify/").json()["error"]["code"] == "not_found"
    assert alice.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    assert carol.get(f"/api/v1/games/{gid}/verify/").json()["verified"] is True  # finished: public


def test_server_shuffles_come_from_the_system_random_source():
    assert isinstance(common._system_random, random.SystemRandom)
