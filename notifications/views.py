"""API v1: the event feed (``events/``) and webhook endpoints (``webhooks/``)."""
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status as http
from rest_framework.response import Response
from rest_framework.views import APIView

from games.presenters import iso
from games.serializers import ErrorSerializer
from okgin_project.errors import ServiceError
from okgin_project.params import int_query_param
from players.services import player_for_user

from . import selectors, services
from .models import DeliveryStatus
from .serializers import (
    DeliverySerializer,
    NotificationPageSerializer,
    WebhookCreatedSerializer,
    WebhookCreateInputSerializer,
    WebhookSerializer,
)

ERR = OpenApiResponse(ErrorSerializer)
EVENTS_PAGE_DEFAULT, EVENTS_PAGE_MAX = 50, 200


_int_param = int_query_param


class EventsListApi(APIView):
    @extend_schema(
        operation_id="events_list",
        parameters=[
            OpenApiParameter("after", OpenApiTypes.INT, description="Cursor: events after this id. "
                             "Without it, the latest events."),
            OpenApiParameter("limit", OpenApiTypes.INT, description=f"At most this many (1-{EVENTS_PAGE_MAX}, "
                             f"default {EVENTS_PAGE_DEFAULT})."),
        ],
        responses={200: NotificationPageSerializer, 400: ERR, 401: ERR},
        summary="Your notifications, newest last; catch up with ?after=<cursor> until has_more is false.",
    )
    def get(self, request):
        after = _int_param(request, "after", default=None, minimum=0)
        limit = _int_param(request, "limit", default=EVENTS_PAGE_DEFAULT, minimum=1, maximum=EVENTS_PAGE_MAX)
        events, has_more = selectors.events_list_for_player(
            player=player_for_user(user=request.user), after=after, limit=limit
        )
        cursor = events[-1].pk if events else after
        return Response({"results": [services.event_dict(e) for e in events], "cursor": cursor,
                         "has_more": has_more})


class EventsListNoSlashApi(EventsListApi):
    @extend_schema(exclude=True)
    def get(self, request):
        return super().get(request)


def webhook_dict(endpoint) -> dict:
    return {"id": endpoint.pk, "url": endpoint.url, "created_at": iso(endpoint.created_at)}


def delivery_dict(d) -> dict:
    return {
        "id": d.pk, "event_id": d.event_id, "event_kind": d.event.kind, "status": d.status,
        "attempts": d.attempts, "last_status_code": d.last_status_code, "last_error": d.last_error,
        "next_attempt_at": iso(d.next_attempt_at), "delivered_at": iso(d.delivered_at),
        "created_at": iso(d.created_at),
    }


class WebhookListCreateApi(APIView):
    @extend_schema(operation_id="webhook_list", responses={200: WebhookSerializer(many=True), 401: ERR},
                   summary="Your webhook endpoints (secrets are never shown again).")
    def get(self, request):
        player = player_for_user(user=request.user)
        return Response([webhook_dict(w) for w in selectors.webhooks_list_for_player(player=player)])

    @extend_schema(operation_id="webhook_create", request=WebhookCreateInputSerializer,
                   responses={201: WebhookCreatedSerializer, 400: ERR, 401: ERR, 409: ERR},
                   summary="Register a URL to receive your events as signed POSTs; the secret is shown once.")
    def post(self, request):
        data = WebhookCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint = services.webhook_create(player=player_for_user(user=request.user), url=data.validated_data["url"])
        return Response({**webhook_dict(endpoint), "secret": endpoint.secret}, status=http.HTTP_201_CREATED)


class WebhookDeleteApi(APIView):
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
            OpenApiParameter("limit", OpenApiTypes.INT, description="1-200, default 50."),
        ],
        responses={200: DeliverySerializer(many=True), 400: ERR, 401: ERR, 404: ERR},
        summary="Delivery status of one of your webhooks, newest first: pending, delivered or failed.",
    )
    def get(self, request, webhook_id: int):
        endpoint = selectors.webhook_get_for_player(player=player_for_user(user=request.user),
                                                     webhook_id=webhook_id)
        status = request.query_params.get("status") or None
        if status is not None and status not in DeliveryStatus.values:
            raise ServiceError("status must be pending, delivered or failed.", code="validation_error")
        limit = _int_param(request, "limit", default=50, minimum=1, maximum=200)
        return Response([delivery_dict(d) for d in selectors.deliveries_list(endpoint=endpoint, status=status,
                                                                             limit=limit)])
