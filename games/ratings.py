"""Glicko-2 ratings of people, per variant, with the ``glicko2`` package (Glickman's system; no
rating arithmetic of our own).

A rated match (chosen at creation: ``Game.rated``; people only, never the AI) updates both players'
``PlayerRating`` for the match's variant in the transaction that finishes it (``match_rate``,
called under the game's row lock; the two rating rows are locked too, in id order). Each match is
one rating period for the two players (one result: 1 for the winner, 0 for the loser). Inactivity
widens the rating deviation: for every whole ``OKGIN_RATING_PERIOD_DAYS`` (default 7) since a
player's last rated match the package's ``did_not_compete`` step is applied, both before the next
update and when a rating is shown (``rating_now``), up to the starting deviation (350).

Starting values are Glickman's: rating 1500, deviation 350, volatility 0.06.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import glicko2
from django.conf import settings
from django.utils import timezone

from okgin_project.timestamps import iso

from .models import Game, PlayerRating, RatingChange

RATING_START, RD_START, VOLATILITY_START = 1500.0, 350.0, 0.06


@dataclass(frozen=True)
class RatingNow:
    """A rating as of now: ``rating`` and ``rd`` (rating points), ``volatility``, rated ``games``."""

    rating: float
    rd: float
    volatility: float
    games: int


def _periods_idle(last: datetime | None, now: datetime) -> int:
    if last is None:
        return 0
    return int((now - last).total_seconds() // (settings.OKGIN_RATING_PERIOD_DAYS * 86400))


def _glicko(row: PlayerRating | None, now: datetime) -> glicko2.Player:
    """The package's player for ``row`` (a new player if None), with the idle periods applied."""
    if row is None:
        return glicko2.Player(rating=RATING_START, rd=RD_START, vol=VOLATILITY_START)
    player = glicko2.Player(rating=row.rating, rd=row.rd, vol=row.volatility)
    for _ in range(_periods_idle(row.last_rated_at, now)):
        if player.rd >= RD_START:
            break
        player.did_not_compete()
    player.rd = min(player.rd, RD_START)
    return player


def rating_now(row: PlayerRating, now: datetime | None = None) -> RatingNow:
    """``row`` as of ``now``: the deviation widened by the idle rating periods since its last match."""
    player = _glicko(row, now or timezone.now())
    return RatingNow(rating=player.rating, rd=player.rd, volatility=player.vol, games=row.games)


def match_rate(*, game: Game) -> list[RatingChange]:
    """Update both players' ratings for ``game`` (finished, rated, two people) and record the
    changes; the caller holds the game's row lock inside its transaction. Returns the two
    ``RatingChange`` rows (seat 0's first); nothing for an unrated game or without a winner."""
    if not game.rated or game.winner_seat is None or game.player0.is_ai or game.player1.is_ai:
        return []
    now = game.finished_at or timezone.now()
    players = (game.player0, game.player1)
    for p in sorted(players, key=lambda p: p.pk):  # lock in id order: no deadlock between matches
        PlayerRating.objects.get_or_create(
            player=p, variant=game.variant,
            defaults={"rating": RATING_START, "rd": RD_START, "volatility": VOLATILITY_START})
    rows = {r.player_id: r for r in PlayerRating.objects.select_for_update().filter(
        player__in=players, variant=game.variant).order_by("player_id")}
    before = [_glicko(rows[p.pk] if rows[p.pk].games else None, now) for p in players]
    pre = [(g.rating, g.rd) for g in before]
    changes = []
    for seat, player in enumerate(players):
        g = before[seat]
        opp_rating, opp_rd = pre[1 - seat]
        old_rating, old_rd = pre[seat]
        g.update_player([opp_rating], [opp_rd], [1.0 if game.winner_seat == seat else 0.0])
        row = rows[player.pk]
        row.rating, row.rd, row.volatility = g.rating, g.rd, g.vol
        row.games += 1
        row.last_rated_at = now
        row.save()
        changes.append(RatingChange.objects.create(
            game=game, player=player, variant=game.variant, rating_before=old_rating, rd_before=old_rd,
            rating_after=g.rating, rd_after=g.rd, created_at=now))
    return changes


HISTORY_LENGTH = 50


def player_ratings(*, player, now: datetime | None = None) -> list[dict]:
    """``player``'s ratings, one per variant with rated matches (by variant name): ``{"variant",
    "rating", "rd" (as of now), "volatility", "games", "history": [{"game_id", "rating", "rd", "at"}]}``
    (history newest first, at most ``HISTORY_LENGTH``)."""
    now = now or timezone.now()
    out = []
    for row in PlayerRating.objects.filter(player=player, games__gt=0).order_by("variant"):
        current = rating_now(row, now)
        history = RatingChange.objects.filter(player=player, variant=row.variant).order_by("-created_at", "-id")
        out.append({
            "variant": row.variant, "rating": round(current.rating, 1), "rd": round(current.rd, 1),
            "volatility": round(current.volatility, 6), "games": current.games, "published": False,
            "history": [{"game_id": c.game_id, "rating": round(c.rating_after, 1), "rd": round(c.rd_after, 1),
                         "at": iso(c.created_at)} for c in history[:HISTORY_LENGTH]],
        })
    return out


def leaderboard_queryset(*, variant: str):
    """The rating rows of ``variant`` with at least ``OKGIN_LEADERBOARD_MIN_GAMES`` rated matches
    (ordered by the caller's pages: rating, highest first; index ``rating_leaderboard``)."""
    return PlayerRating.objects.select_related("player").filter(
        variant=variant, games__gte=settings.OKGIN_LEADERBOARD_MIN_GAMES)


def leaderboard_entry(row: PlayerRating, now: datetime | None = None) -> dict:
    """One leaderboard line: ``{"name", "rating", "rd" (as of now), "games", "last_rated_at"}``."""
    current = rating_now(row, now)
    return {"name": row.player.name, "rating": round(current.rating, 1), "rd": round(current.rd, 1),
            "games": row.games, "last_rated_at": iso(row.last_rated_at)}


@dataclass(frozen=True)
class PublishedRating:
    """A fixed Glicko-2 rating of an AI level, measured from its results against the other levels
    (``benchmarks/ai_ratings.py``; docs/ratings.md#the-ai-levels): ``rating`` and ``rd`` (rating
    points), ``volatility``, ``matches`` (benchmark matches the level played)."""

    rating: float
    rd: float
    volatility: float
    matches: int


# Oklahoma Gin (the default rules), simple anchored at 1500; measured at the commit named in
# docs/ratings.md. Classic Gin Rummy was not measured: no published rating.
AI_RATINGS: dict[str, dict[str, PublishedRating]] = {
    "oklahoma": {
        "random": PublishedRating(rating=760.37, rd=86.86, volatility=0.059973, matches=278),
        "simple": PublishedRating(rating=1500.0, rd=0.0, volatility=0.06, matches=356),
        "strong": PublishedRating(rating=1655.10, rd=52.08, volatility=0.059941, matches=234),
    },
}


def ai_rating(*, level: str, variant: str) -> dict | None:
    """The published rating of AI ``level`` in ``variant`` as ``{"rating", "rd", "matches"}`` (rating
    points, rounded to 1), or None when that variant was not measured."""
    r = AI_RATINGS.get(variant, {}).get(level)
    if r is None:
        return None
    return {"rating": round(r.rating, 1), "rd": round(r.rd, 1), "matches": r.matches}


def ai_player_ratings(*, level: str) -> list[dict]:
    """An AI level's published ratings in the shape of :func:`player_ratings` (``games``: the
    benchmark matches it played; no history; ``published`` true), one per measured variant."""
    out = []
    for variant in sorted(AI_RATINGS):
        r = AI_RATINGS[variant].get(level)
        if r is not None:
            out.append({"variant": variant, "rating": round(r.rating, 1), "rd": round(r.rd, 1),
                        "volatility": round(r.volatility, 6), "games": r.matches, "history": [],
                        "published": True})
    return out
