from django.urls import path

from . import push_views, views

urlpatterns = [
    path("events/", views.EventsListApi.as_view(), name="event-list"),
    path("events", views.EventsListNoSlashApi.as_view()),
    path("devices/", push_views.DeviceListCreateApi.as_view(), name="device-list"),
    path("devices/<str:device_id>/", push_views.DeviceDeleteApi.as_view(), name="device-detail"),
    path("devices/<str:device_id>/pushes/", push_views.DevicePushesApi.as_view(), name="device-pushes"),
    path("me/push-settings/", push_views.PushSettingsApi.as_view(), name="push-settings"),
    path("webhooks/", views.WebhookListCreateApi.as_view(), name="webhook-list"),
    path("webhooks/<int:webhook_id>/", views.WebhookDeleteApi.as_view(), name="webhook-detail"),
    path("webhooks/<int:webhook_id>/deliveries/", views.WebhookDeliveriesApi.as_view(), name="webhook-deliveries"),
]
