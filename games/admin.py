"""Admin for games, rounds and moves. The move log is read-only (append-only by design)."""
from django.contrib import admin

from .models import Game, IdempotencyRecord, Move, Round


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class RoundInline(ReadOnlyInline):
    model = Round
    fields = ("number", "dealer", "knock_limit", "outcome", "knocker_seat", "winner_seat", "points")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "player0", "player1", "score0", "score1", "version")
    list_filter = ("status", "kind", "variant")
    search_fields = ("player0__name", "player1__name")
    raw_id_fields = ("player0", "player1")
    readonly_fields = ("version", "state", "preset_decks", "created_at", "updated_at")
    inlines = [RoundInline]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "number", "dealer", "outcome", "winner_seat", "points")
    list_filter = ("outcome",)
    raw_id_fields = ("game",)

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    """Read-only: moves are never added, changed or deleted by hand."""

    list_display = ("id", "game", "round", "seq", "seat", "action", "created_at")
    list_select_related = ("round",)
    raw_id_fields = ("game", "round")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ("id", "player", "game", "key", "response_status", "created_at")
    raw_id_fields = ("player", "game")

    def has_change_permission(self, request, obj=None):
        return False
