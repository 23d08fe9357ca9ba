"""Filters of "my games" (django-filter). Filters that depend on the viewer read ``request.user``."""
import django_filters
from django.db.models import Q

from players.selectors import player_find_by_name

from .models import Game, GameStatus


class MyGamesFilter(django_filters.FilterSet):
    """status, opponent (name), result (won/lost), variant, created/finished date ranges, my_turn."""

    status = django_filters.ChoiceFilter(choices=GameStatus.choices)
    variant = django_filters.ChoiceFilter(choices=(("oklahoma", "oklahoma"), ("classic", "classic")))
    opponent = django_filters.CharFilter(method="filter_opponent", help_text="Opponent's name.")
    result = django_filters.ChoiceFilter(
        choices=(("won", "won"), ("lost", "lost")), method="filter_result",
        help_text="Finished matches you won or lost.",
    )
    my_turn = django_filters.BooleanFilter(method="filter_my_turn", help_text="Active games waiting for you.")
    created_after = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = django_filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")
    finished_after = django_filters.IsoDateTimeFilter(field_name="finished_at", lookup_expr="gte")
    finished_before = django_filters.IsoDateTimeFilter(field_name="finished_at", lookup_expr="lt")

    class Meta:
        model = Game
        fields = ["status", "variant"]

    @property
    def _player(self):
        return self.request.user.player

    def filter_opponent(self, queryset, name, value):
        me = self._player
        other = player_find_by_name(name=value)
        if other is None:
            return queryset.none()
        return queryset.filter(Q(player0=me, player1=other) | Q(player1=me, player0=other))

    def filter_result(self, queryset, name, value):
        me = self._player
        won = Q(player0=me, winner_seat=0) | Q(player1=me, winner_seat=1)
        queryset = queryset.filter(status=GameStatus.FINISHED, winner_seat__isnull=False)
        return queryset.filter(won) if value == "won" else queryset.exclude(won)

    def filter_my_turn(self, queryset, name, value):
        me = self._player
        mine = Q(status=GameStatus.ACTIVE) & (Q(player0=me, to_act_seat=0) | Q(player1=me, to_act_seat=1))
        return queryset.filter(mine) if value else queryset.exclude(mine)
