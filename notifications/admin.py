"""Admin for the event feed and webhooks (read-only: written by the services only)."""
from django.contrib import admin

from .models import Event, WebhookDelivery, WebhookEndpoint


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "kind", "game", "created_at")
    list_filter = ("kind",)
    raw_id_fields = ("player", "game")
    readonly_fields = ("player", "kind", "game", "data", "created_at")


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "url", "created_at")
    raw_id_fields = ("player",)
    exclude = ("secret",)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "endpoint", "event", "status", "attempts", "last_status_code", "updated_at")
    list_filter = ("status",)
    raw_id_fields = ("endpoint", "event")
    readonly_fields = ("attempts", "last_status_code", "last_error", "delivered_at")
