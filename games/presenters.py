"""Plain-dict representations of games for clients. Every secret passes through the engine's
``player_view`` / ``redact_event`` here; nothing else in the API touches ``Game.state`` or decks.

The shapes are documented for OpenAPI by the serializers in ``games/serializers.py``.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from games import engine

from .models import Game, GameStatus, Move, Round


def iso(value: datetime | None) -> str | None:
    """ISO 8601 UTC with a ``Z`` suffix, or None."""
    if value is None:
        return None
    return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _seat_dict(game: Game, seat: int) -> dict | None:
    player = game.player_at(seat)
    if player is None:
        return None
    return {"seat": seat, "name": player.name, "is_ai": player.is_ai, "ai_level": player.ai_level or None}


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
        "invitation_expires_at": iso(game.invitation_expires_at),
        "created_at": iso(game.created_at),
        "updated_at": iso(game.updated_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
    }


def game_detail_dict(game: Game, seat: int | None) -> dict[str, Any]:
    """The summary plus ``view``: the engine's ``player_view`` for ``seat`` (None if not started),
    and ``last_round_result`` (the last finished round in full, or None)."""
    body = game_summary_dict(game, seat)
    view = None
    if game.state is not None and seat is not None:
        view = engine.player_view(engine.MatchState.from_dict(game.state), seat).to_dict()
    body["view"] = view
    body["last_round_result"] = view["last_result"] if view else None
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
    """One round: public facts always; the outcome and full result once it has ended."""
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
        "started_at": iso(rnd.started_at),
        "ended_at": iso(rnd.ended_at),
    }
