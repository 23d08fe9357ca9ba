"""Provably fair decks: commitments at the deal, and the check of every finished round.

When a round is dealt the server shuffles with ``secrets.SystemRandom`` (or uses a staff preset
deck, marked ``preset_deck``), draws a fresh 32-byte salt from ``secrets`` and publishes

    commitment = SHA-256( UTF-8 of  <52 card codes in deal order, joined by ","> "|" <salt as 64
                          lowercase hex characters> ), as 64 lowercase hex characters

in the game view (``deck_commitment``) and the round's history (``commitment``). Deal order is the
order of R4: ten cards to the non-dealer, ten to the dealer, the upcard, then the stock from its
top. The deck and the salt stay secret while the round is in play; once it is over both appear in
the round's history, so anyone can recompute the digest (``printf '%s' 'AC,2C,...,KS|<salt>' |
sha256sum``) and replay the round's moves from that deck to its recorded result
(``rounds_verify``, ``GET /api/v1/games/{id}/verify/``, ``manage.py verify_game <id>``).
"""
from __future__ import annotations

import hashlib
import json
import secrets
from collections import defaultdict
from typing import Sequence

from games import engine

from .models import Game, Move, Round
from .presenters import round_is_open

SALT_BYTES = 32


def salt_new() -> str:
    """A fresh per-round salt: 32 bytes from ``secrets`` as 64 lowercase hex characters."""
    return secrets.token_hex(SALT_BYTES)


def commitment_message(deck: Sequence[str], salt: str) -> bytes:
    """The exact bytes hashed: the card codes (``"10H"``, ``"AS"``, ...) in deal order joined by
    ``","``, then ``"|"``, then the salt's 64 hex characters, encoded as UTF-8 (all ASCII)."""
    return (",".join(deck) + "|" + salt).encode("utf-8")


def deck_commitment(deck: Sequence[str], salt: str) -> str:
    """SHA-256 of ``commitment_message(deck, salt)`` as 64 lowercase hex characters."""
    return hashlib.sha256(commitment_message(deck, salt)).hexdigest()


def _plain(value):
    return json.loads(json.dumps(value))


def rounds_verify(*, game: Game) -> dict:
    """Check every round of ``game`` that is no longer in play (its deck and salt are revealed).

    For each: the commitment equals SHA-256 of the revealed deck and salt; dealing that deck
    (after the earlier rounds, from the recorded first dealer) gives the recorded dealer and upcard,
    and replaying the round's recorded moves through the engine gives exactly the recorded result
    (outcome, points, melds, lay-offs: ``Round.result``), or, for a round the match left unfinished
    (resigned, timed out), legal moves and no result. Rounds still in play are not checked.

    Returns ``{"game_id", "verified", "rounds_checked", "rounds": [{"number", "preset_deck",
    "commitment", "commitment_ok", "replay_ok", "problems": [str]}]}``; ``verified`` is True when
    every checked round passed (a round dealt before commitments existed has ``commitment_ok``
    null and fails verification).
    """
    rounds = list(Round.objects.filter(game=game).order_by("number"))
    moves_by_round: dict[int, list[tuple[int, dict]]] = defaultdict(list)
    for round_id, seat, action in Move.objects.filter(game=game).order_by("seq").values_list(
            "round_id", "seat", "action"):
        moves_by_round[round_id].append((seat, action))
    out = []
    state = engine.new_match(engine.RuleSet.from_dict(game.rules), game.first_dealer or 0)
    for rnd in rounds:
        if round_is_open(game, rnd):
            break
        problems: list[str] = []
        commitment_ok = None
        if not rnd.commitment or not rnd.salt:
            problems.append("no commitment (dealt before commitments were published)")
        else:
            commitment_ok = deck_commitment(rnd.deck, rnd.salt) == rnd.commitment
            if not commitment_ok:
                problems.append("the commitment does not match the revealed deck and salt")
        replay_ok, state = _round_replay(state, rnd, moves_by_round[rnd.pk], problems)
        out.append({"number": rnd.number, "preset_deck": rnd.preset_deck, "commitment": rnd.commitment or None,
                    "commitment_ok": commitment_ok, "replay_ok": replay_ok, "problems": problems})
        if state is None:
            break
    return {"game_id": game.pk, "verified": all(not r["problems"] for r in out), "rounds_checked": len(out),
            "rounds": out}


def _round_replay(state, rnd: Round, moves, problems: list[str]):
    """Deal ``rnd.deck`` on ``state`` and apply ``moves``; append what differs from the record to
    ``problems``. Returns ``(ok, state after the round)`` (state None when replay cannot go on)."""
    before = len(problems)
    try:
        if state.phase != "deal":
            problems.append(f"round {rnd.number} has no deal in the replay (phase {state.phase})")
            return False, None
        state, _ = engine.deal(state, rnd.deck)
        if (state.round.dealer, state.round.first_upcard.code) != (rnd.dealer, rnd.upcard):
            problems.append("the deck does not give the recorded dealer and upcard")
        result = None
        for seat, action in moves:
            state, events = engine.apply(state, seat, action)
            ended = next((e for e in events if e.type == "round_ended"), None)
            if ended is not None:
                result = _plain(ended.data["result"])
    except (engine.EngineError, ValueError) as exc:
        problems.append(f"the moves do not replay from this deck: {exc}")
        return False, None
    if rnd.ended_at is not None and result != _plain(rnd.result):
        problems.append("replaying the moves does not give the recorded result")
    if rnd.ended_at is None and result is not None:
        problems.append("the moves end the round but no result was recorded")
    return len(problems) == before, state
