"""API v1 account endpoints: register, the current player, statistics."""
from django.conf import settings
from django.utils.crypto import salted_hmac
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status as http
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView
from rest_framework_simplejwt.serializers import TokenObtainPairSerializer
from rest_framework_simplejwt.views import TokenBlacklistView, TokenObtainPairView, TokenRefreshView

from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from rest_framework.renderers import JSONRenderer

from games.filters import GAMES_FILTERS, PLAYER_NAME_PATTERN, PlayerGamesFilter, games_filter_parameters
from games.idempotency import StoredResponse, run_idempotent
from games.models import Game
from games.ndjson import MEDIA_TYPE, NdjsonRenderer, ndjson_response
from okgin_project.timestamps import iso
from games.selectors import player_get_by_name, player_stats
from games.serializers import ErrorSerializer, PlayerStatsSerializer
from games.services import vacation_end, vacation_start, vacation_state
from games.services.vacation import next_credit_at as vacation_next_credit_at
from games.sweeps import deadlines_apply_for_player
from okgin_project.errors import ServiceError, field_errors
from okgin_project.params import query_params_check
from okgin_project.serializers import NoBodyMixin
from okgin_project.schema import IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, location_header, replayed_response

from .serializers import (
    AccountDeleteInputSerializer,
    LogoutInputSerializer,
    PasswordChangeInputSerializer,
    PlayerSerializer,
    RegisterInputSerializer,
    TokenObtainInputSerializer,
    TokenRefreshInputSerializer,
    VacationSerializer,
)
from .accounts import player_delete, player_password_change
from .models import AI_NAME_PREFIX
from .services import AI_LEVELS, player_ai_get_or_create, player_for_user, player_register
from .tokens import TokenPairSerializer

NAME_PARAMETER = OpenApiParameter("name", {"type": "string", "pattern": PLAYER_NAME_PATTERN}, OpenApiParameter.PATH,
                                  description="A player's name (any letter case).")

ERR = OpenApiResponse(ErrorSerializer)


def player_dict(player) -> dict:
    return {"name": player.name, "is_ai": player.is_ai, "ai_level": player.ai_level or None,
            "created_at": iso(player.created_at)}


class RegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_scope = "auth"

    @extend_schema(operation_id="register", request=RegisterInputSerializer,
                   parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED,
                               location_header("your account (me/, once you have a token)")],
                   responses={201: PlayerSerializer, 400: OpenApiResponse(ErrorSerializer),
                              409: OpenApiResponse(ErrorSerializer), 422: OpenApiResponse(ErrorSerializer),
                              429: OpenApiResponse(ErrorSerializer)})
    def post(self, request):
        data = RegisterInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        # What identifies the request for a retry: never the password itself, a keyed hash of it.
        identity = {"username": v["username"], "email": v.get("email", ""), "password": salted_hmac(
            "okgin.register.idempotency", v["password"]).hexdigest()}

        def perform() -> StoredResponse:
            return StoredResponse(status=http.HTTP_201_CREATED, body=player_dict(player_register(**v)))

        result = run_idempotent(request, player=None, operation="register", request=identity, perform=perform)
        return replayed_response(result.body, result, location=reverse("me", request=request))


class MeApi(APIView):
    @extend_schema(operation_id="me", responses={200: PlayerSerializer, 401: OpenApiResponse(ErrorSerializer)})
    def get(self, request):
        return Response(player_dict(player_for_user(user=request.user)))


class AccountDeleteApi(APIView):
    throttle_scope = "auth"

    @extend_schema(
        operation_id="account_delete", request=AccountDeleteInputSerializer,
        responses={204: None, 400: ERR, 401: ERR, 429: ERR},
        summary="Delete your account: active games are resigned, your devices, webhooks, events and "
        "tokens are deleted; your finished games stay in your opponents' histories under a "
        "neutral placeholder name. Confirm with your password.",
    )
    def post(self, request):
        data = AccountDeleteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player_delete(user=request.user, password=data.validated_data["password"])
        return Response(status=http.HTTP_204_NO_CONTENT)


class PasswordChangeApi(APIView):
    throttle_scope = "auth"

    @extend_schema(
        operation_id="password_change", request=PasswordChangeInputSerializer,
        responses={200: TokenPairSerializer, 400: ERR, 401: ERR, 429: ERR},
        summary="Change your password. Every token issued before stops working (on every "
        "device); the answer is a new token pair for this client.",
    )
    def post(self, request):
        data = PasswordChangeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(player_password_change(user=request.user, **data.validated_data))


class MyStatsApi(APIView):
    @extend_schema(operation_id="my_stats",
                   responses={200: PlayerStatsSerializer, 401: OpenApiResponse(ErrorSerializer)})
    def get(self, request):
        player = player_for_user(user=request.user)
        deadlines_apply_for_player(player=player)  # stats count expired turns, beat or not
        return Response(player_stats(player=player))


class PlayerStatsApi(APIView):
    @extend_schema(operation_id="player_stats", parameters=[NAME_PARAMETER],
                   responses={200: PlayerStatsSerializer, 400: OpenApiResponse(ErrorSerializer),
                              401: OpenApiResponse(ErrorSerializer), 404: OpenApiResponse(ErrorSerializer)})
    def get(self, request, name: str):
        lowered = name.lower()
        level = lowered[len(AI_NAME_PREFIX):]
        if lowered.startswith(AI_NAME_PREFIX) and level in AI_LEVELS:
            # an AI level has its published rating before anyone has played it
            player = player_ai_get_or_create(level=level)
        else:
            player = player_get_by_name(name=name)
        deadlines_apply_for_player(player=player)
        return Response(player_stats(player=player))


def vacation_dict(state) -> dict:
    """``GET /me/vacation/``'s body from a ``games.services.VacationState``."""
    day = 24 * 3600
    days_per_year = settings.OKGIN_VACATION_DAYS_PER_YEAR
    return {
        "on_vacation": state.on_vacation,
        "seconds_left": state.balance,
        "days_left": round(state.balance / day, 4),
        "whole_days_left": state.balance // day,
        "days_per_year": days_per_year,
        "monthly_credit_days": round(days_per_year / 12, 4),
        "next_credit_at": iso(vacation_next_credit_at(state.now)),
        "started_at": iso(state.started_at),
        "ends_at": iso(state.ends_at),
        "days_charged": state.days_charged,
    }


class VacationApi(APIView):
    @extend_schema(operation_id="vacation_get", responses={200: VacationSerializer, 401: ERR},
                   summary="Your vacation days and whether you are on vacation (a vacation that ran out is "
                   "ended first).")
    def get(self, request):
        player = player_for_user(user=request.user)
        deadlines_apply_for_player(player=player)  # a vacation that ran out ends before it is shown
        player.refresh_from_db()
        return Response(vacation_dict(vacation_state(player=player)))


class VacationStartApi(NoBodyMixin, APIView):
    @extend_schema(operation_id="vacation_start", request=None, parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED],
                   responses={200: VacationSerializer, 401: ERR, 409: ERR, 422: ERR},
                   summary="Go on vacation: the clocks of all your active games stop at once (your opponents "
                   "see paused_until and get vacation_started) until you turn it off or the whole days left "
                   "run out. 409 vacation_already_on, vacation_no_days (nothing changes).")
    def post(self, request):
        player = player_for_user(user=request.user)
        deadlines_apply_for_player(player=player)  # a turn that already ran out times out first
        result = run_idempotent(request, player=player, operation="vacation_start", request={}, perform=lambda: (
            StoredResponse(status=http.HTTP_200_OK, body=vacation_dict(vacation_start(player=player)))))
        return replayed_response(result.body, result)


class VacationEndApi(NoBodyMixin, APIView):
    @extend_schema(operation_id="vacation_end", request=None, parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED],
                   responses={200: VacationSerializer, 401: ERR, 409: ERR, 422: ERR},
                   summary="End your vacation: charges the whole days started (days_charged) and restarts each "
                   "game's clock with the time it had left. 409 vacation_not_on (nothing changes).")
    def post(self, request):
        player = player_for_user(user=request.user)
        result = run_idempotent(request, player=player, operation="vacation_end", request={}, perform=lambda: (
            StoredResponse(status=http.HTTP_200_OK, body=vacation_dict(vacation_end(player=player)))))
        return replayed_response(result.body, result)


class TokenObtainApi(TokenObtainPairView):
    """simplejwt's token pair view, rate limited per IP (``auth``)."""

    throttle_scope = "auth"
    serializer_class = TokenObtainInputSerializer

    @extend_schema(operation_id="token_obtain",
                   responses={200: TokenObtainPairSerializer, 400: OpenApiResponse(ErrorSerializer),
                              401: OpenApiResponse(ErrorSerializer), 429: OpenApiResponse(ErrorSerializer)},
                   summary="Log in: an access and a refresh JWT for a username and password.")
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


class TokenRefreshApi(TokenRefreshView):
    """simplejwt's refresh view with rotation, rate limited per IP (``auth``)."""

    throttle_scope = "auth"
    serializer_class = TokenRefreshInputSerializer

    @extend_schema(operation_id="token_refresh", request=TokenRefreshInputSerializer,
                   responses={200: TokenPairSerializer, 400: ERR, 401: ERR, 429: ERR},
                   summary="A new access JWT and a new refresh JWT for a refresh JWT; the refresh JWT "
                   "sent is revoked (rotation: keep the new one).")
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


class PlayerGamesNdjsonApi(APIView):
    """Every finished game of a player as newline-delimited JSON export records (streamed)."""

    renderer_classes = [JSONRenderer, NdjsonRenderer]

    @extend_schema(operation_id="player_games_ndjson",
                   parameters=[NAME_PARAMETER, *games_filter_parameters()],
                   responses={(200, MEDIA_TYPE): OpenApiResponse(
                       OpenApiTypes.STR, description="One export object (as games/{id}/export/) per line, "
                       "newest first."), 400: OpenApiResponse(ErrorSerializer), 401: OpenApiResponse(ErrorSerializer),
                       404: OpenApiResponse(ErrorSerializer)},
                   summary="A player's finished games, one export object per line (the games list's filters).")
    def get(self, request, name: str):
        query_params_check(request, {*GAMES_FILTERS, "format"})  # format: json or ndjson (DRF's override)
        player = player_get_by_name(name=name)
        deadlines_apply_for_player(player=player)  # a timed-out game is finished before it is listed
        games = Game.objects.filter(Q(player0=player) | Q(player1=player))
        filterset = PlayerGamesFilter(request.query_params, queryset=games, request=request, subject=player)
        if not filterset.is_valid():
            raise ServiceError("Invalid filter.", code="validation_error", detail=field_errors(filterset.errors))
        return ndjson_response(filterset.qs)


class LogoutApi(TokenBlacklistView):
    """simplejwt's blacklist view: revokes a refresh token (logout), rate limited per IP."""

    throttle_scope = "auth"
    serializer_class = LogoutInputSerializer

    @extend_schema(operation_id="logout", request=LogoutInputSerializer,
                   responses={204: None, 400: ERR, 401: ERR, 429: ERR},
                   summary="Log out: revoke a refresh JWT (its access JWTs expire on their own).")
    def post(self, request, *args, **kwargs):
        super().post(request, *args, **kwargs)
        return Response(status=http.HTTP_204_NO_CONTENT)
