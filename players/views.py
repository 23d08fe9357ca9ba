"""API v1 account endpoints: register, the current player, statistics."""
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status as http
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework_simplejwt.serializers import TokenObtainPairSerializer, TokenRefreshSerializer
from rest_framework_simplejwt.views import TokenObtainPairView, TokenRefreshView

from games.presenters import iso
from games.selectors import player_get_by_name, player_stats
from games.serializers import ErrorSerializer, PlayerStatsSerializer

from .serializers import PlayerSerializer, RegisterInputSerializer
from .services import player_for_user, player_register


def player_dict(player) -> dict:
    return {"name": player.name, "is_ai": player.is_ai, "ai_level": player.ai_level,
            "created_at": iso(player.created_at)}


class RegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_scope = "auth"

    @extend_schema(operation_id="register", request=RegisterInputSerializer,
                   responses={201: PlayerSerializer, 400: OpenApiResponse(ErrorSerializer),
                              409: OpenApiResponse(ErrorSerializer), 429: OpenApiResponse(ErrorSerializer)})
    def post(self, request):
        data = RegisterInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_register(**data.validated_data)
        return Response(player_dict(player), status=http.HTTP_201_CREATED)


class MeApi(APIView):
    @extend_schema(operation_id="me", responses={200: PlayerSerializer, 401: OpenApiResponse(ErrorSerializer)})
    def get(self, request):
        return Response(player_dict(player_for_user(user=request.user)))


class MyStatsApi(APIView):
    @extend_schema(operation_id="my_stats",
                   responses={200: PlayerStatsSerializer, 401: OpenApiResponse(ErrorSerializer)})
    def get(self, request):
        return Response(player_stats(player=player_for_user(user=request.user)))


class PlayerStatsApi(APIView):
    @extend_schema(operation_id="player_stats",
                   responses={200: PlayerStatsSerializer, 400: OpenApiResponse(ErrorSerializer),
                              401: OpenApiResponse(ErrorSerializer), 404: OpenApiResponse(ErrorSerializer)})
    def get(self, request, name: str):
        return Response(player_stats(player=player_get_by_name(name=name)))


class TokenObtainApi(TokenObtainPairView):
    """simplejwt's token pair view, rate limited per IP (``auth``)."""

    throttle_scope = "auth"

    @extend_schema(operation_id="token_obtain",
                   responses={200: TokenObtainPairSerializer, 400: OpenApiResponse(ErrorSerializer),
                              401: OpenApiResponse(ErrorSerializer), 429: OpenApiResponse(ErrorSerializer)},
                   summary="Log in: an access and a refresh JWT for a username and password.")
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


class TokenRefreshApi(TokenRefreshView):
    """simplejwt's refresh view, rate limited per IP (``auth``)."""

    throttle_scope = "auth"

    @extend_schema(operation_id="token_refresh",
                   responses={200: TokenRefreshSerializer, 400: OpenApiResponse(ErrorSerializer),
                              401: OpenApiResponse(ErrorSerializer), 429: OpenApiResponse(ErrorSerializer)},
                   summary="A new access JWT for a refresh JWT.")
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)
