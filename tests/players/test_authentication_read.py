"""players/authentication.py's ``_user_read``: the user with its player by SQL written once equals
the ORM's ``select_related("player")`` read, field for field, and fails alike."""
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from players.authentication import _user_read
from tests.games.factories import player_make

pytestmark = pytest.mark.django_db


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def _no_queries(execute, sql, params, many, context):
    raise AssertionError(f"query: {sql}")


def test_the_user_and_its_player_equal_the_orm_read():
    player = player_make("dora")
    orm = get_user_model().objects.select_related("player").get(pk=player.user_id)
    read = _user_read(str(player.user_id))  # the token's claim is a string
    assert _fields(read) == _fields(orm) and read.last_login is None and read.date_joined.tzinfo is not None
    with connection.execute_wrapper(_no_queries):  # the player came with the user, and points back to it
        assert _fields(read.player) == _fields(orm.player)
        assert read.player.user is read


def test_a_user_without_a_player_or_no_user():
    staff = get_user_model().objects.create_user(username="root", password="x")
    read = _user_read(staff.pk)
    assert _fields(read) == _fields(staff)
    with connection.execute_wrapper(_no_queries), pytest.raises(get_user_model().player.RelatedObjectDoesNotExist):
        read.player
    for missing in (staff.pk + 1000, str(2**31)):  # (the second too large for the column: the ORM finds nothing)
        with pytest.raises(get_user_model().DoesNotExist):
            _user_read(missing)
