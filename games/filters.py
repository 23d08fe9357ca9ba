"""Filters of "my games" (django-filter). Filters that depend on the viewer read ``request.user``."""
import re
from datetime import datetime, timedelta, timezone

import django_filters
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from drf_spectacular.utils import OpenApiParameter
from django.db.models import Q
from django_filters.fields import IsoDateTimeField

from okgin_project.serializers import FIELD_INVALID
from players.selectors import player_find_by_name

from .models import Game, GameStatus


# RFC 3339's date-time (section 5.6; the schema's format "date-time"): a full date, a time with any
# number of fraction digits, and Z or an offset. ASCII digits only.
RFC3339_DATE_TIME = re.compile(
    r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})[Tt]"
    r"(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})(?:\.(?P<fraction>[0-9]{1,64}))?"
    r"(?:[Zz]|(?P<sign>[+-])(?P<offset_hour>[0-9]{2}):(?P<offset_minute>[0-9]{2}))")
_FIRST, _LAST = datetime.min.replace(tzinfo=timezone.utc), datetime.max.replace(tzinfo=timezone.utc)


def rfc3339_instant(text: str) -> datetime | None:
    """The instant (an aware ``datetime`` in UTC) an RFC 3339 date-time names, or None when
    ``text`` is not one (a date alone, no offset, a space for ``T``, month 13, February 30, hour 24,
    an offset beyond 23:59, non-ASCII digits). Fractions are cut to microseconds; a leap second
    (``:60``) is the last microsecond before the next minute; an instant outside what ``datetime``
    holds (year 0000, ``0001-01-01T00:00:00+14:00``, ``9999-12-31T23:59:59-14:00``) is the first or
    last instant there is."""
    m = RFC3339_DATE_TIME.fullmatch(text)
    if m is None:
        return None
    year, second = int(m["year"]), int(m["second"])
    offset = timedelta(0)
    if m["sign"]:
        oh, om = int(m["offset_hour"]), int(m["offset_minute"])
        if oh > 23 or om > 59:
            return None
        offset = timedelta(hours=oh, minutes=om) * (1 if m["sign"] == "+" else -1)
    micro = int((m["fraction"] or "0")[:6].ljust(6, "0"))
    if second == 60:
        second, micro = 59, 999999
    try:
        local = datetime(max(year, 1), int(m["month"]), int(m["day"]), int(m["hour"]), int(m["minute"]), second,
                         micro, tzinfo=timezone.utc)
    except ValueError:
        return None
    if year == 0:
        return _FIRST
    try:
        return local - offset
    except OverflowError:
        return _FIRST if offset > timedelta(0) else _LAST


class UtcIsoDateTimeField(IsoDateTimeField):
    """An RFC 3339 date-time as an instant in UTC (``rfc3339_instant``). Anything else, a date
    alone or a time without an offset included (``2026-12-01``, ``2026-12-01T10:00:00``: which
    instant is meant depends on a time zone the request does not say), is refused, 400
    ``validation_error`` (it was read in the server's zone). A valid date-time (the schema's
    format) is never refused: one that does not exist in UTC is the first or last instant there
    is, so SQLite's adapter never overflows (it answered 500)."""

    default_error_messages = {"rfc3339": "Enter an RFC 3339 date-time with an offset, e.g. 2026-12-01T00:00:00Z."}

    def to_python(self, value):
        if value in self.empty_values:
            return None
        instant = rfc3339_instant(value) if isinstance(value, str) else None
        if instant is None:
            raise ValidationError(self.error_messages["rfc3339"], code=FIELD_INVALID)
        return instant


PLAYER_NAME_PATTERN = r"^[A-Za-z0-9_.-]{3,30}$"  # a person's username or an AI's ai-<level>


class StrictBooleanFilter(django_filters.ChoiceFilter):
    """A boolean filter that takes exactly ``true`` or ``false`` (django-filter's BooleanFilter
    ignores anything else silently: the whole list instead of a 400)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, choices=(("true", "true"), ("false", "false")), **kwargs)

    @staticmethod
    def truth(value) -> bool:
        """The boolean of a cleaned value (``"true"`` or ``"false"``)."""
        return value is True or value == "true"


class UtcIsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    """``IsoDateTimeFilter`` whose value must exist in UTC (``UtcIsoDateTimeField``)."""

    field_class = UtcIsoDateTimeField


class MyGamesFilter(django_filters.FilterSet):
    """status, opponent (name), result (won/lost), variant, created/finished date ranges, my_turn."""

    status = django_filters.ChoiceFilter(choices=GameStatus.choices)
    variant = django_filters.ChoiceFilter(choices=(("oklahoma", "oklahoma"), ("classic", "classic")))
    opponent = django_filters.CharFilter(method="filter_opponent", help_text="Opponent's name.",
                                         validators=[RegexValidator(PLAYER_NAME_PATTERN)])
    result = django_filters.ChoiceFilter(
        choices=(("won", "won"), ("lost", "lost")), method="filter_result",
        help_text="Finished matches you won or lost.",
    )
    my_turn = StrictBooleanFilter(method="filter_my_turn", help_text="Active games waiting for you.")
    created_after = UtcIsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = UtcIsoDateTimeFilter(field_name="created_at", lookup_expr="lt")
    finished_after = UtcIsoDateTimeFilter(field_name="finished_at", lookup_expr="gte")
    finished_before = UtcIsoDateTimeFilter(field_name="finished_at", lookup_expr="lt")

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
        return queryset.filter(mine) if StrictBooleanFilter.truth(value) else queryset.exclude(mine)


class PlayerGamesFilter(MyGamesFilter):
    """The games list's filters for another player's history (``games.ndjson``): ``opponent`` and
    ``result`` are relative to ``subject`` (the player whose games these are), not the reader."""

    def __init__(self, *args, subject, **kwargs):
        super().__init__(*args, **kwargs)
        self.subject = subject

    @property
    def _player(self):
        return self.subject


GAMES_FILTERS = ("status", "variant", "opponent", "result", "my_turn", "created_after", "created_before",
                 "finished_after", "finished_before")


def games_filter_parameters(*, my_turn: bool = True) -> list[OpenApiParameter]:
    """The OpenAPI query parameters of the filters above (``my_turn`` only on your own list)."""
    instant = {"type": "string", "format": "date-time"}
    params = [
        OpenApiParameter("status", {"type": "string", "enum": list(GameStatus.values)}),
        OpenApiParameter("variant", {"type": "string", "enum": ["oklahoma", "classic"]}),
        OpenApiParameter("opponent", {"type": "string", "pattern": PLAYER_NAME_PATTERN},
                         description="Games against this player (name, any letter case)."),
        OpenApiParameter("result", {"type": "string", "enum": ["won", "lost"]},
                         description="Finished matches won or lost (by you; in games.ndjson by that player)."),
        OpenApiParameter("my_turn", {"type": "boolean"}, description="Active games waiting for you (true) or not."),
        OpenApiParameter("created_after", instant, description="Created at or after (RFC 3339)."),
        OpenApiParameter("created_before", instant, description="Created before."),
        OpenApiParameter("finished_after", instant, description="Finished at or after."),
        OpenApiParameter("finished_before", instant, description="Finished before."),
    ]
    return params if my_turn else [p for p in params if p.name != "my_turn"]
