"""Filters of "my games": a date-time that overflows once made UTC is the first or last instant (it
was a 500 on the embedded SQLite database, then a 400 for a date-time the schema allows)."""
import pytest
from rest_framework.test import APIRequestFactory

from games.filters import MyGamesFilter
from games.models import Game
from players.models import Player

EDGES = [("created_before", "0001-01-01T00:00:00+14:00"), ("created_after", "9999-12-31T23:59:59-14:00"),
         ("finished_before", "9999-12-31T23:59:59-14:00"), ("finished_after", "0001-01-01T00:00:00+14:00")]


@pytest.mark.django_db
@pytest.mark.parametrize("name,moment", EDGES)
def test_a_date_outside_utc_is_the_first_or_last_instant(alice, name, moment):
    """A valid RFC 3339 date-time outside UTC's range is the first (year 1 at +14:00) or last
    (9999 at -14:00) instant: a filter on it keeps everything or nothing, never a 400 or a 500."""
    from datetime import datetime, timezone

    request = APIRequestFactory().get("/api/v1/games/")
    request.user = Player.objects.get(name="alice").user
    f = MyGamesFilter(data={name: moment}, queryset=Game.objects.all(), request=request)
    assert f.is_valid()
    edge = datetime.min if moment.startswith("0001") else datetime.max
    assert f.form.cleaned_data[name] == edge.replace(tzinfo=timezone.utc)


@pytest.mark.django_db
@pytest.mark.parametrize("name,moment,kept", [
    ("created_before", "0001-01-01T00:00:00+14:00", 0), ("created_after", "0001-01-01T00:00:00+14:00", 1),
    ("created_after", "9999-12-31T23:59:59-14:00", 0), ("created_before", "9999-12-31T23:59:59-14:00", 1)])
def test_the_lists_take_a_date_outside_utc(alice, name, moment, kept):
    """The game created now is after the first instant and before the last one."""
    alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json")
    r = alice.get("/api/v1/games/", {name: moment})
    assert r.status_code == 200 and len(r.json()["results"]) == kept
    assert alice.get("/api/v1/players/alice/games.ndjson", {name: moment}).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("moment", ["2026-12-01", "2026-12-01T10:00:00", "2026-12-01 10:00:00Z",
                                    "2026-12-01T10:00Z", "20261201T100000Z", "yesterday",
                                    "\uff12\uff10\uff12\uff17-12-01T00:00:00Z",  # fullwidth digits
                                    "2026-12-01T00:00:00+00:60", "2026-12-01T00:00:00+24:00",
                                    "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-12-01T24:00:00Z",
                                    "2026-12-01T00:00:00.Z", "2026-12-01T00:00:00 00:00"])
def test_a_date_time_without_an_offset_or_not_rfc_3339_is_refused(alice, moment):
    """The schema says RFC 3339 date-time: a date alone or a local time (no offset) names no
    instant; 400 validation_error naming the filter, on the list and the NDJSON export."""
    r = alice.get("/api/v1/games/", {"created_after": moment})
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error", r.content
    assert list(r.json()["error"]["detail"]) == ["created_after"]
    r = alice.get("/api/v1/players/alice/games.ndjson", {"finished_before": moment})
    assert r.status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize("moment, kept", [("2000-01-01T00:00:00Z", 1), ("2000-01-01t00:00:00.5+05:30", 1),
                                          ("9000-01-01T00:00:00z", 0), ("9000-01-01T00:00:00.123456-01:00", 0),
                                          ("2000-01-01T00:00:00.123456789Z", 1),  # Go's RFC3339Nano, Java
                                          ("2016-12-31T23:59:60Z", 1), ("0000-01-01T00:00:00Z", 1),
                                          ("9999-12-31T23:59:59.999999-23:59", 0)])
def test_rfc_3339_date_times_are_taken(alice, moment, kept):
    alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json")
    r = alice.get("/api/v1/games/", {"created_after": moment})
    assert r.status_code == 200 and len(r.json()["results"]) == kept, r.content


@pytest.mark.parametrize("text, instant", [
    ("2026-12-01T10:00:00Z", (2026, 12, 1, 10, 0, 0, 0)),
    ("2026-12-01t10:00:00.5+05:30", (2026, 12, 1, 4, 30, 0, 500000)),
    ("2026-12-01T00:15:00-01:45", (2026, 12, 1, 2, 0, 0, 0)),
    ("2026-12-01T10:00:00.1234567891z", (2026, 12, 1, 10, 0, 0, 123456)),
    ("2016-12-31T23:59:60Z", (2016, 12, 31, 23, 59, 59, 999999)),  # a leap second: its last microsecond
    ("0000-06-01T00:00:00Z", (1, 1, 1, 0, 0, 0, 0)),  # before the first instant there is
    ("9999-12-31T23:59:59-00:01", (9999, 12, 31, 23, 59, 59, 999999)),  # after the last
])
def test_rfc3339_instant_worked_examples(text, instant):
    from datetime import datetime, timezone

    from games.filters import rfc3339_instant

    assert rfc3339_instant(text) == datetime(*instant, tzinfo=timezone.utc)
