"""API v1 game endpoints: one thin class per operation (validate, call one service/selector, render)."""
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status as http
from rest_framework.filters import OrderingFilter
from rest_framework.generics import ListAPIView
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from okgin_project.params import idempotency_key_header, int_query_param
from players.services import player_for_user

from . import selectors, services
from .filters import MyGamesFilter
from .models import Game
from .presenters import game_detail_dict, game_summary_dict, move_dict, round_dict
from .serializers import (
    ActionSubmitInputSerializer,
    ActionSubmitOutputSerializer,
    ErrorSerializer,
    ExportSerializer,
    GameCreateInputSerializer,
    GameDetailSerializer,
    GameSummarySerializer,
    MoveSerializer,
    RoundSerializer,
)

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404, 409, 422, 429)}


def _errors(*codes):
    return {c: ERRORS[c] for c in codes}


class GameCursorPagination(CursorPagination):
    page_size = 20
    max_page_size = 100
    page_size_query_param = "page_size"
    ordering = "-created_at"


class GameCreateApi(APIView):
    @extend_schema(
        operation_id="game_create",
        request=GameCreateInputSerializer,
        responses={201: GameDetailSerializer, **_errors(400, 401, 403, 404, 409)},
        summary="Create a game against the AI, invite a named player, or post an open challenge.",
    )
    def post(self, request):
        data = GameCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        player = player_for_user(user=request.user)
        game = services.game_create(
            creator=player,
            kind=v["kind"],
            opponent_name=v.get("opponent"),
            ai_level=v["ai_level"],
            rules=v.get("rules"),
            move_time_limit=v.get("move_time_limit"),
            timeout_policy=v["timeout_policy"],
            auto_play_limit=v.get("auto_play_limit"),
            invitation_ttl=v.get("invitation_ttl"),
            decks=v.get("decks"),
            first_dealer=v.get("first_dealer"),
            allow_preset_deal=request.user.is_staff,
        )
        game.refresh_from_db()
        return Response(game_detail_dict(game, 0), status=http.HTTP_201_CREATED)


class MyGamesListApi(ListAPIView):
    """My games, newest first by default, cursor-paginated."""

    pagination_class = GameCursorPagination
    filter_backends = [DjangoFilterBackend, OrderingFilter]
    filterset_class = MyGamesFilter
    ordering_fields = ["created_at", "updated_at"]
    ordering = ["-created_at"]
    serializer_class = GameSummarySerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Game.objects.none()
        return selectors.game_list_for_player(player=player_for_user(user=self.request.user))

    @extend_schema(operation_id="game_list_mine",
                   responses={200: GameSummarySerializer(many=True), **_errors(400, 401)})
    def get(self, request):
        player = player_for_user(user=request.user)
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        page = [services.game_deadline_enforce(game=g) for g in page]  # expired turns, without beat
        return self.get_paginated_response([game_summary_dict(g, g.seat_of(player)) for g in page])


class LobbyListApi(ListAPIView):
    """Open challenges any player may accept."""

    pagination_class = GameCursorPagination
    serializer_class = GameSummarySerializer
    filter_backends = []

    def get_queryset(self):
        return selectors.lobby_list(player=player_for_user(user=self.request.user))

    @extend_schema(operation_id="lobby_list", responses={200: GameSummarySerializer(many=True)})
    def get(self, request):
        player = player_for_user(user=request.user)
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([game_summary_dict(g, g.seat_of(player)) for g in page])


def _etag(game, seat) -> str:
    return f'"g{game.pk}-v{game.version}-s{"x" if seat is None else seat}"'


class GameDetailApi(APIView):
    @extend_schema(
        operation_id="game_detail",
        parameters=[OpenApiParameter("If-None-Match", OpenApiTypes.STR, OpenApiParameter.HEADER)],
        responses={200: GameDetailSerializer, 304: OpenApiResponse(description="Not modified."), **_errors(401, 404)},
        summary="Your view of a game (engine player_view for your seat only), with version and ETag.",
    )
    def get(self, request, game_id: int):
        game, seat = selectors.game_get_for_viewer(game_id=game_id, player=player_for_user(user=request.user))
        game = services.game_deadline_enforce(game=game)  # an expired turn ends on access, without beat
        etag = _etag(game, seat)
        inm = request.headers.get("If-None-Match", "")
        if etag in [t.strip().removeprefix("W/") for t in inm.split(",")] or inm.strip() == "*":
            return Response(status=http.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        return Response(game_detail_dict(game, seat), headers={"ETag": etag, "Cache-Control": "private, no-cache"})


class ActionSubmitApi(APIView):
    throttle_scope = "actions"

    @extend_schema(
        operation_id="action_submit",
        request=ActionSubmitInputSerializer,
        parameters=[OpenApiParameter(
            "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER,
            description="Any unique string of 1-200 printable ASCII characters; a retry with the same "
            "key returns the first response.",
        )],
        responses={200: ActionSubmitOutputSerializer, **_errors(400, 401, 404, 409, 422, 429)},
        summary="Submit an action (take/pass the upcard, draw, discard, knock) at a game version.",
    )
    def post(self, request, game_id: int):
        data = ActionSubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = idempotency_key_header(request)
        raw = data.validated_data["action"]
        action = {"type": raw["type"]}
        if "card" in raw:
            action["card"] = raw["card"]
        if "melds" in raw:
            action["melds"] = raw["melds"]
        result = services.action_submit(
            game_id=game_id,
            player=player_for_user(user=request.user),
            expected_version=data.validated_data["version"],
            action=action,
            idempotency_key=key,
        )
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(result.body, status=result.status, headers=headers)


class _GameCommandApi(APIView):
    service = None

    def post(self, request, game_id: int):
        player = player_for_user(user=request.user)
        game = type(self).service(game_id=game_id, player=player)
        return Response(game_detail_dict(game, game.seat_of(player)))


def _command_schema(operation_id: str, summary: str):
    return extend_schema(
        operation_id=operation_id, request=None, summary=summary,
        responses={200: GameDetailSerializer, **_errors(401, 404, 409)},
    )


class InvitationAcceptApi(_GameCommandApi):
    service = staticmethod(services.invitation_accept)

    @_command_schema("invitation_accept", "Accept an invitation or an open challenge; the match starts.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class InvitationDeclineApi(_GameCommandApi):
    service = staticmethod(services.invitation_decline)

    @_command_schema("invitation_decline", "Decline an invitation addressed to you.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class InvitationAbortApi(_GameCommandApi):
    service = staticmethod(services.invitation_abort)

    @_command_schema("invitation_abort", "Withdraw your unanswered invitation or open challenge.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class GameResignApi(_GameCommandApi):
    service = staticmethod(services.game_resign)

    @_command_schema("game_resign", "Resign: your opponent wins the match.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class GameRoundsApi(APIView):
    @extend_schema(operation_id="game_rounds", responses={200: RoundSerializer(many=True), **_errors(401, 404)},
                   summary="Rounds of a game; results once each round has ended.")
    def get(self, request, game_id: int):
        game, _seat = selectors.game_get_for_history(game_id=game_id, player=player_for_user(user=request.user))
        return Response([round_dict(game, r) for r in selectors.rounds_list(game=game)])


class GameMovesApi(APIView):
    @extend_schema(
        operation_id="game_moves",
        parameters=[OpenApiParameter("round", OpenApiTypes.INT, description="Only this round's moves.")],
        responses={200: MoveSerializer(many=True), **_errors(400, 401, 404)},
        summary="Moves of a game, redacted for you while their round is in play.",
    )
    def get(self, request, game_id: int):
        game, seat = selectors.game_get_for_history(game_id=game_id, player=player_for_user(user=request.user))
        round_number = int_query_param(request, "round", default=None, minimum=1)
        moves = selectors.moves_list(game=game, round_number=round_number)
        return Response([move_dict(game, m, r, seat) for m, r in moves])


class GameExportApi(APIView):
    @extend_schema(operation_id="game_export", responses={200: ExportSerializer, **_errors(401, 404, 409)},
                   summary="A finished game as one JSON record the engine can replay.")
    def get(self, request, game_id: int):
        game, _seat = selectors.game_get_for_history(game_id=game_id, player=player_for_user(user=request.user))
        return Response(selectors.game_export(game=game))
