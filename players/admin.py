from django.contrib import admin

from .models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "is_ai", "ai_level", "user", "created_at")
    list_filter = ("is_ai", "ai_level")
    search_fields = ("name",)
    raw_id_fields = ("user",)
