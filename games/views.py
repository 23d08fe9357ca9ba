"""API v1 game endpoints: one thin class per operation (validate, call one service/selector, render)."""
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status as http
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from notifications.live import game_key, live_wait
from okgin_project.errors import Conflict, NotFound
from okgin_project.pagination import KeysetPaginator, page_serializer, respond_with_etag
from okgin_project.params import (INT_MAX, idempotency_key_header, int_query_param, query_params_check,
                                  wait_query_param)
from okgin_project.schema import (
    ETAG,
    IDEMPOTENCY_KEY,
    IDEMPOTENT_REPLAYED,
    IF_NONE_MATCH,
    NOT_MODIFIED,
    WAIT,
    location_header,
    replayed_response,
)
from okgin_project.serializers import NoBodyMixin
from players.services import player_for_user

from . import fairness, ratings, selectors, services
from .idempotency import StoredResponse, run_idempotent
from .sweeps import deadlines_apply_for_player
from .filters import GAMES_FILTERS, MyGamesFilter, games_filter_parameters
from .models import Game, Move, PlayerRating, Round
from .presenters import game_detail_dict, game_summary_dict, move_dict, review_dict, round_dict
from .serializers import (
    ActionSubmitInputSerializer,
    ActionSubmitOutputSerializer,
    ErrorSerializer,
    ExportSerializer,
    GameCreateInputSerializer,
    GameDetailSerializer,
    GameReviewSerializer,
    GameSummarySerializer,
    LeaderboardEntrySerializer,
    MoveSerializer,
    RoundSerializer,
    VerifySerializer,
    action_submission,
)

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404, 409, 422, 429)}


def _errors(*codes):
    return {c: ERRORS[c] for c in codes}


class GameCreateApi(APIView):
    @extend_schema(
        operation_id="game_create",
        request=GameCreateInputSerializer,
        parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, location_header("the new game")],
        responses={201: GameDetailSerializer, **_errors(400, 401, 403, 404, 409, 422)},
        summary="Create a game against the AI, invite a named player, or post an open challenge.",
    )
    def post(self, request):
        player = player_for_user(user=request.user)

        def perform() -> StoredResponse:
            # Validated after the Idempotency-Key's lookup: a retry gets the first answer even if
            # the body would now be refused (a deploy in between), and a reused key is 422 whatever
            # is wrong with the new body.
            data = GameCreateInputSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            return self._create(request, player, data.validated_data)

        result = run_idempotent(request, player=player, operation="game_create", request=request.data,
                                perform=perform)
        location = reverse("game-detail", kwargs={"game_id": result.body["id"]}, request=request)
        return replayed_response(result.body, result, location=location)

    @staticmethod
    def _create(request, player, v) -> StoredResponse:
        game = services.game_create(
            creator=player,
            kind=v["kind"],
            opponent_name=v.get("opponent"),
            ai_level=v["ai_level"],
            rules=v.get("rules"),
            move_time_limit=v.get("move_time_limit"),
            time_bank=v.get("time_bank"),
            timeout_policy=v["timeout_policy"],
            auto_play_limit=v.get("auto_play_limit"),
            invitation_ttl=v.get("invitation_ttl"),
            decks=v.get("decks"),
            first_dealer=v.get("first_dealer"),
            rated=v.get("rated"),
            allow_preset_deal=request.user.is_staff,
        )
        game.refresh_from_db()
        return StoredResponse(status=http.HTTP_201_CREATED, body=game_detail_dict(game, 0))


GAMES_PAGES = KeysetPaginator("games", Game, {
    "-created_at": ("-created_at", "-id"), "created_at": ("created_at", "id"),
    "-updated_at": ("-updated_at", "-id"), "updated_at": ("updated_at", "id"),
})
LOBBY_PAGES = KeysetPaginator("lobby", Game, {"-created_at": ("-created_at", "-id")})
ROUNDS_PAGES = KeysetPaginator("rounds", Round, {"number": ("number",)}, default_limit=50, max_limit=100)
MOVES_PAGES = KeysetPaginator("moves", Move, {"seq": ("seq",)}, default_limit=100, max_limit=500)
GameSummaryPage = page_serializer("GameSummaryPage", GameSummarySerializer())
LEADERBOARD_PAGES = KeysetPaginator("leaderboard", PlayerRating, {"-rating": ("-rating", "-id")}, default_limit=50, max_limit=200)
LeaderboardPage = page_serializer("LeaderboardPage", LeaderboardEntrySerializer())
RoundPage = page_serializer("RoundPage", RoundSerializer())
MovePage = page_serializer("MovePage", MoveSerializer())


class MyGamesListApi(GenericAPIView):
    """My games, newest first by default, in keyset pages (okgin_project.pagination)."""

    filter_backends = [DjangoFilterBackend]
    filterset_class = MyGamesFilter

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # schema generation
            return Game.objects.none()
        return selectors.game_list_for_player(player=player_for_user(user=self.request.user))

    @extend_schema(operation_id="game_list_mine", parameters=[*GAMES_PAGES.parameters(ordering=True),
                                                             *games_filter_parameters(), IF_NONE_MATCH, ETAG],
                   responses={200: GameSummaryPage, 304: NOT_MODIFIED, 400: ERRORS[400]})
    def get(self, request):
        player = player_for_user(user=request.user)
        deadlines_apply_for_player(player=player)  # filters see expired turns applied, beat or not
        page = GAMES_PAGES.paginate(request, self.filter_queryset(self.get_queryset()), others=GAMES_FILTERS,
                                    parts=selectors.game_seats(player=player))
        return respond_with_etag(request, page.body([game_summary_dict(g, g.seat_of(player)) for g in page.rows]))


class LobbyListApi(APIView):
    """Open challenges any player may accept."""

    @extend_schema(operation_id="lobby_list", parameters=[*LOBBY_PAGES.parameters(), IF_NONE_MATCH, ETAG],
                   responses={200: GameSummaryPage, 304: NOT_MODIFIED})
    def get(self, request):
        player = player_for_user(user=request.user)
        deadlines_apply_for_player(player=player)
        page = LOBBY_PAGES.paginate(request, selectors.lobby_list(player=player))
        return respond_with_etag(request, page.body([game_summary_dict(g, g.seat_of(player)) for g in page.rows]))


def _etag(game, seat) -> str:
    return f'"g{game.pk}-v{game.version}-s{"x" if seat is None else seat}"'


class GameDetailApi(APIView):
    auth_cache = True  # the account may come from this process's cache (players.authentication)

    @extend_schema(
        operation_id="game_detail",
        parameters=[IF_NONE_MATCH, ETAG, WAIT],
        responses={200: GameDetailSerializer, 304: NOT_MODIFIED, **_errors(400, 401, 404)},
        summary="Your view of a game (engine player_view for your seat only), with version and ETag.",
    )
    def get(self, request, game_id: int):
        player = player_for_user(user=request.user)
        query_params_check(request, {"wait"})  # wait given twice is refused, not read as its last
        wait = wait_query_param(request)
        inm = request.headers.get("If-None-Match", "")
        tags = [t.strip().removeprefix("W/") for t in inm.split(",")]

        seen = {}

        def changed():
            game, seat = selectors.game_get_for_viewer(game_id=game_id, player=player)
            game = services.game_deadline_enforce(game=game)  # an expired turn ends on access, without beat
            seen["etag"] = etag = _etag(game, seat)
            return None if etag in tags or inm.strip() == "*" else (game, seat, etag)

        found = live_wait(game_key(game_id), timeout=wait, check=changed)
        if found is None:
            return Response(status=http.HTTP_304_NOT_MODIFIED, headers={"ETag": seen["etag"]})
        game, seat, etag = found
        return Response(game_detail_dict(game, seat), headers={"ETag": etag, "Cache-Control": "private, no-cache"})


class ActionSubmitApi(APIView):
    throttle_scope = "actions"
    auth_cache = True  # the account may come from this process's cache (players.authentication)

    @extend_schema(
        operation_id="action_submit",
        request=ActionSubmitInputSerializer,
        parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED],
        responses={200: ActionSubmitOutputSerializer, **_errors(400, 401, 404, 409, 422, 429)},
        summary="Submit an action (take/pass the upcard, draw, discard, knock) at a game version.",
    )
    def post(self, request, game_id: int):
        version, action = action_submission(request.data)
        key = idempotency_key_header(request)
        result = services.action_submit(
            game_id=game_id,
            player=player_for_user(user=request.user),
            expected_version=version,
            action=action,
            idempotency_key=key,
        )
        return replayed_response(result.body, result)


class _GameCommandApi(NoBodyMixin, APIView):
    service = None

    operation = ""

    def post(self, request, game_id: int):
        player = player_for_user(user=request.user)

        def perform() -> StoredResponse:
            game = type(self).service(game_id=game_id, player=player)
            return StoredResponse(status=200, body=game_detail_dict(game, game.seat_of(player)))

        result = run_idempotent(request, player=player, operation=self.operation, game_id=game_id, request={},
                                perform=perform)
        return replayed_response(result.body, result)


def _command_schema(operation_id: str, summary: str):
    return extend_schema(
        operation_id=operation_id, request=None, summary=summary,
        parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED],
        responses={200: GameDetailSerializer, **_errors(401, 404, 409, 422)},
    )


class InvitationAcceptApi(_GameCommandApi):
    operation = "invitation_accept"
    service = staticmethod(services.invitation_accept)

    @_command_schema("invitation_accept", "Accept an invitation or an open challenge; the match starts.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class InvitationDeclineApi(_GameCommandApi):
    operation = "invitation_decline"
    service = staticmethod(services.invitation_decline)

    @_command_schema("invitation_decline", "Decline an invitation addressed to you.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class InvitationAbortApi(_GameCommandApi):
    operation = "invitation_abort"
    service = staticmethod(services.invitation_abort)

    @_command_schema("invitation_abort", "Withdraw your unanswered invitation or open challenge.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class GameResignApi(_GameCommandApi):
    operation = "game_resign"
    service = staticmethod(services.game_resign)

    @_command_schema("game_resign", "Resign: your opponent wins the match.")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class GameRoundsApi(APIView):
    @extend_schema(operation_id="game_rounds", parameters=ROUNDS_PAGES.parameters(),
                   responses={200: RoundPage, **_errors(401, 404)},
                   summary="Rounds of a game in order; results once each round has ended.")
    def get(self, request, game_id: int):
        game, _seat = selectors.game_get_for_history(game_id=game_id, player=player_for_user(user=request.user))
        game = services.game_deadline_enforce(game=game)
        page = ROUNDS_PAGES.paginate(request, selectors.rounds_list(game=game))
        return Response(page.body([round_dict(game, r) for r in page.rows]))


class GameMovesApi(APIView):
    @extend_schema(
        operation_id="game_moves",
        parameters=[OpenApiParameter("round", {"type": "integer", "minimum": 1, "maximum": INT_MAX},
                                     description="Only this round's moves."), *MOVES_PAGES.parameters()],
        responses={200: MovePage, **_errors(400, 401, 404)},
        summary="Moves of a game, redacted for you while their round is in play.",
    )
    def get(self, request, game_id: int):
        game, seat = selectors.game_get_for_history(game_id=game_id, player=player_for_user(user=request.user))
        game = services.game_deadline_enforce(game=game)
        round_number = int_query_param(request, "round", default=None, minimum=1)
        page = MOVES_PAGES.paginate(request, selectors.moves_list(game=game, round_number=round_number),
                                    others=("round",))
        return Response(page.body([move_dict(game, m, m.round, seat) for m in page.rows]))


class GameExportApi(APIView):
    @extend_schema(operation_id="game_export", responses={200: ExportSerializer, **_errors(401, 404, 409)},
                   summary="A finished game as one JSON record the engine can replay.")
    def get(self, request, game_id: int):
        game, _seat = selectors.game_get_for_history(game_id=game_id, player=player_for_user(user=request.user))
        game = services.game_deadline_enforce(game=game)
        return Response(selectors.game_export(game=game))


class GameVerifyApi(APIView):
    @extend_schema(operation_id="game_verify", responses={200: VerifySerializer, **_errors(401, 404)},
                   summary="Check every round no longer in play: its deck commitment matches the revealed "
                   "deck and salt, and its moves replay from that deck to the recorded result.")
    def get(self, request, game_id: int):
        game, _seat = selectors.game_get_for_history(game_id=game_id, player=player_for_user(user=request.user))
        game = services.game_deadline_enforce(game=game)
        return Response(fairness.rounds_verify(game=game))


def _rematch_response(request, player, game_id: int, operation: str, perform) -> Response:
    """Run a rematch offer or accept idempotently; 201 with ``Location`` when a new game started."""
    result = run_idempotent(request, player=player, operation=operation, game_id=game_id, request={},
                            perform=perform)
    location = None
    if result.status == 201:
        location = reverse("game-detail", kwargs={"game_id": result.body["id"]}, request=request)
    return replayed_response(result.body, result, location=location)


def _started(game, player) -> StoredResponse:
    return StoredResponse(status=201, body=game_detail_dict(game, game.seat_of(player)))


class RematchOfferApi(NoBodyMixin, APIView):
    @extend_schema(operation_id="rematch_offer", request=None,
                   parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, location_header("the new game (201)")],
                   responses={200: GameDetailSerializer, 201: GameDetailSerializer, **_errors(401, 404, 409, 422)},
                   summary="Offer a rematch of a finished match (same rules and time control, seats swapped). "
                   "200: the finished game with the offer; 201: the new game, when the opponent is the AI (which "
                   "accepts at once). When your opponent already offered: 409 rematch_already_offered "
                   "(accept it with rematch/accept/).")
    def post(self, request, game_id: int):
        player = player_for_user(user=request.user)

        def perform() -> StoredResponse:
            game, rematch = services.rematch_offer(game_id=game_id, player=player)
            if rematch is not None:
                return _started(rematch, player)
            return StoredResponse(status=200, body=game_detail_dict(game, game.seat_of(player)))

        return _rematch_response(request, player, game_id, "rematch_offer", perform)


class RematchAcceptApi(NoBodyMixin, APIView):
    @extend_schema(operation_id="rematch_accept", request=None,
                   parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, location_header("the new game")],
                   responses={201: GameDetailSerializer, **_errors(401, 404, 409, 422)},
                   summary="Accept your opponent's rematch offer: the new game, started.")
    def post(self, request, game_id: int):
        player = player_for_user(user=request.user)
        return _rematch_response(request, player, game_id, "rematch_accept",
                                 lambda: _started(services.rematch_accept(game_id=game_id, player=player), player))


class RematchDeclineApi(_GameCommandApi):
    operation = "rematch_decline"
    service = staticmethod(services.rematch_decline)

    @_command_schema("rematch_decline", "Decline your opponent's rematch offer (final for this match).")
    def post(self, request, game_id: int):
        return super().post(request, game_id)


class LeaderboardApi(APIView):
    @extend_schema(operation_id="leaderboard",
                   parameters=[OpenApiParameter("variant", {"type": "string", "enum": ["oklahoma", "classic"]},
                                                OpenApiParameter.PATH), *LEADERBOARD_PAGES.parameters()],
                   responses={200: LeaderboardPage, **_errors(400, 401, 404)},
                   summary="Players of a variant (oklahoma, classic) with enough rated matches, highest Glicko-2 "
                   "rating first.")
    def get(self, request, variant: str):
        if variant not in ("oklahoma", "classic"):
            raise NotFound("No such variant (oklahoma, classic).")
        page = LEADERBOARD_PAGES.paginate(request, ratings.leaderboard_queryset(variant=variant))
        return Response(page.body([ratings.leaderboard_entry(r) for r in page.rows]))


REVIEW_LOCATION = OpenApiParameter("Location", {"type": "string", "format": "uri"}, OpenApiParameter.HEADER,
                                   response=["200", "202"], required=True,
                                   description="URL of the review: GET it until it answers 200.")


def _review_status(review) -> int:
    return http.HTTP_200_OK if review.status == "done" else http.HTTP_202_ACCEPTED


class GameReviewApi(NoBodyMixin, APIView):
    """Your review of a finished match: queued by POST, read by GET (docs/ai.md#game-review)."""

    @extend_schema(
        operation_id="review_request", request=None,
        parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, REVIEW_LOCATION],
        responses={200: GameReviewSerializer, 202: GameReviewSerializer, **_errors(401, 404, 409, 422)},
        summary="Ask for a review of your decisions in a finished match by the strong evaluator. 202: queued "
        "(or still running); 200: the review is ready. Asking again returns the existing review.",
    )
    def post(self, request, game_id: int):
        player = player_for_user(user=request.user)

        def perform() -> StoredResponse:
            review, _queued = services.review_request(game_id=game_id, player=player)
            return StoredResponse(status=_review_status(review), body=review_dict(review))

        result = run_idempotent(request, player=player, operation="review_request", game_id=game_id, request={},
                                perform=perform)
        location = reverse("game-review", kwargs={"game_id": game_id}, request=request)
        return replayed_response(result.body, result, location=location)

    @extend_schema(
        operation_id="review_get",
        responses={200: GameReviewSerializer, 202: GameReviewSerializer, **_errors(401, 404, 409)},
        summary="Your review of a finished match: 200 when ready, 202 with the progress while queued or "
        "running; 404 review_not_requested before a POST; 409 review_failed (POST again to retry).",
    )
    def get(self, request, game_id: int):
        review = services.review_get(game_id=game_id, player=player_for_user(user=request.user))
        if review.status == "failed":
            raise Conflict("The review failed (logged); POST to this URL again to retry.", code="review_failed")
        return Response(review_dict(review), status=_review_status(review))
