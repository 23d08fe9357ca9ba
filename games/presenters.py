"""Plain-dict representations of games for clients. Every secret passes through the engine's
``player_view`` / ``redact_event`` here; nothing else in the API touches ``Game.state`` or decks.

The shapes are documented for OpenAPI by the serializers in ``games/serializers.py``.
"""
from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from django.utils import timezone as django_timezone

from games import engine
from okgin_project.timestamps import iso
from games.engine import review as engine_review

from .models import Game, GameStatus, Move, Round
from .ratings import ai_rating


def _seat_dict(game: Game, seat: int) -> dict | None:
    player = game.player_at(seat)
    if player is None:
        return None
    rating = ai_rating(level=player.ai_level, variant=game.variant) if player.is_ai else None
    return {"seat": seat, "name": player.name, "is_ai": player.is_ai, "ai_level": player.ai_level or None,
            "published_rating": rating}


def game_summary_dict(game: Game, seat: int | None) -> dict[str, Any]:
    """A game without the engine view: ids, seats, status, scores, times (no hidden information)."""
    return {
        "id": game.pk,
        "kind": game.kind,
        "status": game.status,
        "version": game.version,
        "variant": game.variant,
        "rules": game.rules,
        "seats": [_seat_dict(game, 0), _seat_dict(game, 1)],
        "your_seat": seat,
        "scores": [game.score0, game.score1],
        "round_number": game.round_number,
        "dealer": game.dealer,
        "to_act": game.to_act_seat,
        "is_your_turn": seat is not None and game.status == GameStatus.ACTIVE and game.to_act_seat == seat,
        "winner_seat": game.winner_seat,
        "end_reason": game.end_reason or None,
        "move_time_limit": game.move_time_limit,
        "timeout_policy": game.timeout_policy,
        "auto_play_limit": game.auto_play_limit,
        "auto_played_turns": [game.auto_played0, game.auto_played1],
        "turn_started_at": iso(game.turn_started_at),
        "turn_deadline": iso(game.turn_deadline),
        "paused_until": iso(game.paused_until),
        "turn_time_left": game.turn_time_left,
        "time_bank": ({"initial": game.time_bank_initial, "increment": game.time_bank_increment,
                       "max": game.time_bank_max} if game.time_bank_initial is not None else None),
        "time_banks": _banks(game),
        "invitation_expires_at": iso(game.invitation_expires_at),
        "rated": game.rated,
        "rematch": {"status": game.rematch_status or None, "offered_by": game.rematch_offered_by,
                    "game_id": game.rematch_id},
        "created_at": iso(game.created_at),
        "updated_at": iso(game.updated_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
    }


def _banks(game: Game) -> list[int] | None:
    """Seconds in each seat's time bank (None without a bank). Before the match starts (an
    invitation, also one aborted, declined or expired) each seat has the bank's ``initial``: the
    rows hold no bank yet, and the schema's items are whole numbers."""
    if game.time_bank_initial is None:
        return None
    return [game.time_bank_initial if b is None else b for b in (game.bank0, game.bank1)]


def _banks_left(game: Game, now: datetime) -> list[int] | None:
    """Seconds in each seat's time bank at ``now``: for the person to act what is left of this
    turn's clock (the kept seconds while paused), for the other their bank; None without a bank."""
    banks = _banks(game)
    if banks is None:
        return None
    seat = game.to_act_seat
    if game.status == GameStatus.ACTIVE and seat is not None and not game.player_at(seat).is_ai:
        if game.turn_time_left is not None:
            banks[seat] = game.turn_time_left
        elif game.turn_deadline is not None:
            banks[seat] = max(0, math.ceil((game.turn_deadline - now).total_seconds()))
    return banks


def game_detail_dict(game: Game, seat: int | None) -> dict[str, Any]:
    """The summary plus ``view``: the engine's ``player_view`` for ``seat`` (None if not started),
    ``last_round_result`` (the last finished round in full, or None), ``deck_commitment`` (the
    current round's SHA-256 commitment to its deck and secret salt, ``games.fairness``; None
    before the first deal), ``preset_deck`` (that deck was chosen by staff) and ``server_time``
    (the server's clock now, so a client counts down to ``turn_deadline`` without trusting its own
    clock; not in the summaries of lists, whose ETag hashes the body) and ``time_banks_left``
    (seconds in each seat's time bank now, ``_banks_left``; None without a time bank)."""
    body = game_summary_dict(game, seat)
    view = None
    if game.state is not None and seat is not None:
        view = engine.player_view(game.match_state(), seat).to_dict()
    body["view"] = view
    now = django_timezone.now()
    body["server_time"] = iso(now)
    body["time_banks_left"] = _banks_left(game, now)
    body["last_round_result"] = view["last_result"] if view else None
    dealt = game.round_number > 0 and bool(game.deck_commitment)
    body["deck_commitment"] = game.deck_commitment if dealt else None
    body["preset_deck"] = game.round_number <= len(game.preset_decks) if dealt else None
    return body


def round_is_open(game: Game, rnd: Round) -> bool:
    """True while ``rnd`` is in play: its events must be redacted and its result is unknown."""
    return rnd.ended_at is None and game.status == GameStatus.ACTIVE


def move_dict(game: Game, move: Move, rnd: Round, viewer: int | None) -> dict[str, Any]:
    """One move for ``viewer`` (seat or None): events redacted while the round is in play."""
    events = move.events
    if round_is_open(game, rnd):
        events = [engine.redact_event(e, viewer) for e in events]
    return {
        "seq": move.seq,
        "round": rnd.number,
        "seat": move.seat,
        "action": move.action,
        "events": events,
        "auto_played": move.auto_played,
        "created_at": iso(move.created_at),
    }


def round_dict(game: Game, rnd: Round) -> dict[str, Any]:
    """One round: public facts always (with the deck ``commitment`` and ``preset_deck``); the
    outcome and full result once it has ended; the ``deck`` (deal order) and ``salt`` that the
    commitment hashes only once it is no longer in play (None before: hidden information)."""
    revealed = not round_is_open(game, rnd)
    return {
        "number": rnd.number,
        "dealer": rnd.dealer,
        "upcard": rnd.upcard,
        "knock_limit": rnd.knock_limit,
        "in_play": round_is_open(game, rnd),
        "outcome": rnd.outcome or None,
        "knocker_seat": rnd.knocker_seat,
        "winner_seat": rnd.winner_seat,
        "points": rnd.points if rnd.ended_at else None,
        "result": rnd.result,
        "commitment": rnd.commitment or None,
        "preset_deck": rnd.preset_deck,
        "deck": rnd.deck if revealed else None,
        "salt": (rnd.salt or None) if revealed else None,
        "started_at": iso(rnd.started_at),
        "ended_at": iso(rnd.ended_at),
    }


def review_dict(review) -> dict[str, Any]:
    """A game review (``games.services.review``): ``{"game_id", "seat", "player", "status",
    "iterations", "progress": {"decisions_done", "decisions_total"}, "mistake_threshold",
    "mistakes", "expected_loss", "rounds", "decisions", "created_at", "finished_at"}``; the figures
    are null and the lists empty until it is done (``games.engine.review.review_summary``)."""
    result = review.result or {}
    return {
        "game_id": review.game_id,
        "seat": review.seat,
        "player": review.player.name,
        "status": review.status,
        "iterations": review.iterations,
        "progress": {"decisions_done": review.decisions_done, "decisions_total": review.decisions_total},
        "mistake_threshold": result.get("mistake_threshold", engine_review.MISTAKE_POINTS),
        "mistakes": result.get("mistakes"),
        "expected_loss": result.get("expected_loss"),
        "rounds": result.get("rounds", []),
        "decisions": result.get("decisions", []),
        "created_at": iso(review.created_at),
        "finished_at": iso(review.finished_at),
    }
