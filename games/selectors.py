"""Reads for games (HackSoft style). Permission rules live here: a game's private view is for its
seated players only; an open challenge is visible to everyone while it waits; a finished game's
history (rounds, moves, export) is public to authenticated players."""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from okgin_project.errors import Conflict, NotFound
from okgin_project.timestamps import iso
from players.models import Player

from .ratings import ai_player_ratings, player_ratings
from .models import Game, GameKind, GameStatus, Move, Round
from .rows import game_with_players


def game_get_for_viewer(*, game_id: int, player: Player) -> tuple[Game, int | None]:
    """The game and the viewer's seat (None for a non-seated viewer of an open challenge).

    The game comes with its players (``games.rows.game_with_players``, the game view's one query).
    Raises ``NotFound`` if the game does not exist or the player may not see it.
    """
    game = game_with_players(game_id=game_id)
    if game is None:
        raise NotFound("No such game.")
    seat = game.seat_of(player)
    if seat is None and not (game.kind == GameKind.OPEN and game.status == GameStatus.INVITED):
        raise NotFound("No such game.")
    return game, seat


def game_get_for_history(*, game_id: int, player: Player) -> tuple[Game, int | None]:
    """The game for reading rounds/moves: seated players always, anyone once it is finished.

    Raises ``NotFound`` otherwise.
    """
    game = Game.objects.select_related("player0", "player1").filter(pk=game_id).first()
    if game is None:
        raise NotFound("No such game.")
    seat = game.seat_of(player)
    if seat is None and game.status != GameStatus.FINISHED:
        raise NotFound("No such game.")
    return game, seat


def game_list_for_player(*, player: Player) -> QuerySet[Game]:
    """Every game where ``player`` holds a seat (filtered and ordered by the API layer, which pages
    it by seat with ``game_seats``), without the engine state and preset decks a summary does not show."""
    return (Game.objects.select_related("player0", "player1").defer("state", "preset_decks")
            .filter(Q(player0=player) | Q(player1=player)))


def game_seats(*, player: Player) -> tuple[Q, Q]:
    """``player``'s games as seat 0 and as seat 1: two disjoint conditions (``game_seats_differ``),
    each served in created or updated order by its seat's indexes (``game_p0_created``, ...), for
    ``KeysetPaginator.paginate(parts=...)``. Their OR would make the database read and sort the
    player's whole history for every page."""
    return Q(player0=player), Q(player1=player)


def lobby_list(*, player: Player) -> QuerySet[Game]:
    """Open challenges waiting for an opponent and not expired, newest first (own ones included)."""
    return (
        Game.objects.select_related("player0", "player1")
        .filter(kind=GameKind.OPEN, status=GameStatus.INVITED, invitation_expires_at__gt=timezone.now())
        .order_by("-created_at", "-id")
    )


def rounds_list(*, game: Game) -> QuerySet[Round]:
    """The rounds of ``game`` (ordered and paged by the API layer; with their decks and salts: the
    presenter reveals them only for rounds no longer in play)."""
    return Round.objects.filter(game=game)


def moves_list(*, game: Game, round_number: int | None = None) -> QuerySet[Move]:
    """The moves of ``game`` (of one round if ``round_number``) with their round (ordered and paged
    by the API layer)."""
    qs = Move.objects.filter(game=game).select_related("round").defer("round__deck")
    if round_number is not None:
        qs = qs.filter(round__number=round_number)
    return qs


def game_export(*, game: Game, rounds: list[Round] | None = None, moves: list[Move] | None = None) -> dict:
    """One JSON record of a finished match that ``engine.replay`` reproduces:
    ``{"format", "id", "rules", "first_dealer", "players", "decks", "moves": [{"seq","round","seat",
    "action"}], "rounds": [RoundResult], "deck_proofs": [{"round", "commitment", "salt",
    "preset_deck"}] (``games.fairness``), "scores", "winner_seat", "end_reason", times}``.

    ``rounds`` (by number) and ``moves`` (by seq, with their round) when the caller already has
    them (``games.ndjson`` prefetches them per chunk). Raises ``Conflict`` ``game_not_finished``
    before the end (decks are secret until then).
    """
    if game.status != GameStatus.FINISHED:
        raise Conflict("Only a finished game can be exported.", code="game_not_finished")
    if rounds is None:
        rounds = list(Round.objects.filter(game=game).order_by("number"))
    if moves is None:
        moves = list(Move.objects.filter(game=game).select_related("round").only(
            "seq", "seat", "action", "round__number").order_by("seq"))
    return {
        "format": "okgin-game/1",
        "id": game.pk,
        "variant": game.variant,
        "rules": game.rules,
        "first_dealer": game.first_dealer,
        "players": [game.player0.name, game.player1.name if game.player1 else None],
        "decks": [r.deck for r in rounds],
        "moves": [
            {"seq": m.seq, "round": m.round.number, "seat": m.seat, "action": m.action} for m in moves
        ],
        "rounds": [r.result for r in rounds if r.result is not None],
        "deck_proofs": [{"round": r.number, "commitment": r.commitment or None, "salt": r.salt or None,
                         "preset_deck": r.preset_deck} for r in rounds],
        "scores": [game.score0, game.score1],
        "winner_seat": game.winner_seat,
        "end_reason": game.end_reason,
        "created_at": iso(game.created_at),
        "started_at": iso(game.started_at),
        "finished_at": iso(game.finished_at),
    }


def player_stats(*, player: Player) -> dict:
    """Statistics of ``player`` over finished matches and ended rounds:
    ``{"player", "matches_played", "matches_won", "rounds_played", "rounds_won", "gins", "undercuts",
    "knocks", "points", "average_points_per_round", "ratings"}`` (points: what the player scored, R9); ``ratings``:
    a person's Glicko-2 ratings (``games.ratings.player_ratings``), an AI level's published ones
    (``games.ratings.ai_player_ratings``)."""
    as0, as1 = Q(game__player0=player), Q(game__player1=player)
    mine = Q(as0 & Q(winner_seat=0)) | Q(as1 & Q(winner_seat=1))
    knocked = Q(as0 & Q(knocker_seat=0)) | Q(as1 & Q(knocker_seat=1))
    rounds = Round.objects.filter(as0 | as1, ended_at__isnull=False).aggregate(
        rounds_played=Count("id"),
        rounds_won=Count("id", filter=mine),
        gins=Count("id", filter=mine & Q(outcome="gin")),
        undercuts=Count("id", filter=mine & Q(outcome="undercut")),
        knocks=Count("id", filter=knocked),
        points=Sum("points", filter=mine),
    )
    games = Game.objects.filter(Q(player0=player) | Q(player1=player), status=GameStatus.FINISHED).aggregate(
        matches_played=Count("id"),
        matches_won=Count(
            "id", filter=Q(player0=player, winner_seat=0) | Q(player1=player, winner_seat=1)
        ),
    )
    points = rounds["points"] or 0
    played = rounds["rounds_played"]
    return {
        "player": player.name,
        "matches_played": games["matches_played"],
        "matches_won": games["matches_won"],
        "rounds_played": played,
        "rounds_won": rounds["rounds_won"],
        "gins": rounds["gins"],
        "undercuts": rounds["undercuts"],
        "knocks": rounds["knocks"],
        "points": points,
        "average_points_per_round": round(points / played, 2) if played else 0.0,
        "ratings": ai_player_ratings(level=player.ai_level) if player.is_ai else player_ratings(player=player),
    }


def player_get_by_name(*, name: str) -> Player:
    """The player named ``name`` (case-insensitive). Raises ``NotFound``."""
    from players.selectors import player_find_by_name

    player = player_find_by_name(name=name)
    if player is None:
        raise NotFound("No player with this name.")
    return player
