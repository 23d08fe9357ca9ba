"""The notifications a change of a game causes, as ``notifications.services.Notice`` values.

Every event's data passes through the engine's ``redact_event`` for the recipient's seat: the only
secret an engine event carries (the card of an opponent's stock draw) never reaches a feed or a
webhook. Round results are public once the round has ended (R8, R9), so ``round_over`` carries
the full result. Called by ``games.services`` inside the transaction of the change.
"""
from __future__ import annotations

from games import engine
from notifications.models import EventKind
from notifications.services import Notice

from .models import Game, GameKind, GameStatus
from okgin_project.timestamps import iso


def _turn_notice(game: Game) -> list[Notice]:
    """``your_turn`` for the person to act (none for an AI seat or a finished game)."""
    if game.status != GameStatus.ACTIVE or game.to_act_seat is None:
        return []
    return [Notice(game.player_at(game.to_act_seat), EventKind.YOUR_TURN, game.pk,
                   {"version": game.version, "turn_deadline": iso(game.turn_deadline)})]


def match_over_notices(game: Game) -> list[Notice]:
    """``match_over`` for both players: winner seat, ``you_won``, end reason, scores (points)."""
    return [
        Notice(game.player_at(seat), EventKind.MATCH_OVER, game.pk, {
            "version": game.version, "winner_seat": game.winner_seat, "you_won": game.winner_seat == seat,
            "end_reason": game.end_reason, "scores": [game.score0, game.score1],
        })
        for seat in (0, 1)
    ]


def action_notices(*, game: Game, seat: int, action: dict, events: list[dict], turn_started: bool) -> list[Notice]:
    """After ``seat`` played ``action`` (engine JSON) causing ``events`` (unredacted dicts):
    ``opponent_moved`` for the other seat, ``round_over`` for both when a round ended,
    ``match_over`` when the match ended, ``your_turn`` when a new turn started."""
    other = 1 - seat
    notices = [Notice(game.player_at(other), EventKind.OPPONENT_MOVED, game.pk, {
        "version": game.version,
        "seat": seat,
        "action": {"type": action["type"], **({"card": action["card"]} if "card" in action else {})},
        "events": [engine.redact_event(e, other) for e in events],
    })]
    for e in events:
        if e.get("type") == "round_ended":
            result = e["result"]
            for s in (0, 1):
                notices.append(Notice(game.player_at(s), EventKind.ROUND_OVER, game.pk, {
                    "version": game.version, "round": result["number"], "outcome": result["outcome"],
                    "winner_seat": result["winner"], "points": result["points"],
                    "scores": result["scores_after"], "result": result,
                }))
    if game.status == GameStatus.FINISHED:
        notices += match_over_notices(game)
    elif turn_started:
        notices += _turn_notice(game)
    return notices


def start_notices(game: Game) -> list[Notice]:
    """When a match starts: ``your_turn`` for the person to act first."""
    return _turn_notice(game)


def invitation_notice(game: Game, kind: str) -> list[Notice]:
    """``invitation_received`` (to seat 1) or ``invitation_accepted`` / ``invitation_declined``
    (to the creator), ``data.by``: the other player's name."""
    if kind == EventKind.INVITATION_RECEIVED:
        return [Notice(game.player1, kind, game.pk, {"by": game.player0.name, "version": game.version})]
    return [Notice(game.player0, kind, game.pk, {"by": game.player1.name, "version": game.version})]


def invitation_withdrawn_notice(game: Game) -> list[Notice]:
    """``invitation_withdrawn`` to the invited player (seat 1) when the creator withdraws an
    invitation; none for an open challenge (nobody was invited). ``data.by``: the creator's name."""
    if game.kind != GameKind.INVITE or game.player1 is None:
        return []
    return [Notice(game.player1, EventKind.INVITATION_WITHDRAWN, game.pk,
                   {"by": game.player0.name, "version": game.version})]


def invitation_expired_notices(game: Game) -> list[Notice]:
    """``invitation_expired`` to the creator (``data.by``: the invited player's name, null for an
    open challenge) and to the invited player (``data.by``: the creator's name)."""
    invitee = game.player1 if game.kind == GameKind.INVITE else None
    notices = [Notice(game.player0, EventKind.INVITATION_EXPIRED, game.pk,
                      {"by": invitee.name if invitee else None, "version": game.version})]
    if invitee is not None:
        notices.append(Notice(invitee, EventKind.INVITATION_EXPIRED, game.pk,
                              {"by": game.player0.name, "version": game.version}))
    return notices


def timeout_notices(*, game: Game, seat: int, result: str) -> list[Notice]:
    """``timeout`` for both players: ``seat`` ran out of time; ``result`` ``forfeit`` or
    ``auto_played``."""
    data = {
        "version": game.version, "seat": seat, "policy": game.timeout_policy, "result": result,
        "auto_played_turns": game.auto_played(seat), "auto_play_limit": game.auto_play_limit,
    }
    return [Notice(game.player_at(s), EventKind.TIMEOUT, game.pk, data) for s in (0, 1)]


def deadline_near_notice(game: Game, seconds_left: float) -> list[Notice]:
    """``deadline_near`` for the person to act."""
    return [Notice(game.player_at(game.to_act_seat), EventKind.DEADLINE_NEAR, game.pk, {
        "version": game.version, "turn_deadline": iso(game.turn_deadline), "seconds_left": round(seconds_left),
    })]
