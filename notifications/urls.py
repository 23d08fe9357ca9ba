from django.urls import path

from . import views

urlpatterns = [
    path("events/", views.EventsListApi.as_view(), name="event-list"),
    path("events", views.EventsListNoSlashApi.as_view()),
    path("webhooks/", views.WebhookListCreateApi.as_view(), name="webhook-list"),
    path("webhooks/<int:webhook_id>/", views.WebhookDeleteApi.as_view(), name="webhook-detail"),
    path("webhooks/<int:webhook_id>/deliveries/", views.WebhookDeliveriesApi.as_view(), name="webhook-deliveries"),
]
