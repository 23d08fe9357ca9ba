"""Query parameters and the Idempotency-Key header: strict parsing, 400 validation_error (never a
500 from "²", which str.isdigit accepts, or a NUL byte PostgreSQL refuses), nothing written."""
import pytest

from games.models import IdempotencyRecord, Move


@pytest.fixture
def game(alice):
    return alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "first_dealer": 1},
                      format="json").json()  # alice (seat 0, not the dealer) acts first (R5)


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["²", "٣", "-1", "1.0", "0x1", " 1", "99999999999", "2147483648"])
def test_bad_round_after_limit(alice, game, value):
    for url in (f"/api/v1/games/{game['id']}/moves/?round=", "/api/v1/games/?limit=", "/api/v1/events/?limit="):
        r = alice.get(url + value)
        assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error", (url, value)


@pytest.mark.django_db
def test_good_round_after_limit(alice, game):
    assert alice.get(f"/api/v1/games/{game['id']}/moves/?round=1").status_code == 200
    assert alice.get("/api/v1/events/?limit=200").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["a\x00b", "x" * 201, "tab\there", "é", "\x7f"])
def test_bad_idempotency_key_is_refused_and_writes_nothing(alice, game, key):
    action = game["view"]["legal_actions"][0]
    moves = Move.objects.count()
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", {"version": game["version"], "action": action},
                   format="json", HTTP_IDEMPOTENCY_KEY=key)
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    assert Move.objects.count() == moves and IdempotencyRecord.objects.count() == 0


@pytest.mark.django_db
def test_a_200_character_printable_key_is_accepted(alice, game):
    action = game["view"]["legal_actions"][0]
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", {"version": game["version"], "action": action},
                   format="json", HTTP_IDEMPOTENCY_KEY="k" * 199 + "~")
    assert r.status_code == 200 and IdempotencyRecord.objects.count() == 1
