"""Idempotency-Key on every POST that creates or changes something: a retry with the same key and
body answers the first answer (Idempotent-Replayed: true) and does nothing again; the same key with
another body is 422 idempotency_key_reused and writes nothing."""
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from games.models import Game, IdempotencyRecord
from notifications.models import WebhookEndpoint
from tests.helpers import run_on_embedded_sqlite


def _post(client, url, body=None, key="k-1"):
    return client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=key) if body is not None else \
        client.post(url, HTTP_IDEMPOTENCY_KEY=key)


@pytest.mark.django_db
def test_a_retried_game_create_returns_the_first_game(alice, bob):
    body = {"kind": "invite", "opponent": "bob"}
    first = _post(alice, "/api/v1/games/new/", body)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    assert first["Location"] == f"http://testserver/api/v1/games/{first.json()['id']}/"
    again = _post(alice, "/api/v1/games/new/", body)
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json() and again["Location"] == first["Location"]
    assert Game.objects.count() == 1
    # The same key with another body: 422, nothing created.
    other = _post(alice, "/api/v1/games/new/", {"kind": "open"})
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    assert Game.objects.count() == 1
    # Keys are per player: bob's "k-1" is his own.
    assert _post(bob, "/api/v1/games/new/", {"kind": "open"}).status_code == 201
    assert Game.objects.count() == 2
    # A failed create is not stored: the retry runs it again (and fails again the same way).
    assert _post(alice, "/api/v1/games/new/", {"kind": "invite", "opponent": "nobody"}, key="k-2").status_code == 404
    assert not IdempotencyRecord.objects.filter(key="k-2").exists()
    # The key is looked up before the body is validated: a reused key with a body the server
    # refuses is 422 too (it was 400), and nothing is created.
    other = _post(alice, "/api/v1/games/new/", {"kind": "open", "rules": {"gin_bonus": 5000}})
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    assert Game.objects.count() == 2


@pytest.mark.django_db
def test_a_retry_gets_the_stored_answer_even_if_its_body_is_now_refused(alice, bob):
    """A create answered before a deploy that refuses its body (here: ``opponent`` with an open
    challenge, accepted before 2026-12-06) replays its first answer to a retry with the same key
    and body, instead of 400: the record stands for the first answer for its lifetime."""
    from games.idempotency import idempotency_store, StoredResponse
    from players.models import Player

    body = {"kind": "open", "opponent": "bob"}
    first = _post(alice, "/api/v1/games/new/", {"kind": "open"}, key="k-9")
    assert first.status_code == 201
    IdempotencyRecord.objects.filter(key="k-9").delete()  # stand in the record the old server kept
    idempotency_store(player=Player.objects.get(name="alice"), operation="game_create", game_id=None, key="k-9",
                      request=body, response=StoredResponse(status=201, body=first.json()))
    again = _post(alice, "/api/v1/games/new/", body, key="k-9")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert Game.objects.count() == 1
    # Without the key the same body is refused: it is the record that answers.
    r = alice.post("/api/v1/games/new/", body, format="json")
    assert r.status_code == 400 and Game.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("op", ["accept", "decline"])
def test_a_retried_answer_to_an_invitation_replays(alice, bob, op):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    first = _post(bob, f"/api/v1/games/{gid}/{op}/")
    assert first.status_code == 200
    version = Game.objects.get(pk=gid).version
    again = _post(bob, f"/api/v1/games/{gid}/{op}/")  # without the key this would be 409 not_invited
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert Game.objects.get(pk=gid).version == version
    assert _post(bob, f"/api/v1/games/{gid}/{op}/", key="k-other").status_code == 409


@pytest.mark.django_db
def test_abort_and_resign_replay(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "open"}, format="json").json()["id"]
    assert _post(alice, f"/api/v1/games/{gid}/abort/").status_code == 200
    assert _post(alice, f"/api/v1/games/{gid}/abort/")["Idempotent-Replayed"] == "true"
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    bob.post(f"/api/v1/games/{gid}/accept/")
    first = _post(bob, f"/api/v1/games/{gid}/resign/")
    again = _post(bob, f"/api/v1/games/{gid}/resign/")
    assert first.status_code == again.status_code == 200 and again.json() == first.json()
    assert first.json()["winner_seat"] == 0


@pytest.mark.django_db
def test_a_retried_registration_creates_one_account(anon):
    body = {"username": "carol", "password": "s3cret-pass-carol"}
    first = _post(anon, "/api/v1/auth/register/", body)
    again = _post(anon, "/api/v1/auth/register/", body)  # without the key: 409 username_taken
    assert first.status_code == again.status_code == 201 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true" and first["Location"] == "http://testserver/api/v1/me/"
    assert get_user_model().objects.filter(username="carol").count() == 1
    other = _post(anon, "/api/v1/auth/register/", {**body, "password": "another-pass-carol"})
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    record = IdempotencyRecord.objects.get(operation="register")
    assert "s3cret" not in str(record.request_hash) and record.player is None


@pytest.mark.django_db
def test_a_retried_webhook_create_returns_the_first_secret(alice):
    body = {"url": "https://93.184.215.14/okgin"}
    first = _post(alice, "/api/v1/webhooks/", body)
    again = _post(alice, "/api/v1/webhooks/", body)  # without the key: 409 webhook_exists
    assert first.status_code == again.status_code == 201 and again.json() == first.json()
    assert first["Location"] == f"http://testserver/api/v1/webhooks/{first.json()['id']}/"
    assert alice.get(first["Location"]).json()["url"] == body["url"]
    assert WebhookEndpoint.objects.count() == 1


@pytest.mark.django_db
def test_a_malformed_key_is_400_and_writes_nothing(alice):
    r = _post(alice, "/api/v1/games/new/", {"kind": "open"}, key="é" * 3)
    assert r.status_code == 400 and Game.objects.count() == 0


@pytest.mark.django_db
def test_a_retry_with_the_same_fields_in_another_order_is_replayed(alice, bob):
    """Requests are compared by their canonical JSON (sorted keys): a client that serializes the
    same fields in another order on its retry sends the same request, not another one (422)."""
    first = alice.post("/api/v1/games/new/", '{"kind": "invite", "opponent": "bob"}',
                       content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201
    again = alice.post("/api/v1/games/new/", '{"opponent": "bob", "kind": "invite"}',
                       content_type="application/json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Game.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("operation", ["resign", "accept", "decline", "abort", "review", "rematch"])
@pytest.mark.parametrize("game_id", [2**63 - 1, 2**63, 10**20])
def test_a_keyed_post_to_a_game_id_no_column_holds_is_404_and_writes_nothing(alice, operation, game_id):
    # Without a key these are 404 not_found; a key must not change that (on SQLite the key lookup
    # once overflowed into a 500, on PostgreSQL into a 400).
    r = _post(alice, f"/api/v1/games/{game_id}/{operation}/")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", r.content
    assert IdempotencyRecord.objects.count() == 0 and Game.objects.count() == 0


def test_the_same_on_the_embedded_sqlite(tmp_path):
    """On SQLite the key lookup with such an id raised OverflowError (a 500) before it was bounded."""
    report = run_on_embedded_sqlite(Path(__file__).with_name("huge_game_id_sqlite.py"), tmp_path)
    assert report.pop("records") == 0
    assert len(report) == 12 and set(map(tuple, report.values())) == {(404, "not_found")}, report
