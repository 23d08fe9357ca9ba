"""Player names are unique regardless of letter case (in the database too), the ``ai-`` prefix is
reserved in any case, and names are looked up case-insensitively and exactly."""
import threading
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from players.models import Player
from players.services import player_register
from tests.helpers import assert_error, lock_waiting, register


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


@pytest.mark.django_db(transaction=True)
@pytest.mark.error_code("username_taken")
def test_a_name_registered_after_the_early_check_is_taken_at_the_insert(anon):
    """The interleaving forced on PostgreSQL: the test holds a SHARE lock on the players' table, so
    "kim"'s registration passes the early check, saves its user and waits to insert its player;
    "Kim" is registered and committed meanwhile. "kim"'s insert then breaks the case-insensitive
    unique constraint: 409 username_taken, and nothing of "kim" is left. Lock timeouts bound every
    wait."""
    assert connection.vendor == "postgresql"
    answers, pids, errors = [], [], []

    def register_kim():
        from rest_framework.test import APIClient

        try:
            with connection.cursor() as cur:
                cur.execute("SET lock_timeout = '20s'")
                cur.execute("SELECT pg_backend_pid()")
                pids.append(cur.fetchone()[0])
            answers.append(APIClient().post("/api/v1/auth/register/",
                                            {"username": "kim", "password": "correct-horse-42"}, format="json"))
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connection.close()

    kim = threading.Thread(target=register_kim)
    try:
        with transaction.atomic():
            with connection.cursor() as cur:
                cur.execute("SET LOCAL lock_timeout = '20s'")
                cur.execute(f"LOCK TABLE {Player._meta.db_table} IN SHARE MODE")
            kim.start()
            for _ in range(400):  # until it waits for the table; a bound against a hang
                if not kim.is_alive() or (pids and lock_waiting(pids[0])):
                    break
                time.sleep(0.05)
            assert kim.is_alive() and lock_waiting(pids[0]), errors  # waiting to insert its player
            player_register(username="Kim", password="correct-horse-42")
    finally:
        kim.join(60)
    assert not kim.is_alive() and not errors, errors
    assert assert_error(answers[0], "username_taken")["message"] == "This username is taken."
    assert list(Player.objects.values_list("name", flat=True)) == ["Kim"]
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["Kim"]


@pytest.mark.django_db
def test_lookups_by_name_ignore_case(anon, alice):
    register(anon, "Zed")
    r = alice.get("/api/v1/players/zED/stats/")
    assert r.status_code == 200 and r.json()["player"] == "Zed"
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "ZED"}, format="json")
    assert r.status_code == 201 and r.json()["seats"][1]["name"] == "Zed"
    assert alice.get("/api/v1/games/", {"opponent": "zed"}).json()["results"][0]["id"] == r.json()["id"]

