"""A retry sent with the same Idempotency-Key while the first request is still running gets the
first's answer replayed (PostgreSQL), also for the operations on no game (register, a webhook,
vacation on and off), which lock no game row to serialize on.

The interleaving is forced: the first request runs inside a transaction held open after it
answered (``tests.helpers.first_held_then_second``), the retry then starts on its own connection
and must wait for the first (the key's advisory lock, ``games.idempotency._key_lock``), then answer
the same status with ``Idempotent-Replayed: true``. Without the lock the retry ran the operation
itself, waited on the first's rows, and answered 409 (``username_taken``, ``webhook_exists``,
``vacation_already_on``) once the first committed.
"""
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from notifications.models import WebhookEndpoint
from players.models import Player
from tests.helpers import first_held_then_second, register

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"
HOOK = "https://93.184.215.14/okgin-race"  # a public IP literal (no DNS needed)


def _register(client):
    return client.post(f"{API}/auth/register/", {"username": "racer", "password": "correct-horse-42-x"},
                       format="json", HTTP_IDEMPOTENCY_KEY="k1")


@pytest.mark.parametrize("operation", ["register", "webhook_create", "vacation_start", "vacation_end"])
def test_a_retry_racing_the_first_request_gets_its_answer_replayed(anon, operation):
    assert connection.vendor == "postgresql"
    alice = register(anon, "alice")
    if operation == "vacation_end":
        assert alice.post(f"{API}/me/vacation/start/").status_code == 200
    send = {
        "register": lambda: _register(anon),
        "webhook_create": lambda: alice.post(f"{API}/webhooks/", {"url": HOOK}, format="json",
                                             HTTP_IDEMPOTENCY_KEY="k1"),
        "vacation_start": lambda: alice.post(f"{API}/me/vacation/start/", HTTP_IDEMPOTENCY_KEY="k1"),
        "vacation_end": lambda: alice.post(f"{API}/me/vacation/end/", HTTP_IDEMPOTENCY_KEY="k1"),
    }[operation]
    answers = []

    def first():
        r = send()
        assert r.status_code in (200, 201), r.content
        answers.append(r)

    def retry():
        r = send()
        assert r.status_code in (200, 201), r.content
        answers.append(r)

    waited = first_held_then_second(first, retry)

    assert waited  # the retry waited for the first request's transaction
    original, replayed = answers
    assert replayed.status_code == original.status_code
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert replayed.json() == original.json()
    # exactly one of whatever the operation creates
    if operation == "register":
        assert get_user_model().objects.filter(username="racer").count() == 1
    elif operation == "webhook_create":
        assert WebhookEndpoint.objects.filter(url=HOOK).count() == 1
    else:
        on = Player.objects.get(name="alice").vacation_until is not None
        assert on == (operation == "vacation_start")
