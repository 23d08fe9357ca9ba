"""API v1: push notification devices (``devices/``), their deliveries, and push preferences
(``me/push-settings/``). One thin class per operation (validate, call one service, render)."""
from datetime import datetime, timezone

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status as http
from rest_framework.response import Response
from rest_framework.views import APIView

from okgin_project.timestamps import iso
from games.serializers import ErrorSerializer
from okgin_project.pagination import KeysetPaginator, page_serializer, paginate_rows
from okgin_project.params import choice_query_param
from players.services import player_for_user

from . import push
from .models import PushDelivery, PushStatus
from .presenters import attempts_dict
from .serializers import (
    DEVICE_REGISTER_SCHEMA,
    DeviceRegisterInputSerializer,
    DeviceSerializer,
    PushDeliverySerializer,
    PushSettingsSerializer,
    PushSettingsUpdateInputSerializer,
)

ERR = OpenApiResponse(ErrorSerializer)
DEVICES_PAGES = KeysetPaginator("devices", None, {"date_created": (datetime, int, int)})
DevicePage = page_serializer("DevicePage", DeviceSerializer())
PUSHES_PAGES = KeysetPaginator("pushes", PushDelivery, {"-id": ("-id",)}, default_limit=50, max_limit=200)
PushDeliveryPage = page_serializer("PushDeliveryPage", PushDeliverySerializer())
DEVICE_ID = OpenApiParameter("device_id", {"type": "string", "pattern": push.DEVICE_REF_PATTERN},
                             OpenApiParameter.PATH, description='"<platform>-<number>", e.g. "fcm-3".')


def device_dict(platform: str, device) -> dict:
    return {"id": push.device_ref(platform, device), "platform": platform, "registration_id": device.registration_id,
            "name": device.name or "", "active": device.active, "created_at": iso(device.date_created)}


def push_settings_dict(player, row) -> dict:
    quiet = None
    if row.quiet_start is not None:
        quiet = {"start": row.quiet_start.isoformat(), "end": row.quiet_end.isoformat()}
    return {"kinds": list(row.kinds), "time_zone": player.time_zone, "quiet_hours": quiet,
            "deadline_near_in_quiet_hours": row.deadline_near_in_quiet_hours}


def _device_key(platform_device) -> tuple:
    """A device's place in the devices list: registered at, platform (its index), id."""
    platform, device = platform_device
    return (device.date_created or datetime(1970, 1, 1, tzinfo=timezone.utc), push.PLATFORMS.index(platform), device.pk)


class DeviceListCreateApi(APIView):
    @extend_schema(operation_id="device_list", parameters=DEVICES_PAGES.parameters(),
                   responses={200: DevicePage, 400: ERR, 401: ERR},
                   summary="Your devices registered for push notifications, oldest first.")
    def get(self, request):
        player = player_for_user(user=request.user)
        rows = sorted(push.devices_list(player=player), key=_device_key)
        page = paginate_rows(DEVICES_PAGES, request, rows, _device_key)
        return Response(page.body([device_dict(p, d) for p, d in page.rows]))

    @extend_schema(operation_id="device_register", request=DEVICE_REGISTER_SCHEMA,
                   responses={200: DeviceSerializer, 201: DeviceSerializer, 400: ERR, 401: ERR, 409: ERR},
                   summary="Register a device for push notifications (201; 200 when this registration id "
                   "was known: it is updated, and moved to you if another account had it).")
    def post(self, request):
        data = DeviceRegisterInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        platform, device, created = push.device_register(
            player=player_for_user(user=request.user), platform=v["platform"], registration_id=v["registration_id"],
            name=v.get("name", ""), keys=v.get("keys"), browser=v.get("browser"))
        return Response(device_dict(platform, device), status=http.HTTP_201_CREATED if created else http.HTTP_200_OK)


class DeviceDeleteApi(APIView):
    @extend_schema(operation_id="device_remove", parameters=[DEVICE_ID], responses={204: None, 401: ERR, 404: ERR},
                   summary="Remove one of your devices (no more pushes to it).")
    def delete(self, request, device_id: str):
        push.device_remove(player=player_for_user(user=request.user), ref=device_id)
        return Response(status=http.HTTP_204_NO_CONTENT)


class DevicePushesApi(APIView):
    @extend_schema(
        operation_id="device_pushes",
        parameters=[DEVICE_ID, OpenApiParameter("status", OpenApiTypes.STR, enum=PushStatus.values),
                    *PUSHES_PAGES.parameters()],
        responses={200: PushDeliveryPage, 400: ERR, 401: ERR, 404: ERR},
        summary="Pushes to one of your devices, newest first: pending, held (quiet hours), delivered or failed.",
    )
    def get(self, request, device_id: str):
        player = player_for_user(user=request.user)
        platform, device = push.device_get(player=player, ref=device_id)
        status = choice_query_param(request, "status", PushStatus.values)
        rows = PushDelivery.objects.filter(**{f"{platform}_device": device}, player=player).select_related("event")
        if status:
            rows = rows.filter(status=status)
        page = PUSHES_PAGES.paginate(request, rows, others=("status",))
        return Response(page.body([attempts_dict(d) for d in page.rows]))


class PushSettingsApi(APIView):
    @extend_schema(operation_id="push_settings", responses={200: PushSettingsSerializer, 401: ERR},
                   summary="Which events are pushed to your devices, your time zone and quiet hours.")
    def get(self, request):
        player = player_for_user(user=request.user)
        return Response(push_settings_dict(player, push.push_settings_of(player)))

    @extend_schema(operation_id="push_settings_update", request=PushSettingsUpdateInputSerializer,
                   responses={200: PushSettingsSerializer, 400: ERR, 401: ERR},
                   summary="Change any of: kinds pushed, time_zone (IANA), quiet_hours (null: none), "
                   "deadline_near_in_quiet_hours.")
    def patch(self, request):
        data = PushSettingsUpdateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_for_user(user=request.user)
        row = push.push_settings_update(player=player, **data.validated_data)
        return Response(push_settings_dict(player, row))
