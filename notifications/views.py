"""API v1: the event feed (``events/``) and webhook endpoints (``webhooks/``)."""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status as http
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from games.idempotency import StoredResponse, run_idempotent
from okgin_project.timestamps import iso
from games.serializers import ErrorSerializer
from games.sweeps import deadlines_apply_for_player
from okgin_project.pagination import KeysetPaginator, page_serializer, respond_with_etag
from okgin_project.params import choice_query_param, wait_query_param
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
from players.services import player_for_user

from . import selectors, services
from .live import live_wait, player_key
from .models import DeliveryStatus, Event, WebhookDelivery, WebhookEndpoint
from .presenters import attempts_dict, event_dict
from .serializers import (
    DeliverySerializer,
    NotificationPageSerializer,
    WebhookCreatedSerializer,
    WebhookCreateInputSerializer,
    WebhookSerializer,
)

ERR = OpenApiResponse(ErrorSerializer)
EVENTS_PAGES = KeysetPaginator("events", Event, {"id": ("id",)}, default_limit=50, max_limit=200, from_end=True)
WEBHOOKS_PAGES = KeysetPaginator("webhooks", WebhookEndpoint, {"id": ("id",)})
DELIVERIES_PAGES = KeysetPaginator("deliveries", WebhookDelivery, {"-id": ("-id",)}, default_limit=50, max_limit=200)
WebhookPage = page_serializer("WebhookPage", WebhookSerializer())
DeliveryPage = page_serializer("DeliveryPage", DeliverySerializer())


class EventsListApi(APIView):
    @extend_schema(
        operation_id="events_list",
        parameters=[*EVENTS_PAGES.parameters(), IF_NONE_MATCH, ETAG, WAIT],
        responses={200: NotificationPageSerializer, 304: NOT_MODIFIED},
        summary="Your notifications, oldest first; without a cursor the latest page. Poll next_cursor for new "
        "ones (If-None-Match: 304 while nothing is new; or wait=<s> to be answered as soon as one comes); "
        "page back with prev_cursor while has_prev.",
    )
    def get(self, request):
        player = player_for_user(user=request.user)
        wait = wait_query_param(request)
        deadlines_apply_for_player(player=player)  # timeout/match_over events exist before the read
        seen = {}

        def page_if_any():
            seen["page"] = page = EVENTS_PAGES.paginate(request, selectors.events_list_for_player(player=player),
                                                        others=("wait",))
            return page if page.rows else None

        page = live_wait(player_key(player.pk), timeout=wait, check=page_if_any) or seen["page"]
        return respond_with_etag(request, page.body([event_dict(e) for e in page.rows]))


class EventsListNoSlashApi(EventsListApi):
    @extend_schema(exclude=True)
    def get(self, request):
        return super().get(request)


def webhook_dict(endpoint) -> dict:
    return {"id": endpoint.pk, "url": endpoint.url, "created_at": iso(endpoint.created_at)}


def delivery_dict(d) -> dict:
    return {**attempts_dict(d), "last_status_code": d.last_status_code}


class WebhookListCreateApi(APIView):
    @extend_schema(operation_id="webhook_list", parameters=WEBHOOKS_PAGES.parameters(),
                   responses={200: WebhookPage, 401: ERR},
                   summary="Your webhook endpoints, oldest first (secrets are never shown again).")
    def get(self, request):
        player = player_for_user(user=request.user)
        page = WEBHOOKS_PAGES.paginate(request, selectors.webhooks_list_for_player(player=player))
        return Response(page.body([webhook_dict(w) for w in page.rows]))

    @extend_schema(operation_id="webhook_create", request=WebhookCreateInputSerializer,
                   parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, location_header("the webhook")],
                   responses={201: WebhookCreatedSerializer, 400: ERR, 401: ERR, 409: ERR, 422: ERR},
                   summary="Register a URL to receive your events as signed POSTs; the secret is shown once "
                   "(and to a retry with the same Idempotency-Key).")
    def post(self, request):
        player = player_for_user(user=request.user)

        def perform() -> StoredResponse:
            # Validated after the Idempotency-Key's lookup (as game_create): a retry gets the first
            # answer, a reused key is 422 whatever is wrong with the new body.
            data = WebhookCreateInputSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            endpoint = services.webhook_create(player=player, url=data.validated_data["url"])
            return StoredResponse(status=http.HTTP_201_CREATED, body={**webhook_dict(endpoint), "secret": endpoint.secret})

        result = run_idempotent(request, player=player, operation="webhook_create", request=request.data,
                                perform=perform)
        location = reverse("webhook-detail", kwargs={"webhook_id": result.body["id"]}, request=request)
        return replayed_response(result.body, result, location=location)


class WebhookDeleteApi(APIView):
    @extend_schema(operation_id="webhook_detail", responses={200: WebhookSerializer, 401: ERR, 404: ERR},
                   summary="One of your webhook endpoints.")
    def get(self, request, webhook_id: int):
        endpoint = selectors.webhook_get_for_player(player=player_for_user(user=request.user), webhook_id=webhook_id)
        return Response(webhook_dict(endpoint))

    @extend_schema(operation_id="webhook_delete", responses={204: None, 401: ERR, 404: ERR},
                   summary="Delete one of your webhook endpoints.")
    def delete(self, request, webhook_id: int):
        services.webhook_delete(player=player_for_user(user=request.user), webhook_id=webhook_id)
        return Response(status=http.HTTP_204_NO_CONTENT)


class WebhookDeliveriesApi(APIView):
    @extend_schema(
        operation_id="webhook_deliveries",
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=DeliveryStatus.values),
            *DELIVERIES_PAGES.parameters(), IF_NONE_MATCH, ETAG,
        ],
        responses={200: DeliveryPage, 304: NOT_MODIFIED, 400: ERR, 401: ERR, 404: ERR},
        summary="Delivery status of one of your webhooks, newest first: pending, delivered or failed.",
    )
    def get(self, request, webhook_id: int):
        endpoint = selectors.webhook_get_for_player(player=player_for_user(user=request.user),
                                                     webhook_id=webhook_id)
        status = choice_query_param(request, "status", DeliveryStatus.values)
        page = DELIVERIES_PAGES.paginate(request, selectors.deliveries_list(endpoint=endpoint, status=status),
                                         others=("status",))
        return respond_with_etag(request, page.body([delivery_dict(d) for d in page.rows]))
