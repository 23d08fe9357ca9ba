"""``GET /api/v1/players/{name}/games.ndjson``: every finished game of a player, one export object
(``selectors.game_export``, the same content as ``games/{id}/export/``) per line, newest first.

The games list's filters apply (``variant``, ``opponent``, ``result`` relative to that player,
``created_after/before``, ``finished_after/before``). Rows are read from a server-side iterator in
chunks and each line is written as it is made, so memory stays flat whatever the history's length.
"""
from __future__ import annotations

import json
from typing import Iterator

from django.db.models import Prefetch, QuerySet
from django.http import StreamingHttpResponse
from rest_framework.renderers import BaseRenderer

from .models import Game, GameStatus, Move, Round
from .selectors import game_export

CHUNK = 50
MEDIA_TYPE = "application/x-ndjson"


class NdjsonRenderer(BaseRenderer):
    """``application/x-ndjson``; an error body is one JSON line like any other."""

    media_type = MEDIA_TYPE
    format = "ndjson"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return (json.dumps(data, separators=(",", ":")) + "\n").encode()


def finished_games(queryset: QuerySet[Game]) -> QuerySet[Game]:
    """``queryset``'s finished games, newest first, with players, rounds and moves prefetched per
    chunk (three queries per chunk of ``CHUNK`` games)."""
    return (
        queryset.filter(status=GameStatus.FINISHED)
        .select_related("player0", "player1")
        .prefetch_related(Prefetch("rounds", queryset=Round.objects.order_by("number")),
                          Prefetch("moves", queryset=Move.objects.select_related("round")
                                   .only("seq", "seat", "action", "game_id", "round__number").order_by("seq")))
        .order_by("-finished_at", "-id")
    )


def lines(queryset: QuerySet[Game]) -> Iterator[bytes]:
    """One UTF-8 JSON line per game of ``queryset`` (see ``finished_games``)."""
    for game in finished_games(queryset).iterator(chunk_size=CHUNK):
        record = game_export(game=game, rounds=list(game.rounds.all()), moves=list(game.moves.all()))
        yield (json.dumps(record, separators=(",", ":")) + "\n").encode()


def ndjson_response(queryset: QuerySet[Game]) -> StreamingHttpResponse:
    """The streamed response of ``lines(queryset)``."""
    return StreamingHttpResponse(lines(queryset), content_type=MEDIA_TYPE)
