"""Player names are unique regardless of letter case (in the database too), the ``ai-`` prefix is
reserved in any case, and names are looked up case-insensitively and exactly."""
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from players.models import Player
from players.services import player_register
from tests.helpers import assert_error, register


def _counts():
    return Player.objects.count(), get_user_model().objects.count()


@pytest.mark.django_db
@pytest.mark.parametrize("variant", ["zed", "ZED", "zEd"])
@pytest.mark.error_code("username_taken")
def test_a_name_in_another_case_is_taken_and_nothing_is_written(anon, variant):
    register(anon, "Zed")
    before = _counts()
    r = anon.post("/api/v1/auth/register/", {"username": variant, "password": "correct-horse-42"}, format="json")
    assert assert_error(r, "username_taken")["message"] == "This username is taken."
    assert _counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["AI-strong", "Ai-simple", "aI-anything", "ai-x1"])
def test_the_ai_prefix_is_reserved_in_any_case(anon, name):
    before = _counts()
    r = anon.post("/api/v1/auth/register/", {"username": name, "password": "correct-horse-42"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    assert _counts() == before
    # The API's serializer refuses the name first (its pattern); the service refuses it too, for
    # callers other than the API, with its own message.
    with pytest.raises(Exception) as exc:
        player_register(username=name, password="correct-horse-42")
    assert getattr(exc.value, "code", None) == "validation_error"
    assert exc.value.message == "Names starting with 'ai-' are reserved for AI players."


@pytest.mark.django_db
def test_the_database_refuses_a_case_variant(anon):
    register(anon, "Zed")
    with pytest.raises(IntegrityError), transaction.atomic():
        Player.objects.create(user=get_user_model().objects.create(username="zed-other"), name="zED")


@pytest.mark.django_db(transaction=True)
def test_concurrent_registrations_of_case_variants_make_one_player(anon):
    names = ["Kim", "kim", "KIM", "kIm"]
    results = [None] * len(names)
    barrier = threading.Barrier(len(names))

    def run(i):
        from rest_framework.test import APIClient

        try:
            barrier.wait()
            r = APIClient().post("/api/v1/auth/register/", {"username": names[i], "password": "correct-horse-42"},
                                 format="json")
            results[i] = (r.status_code, r.json().get("error", {}).get("code"))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(names))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results, key=str) == sorted([(201, None)] + [(409, "username_taken")] * 3, key=str)
    assert Player.objects.filter(name__iexact="kim").count() == 1
    assert get_user_model().objects.filter(username__iexact="kim").count() == 1


@pytest.mark.django_db
def test_lookups_by_name_ignore_case(anon, alice):
    register(anon, "Zed")
    r = alice.get("/api/v1/players/zED/stats/")
    assert r.status_code == 200 and r.json()["player"] == "Zed"
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "ZED"}, format="json")
    assert r.status_code == 201 and r.json()["seats"][1]["name"] == "Zed"
    assert alice.get("/api/v1/games/", {"opponent": "zed"}).json()["results"][0]["id"] == r.json()["id"]

