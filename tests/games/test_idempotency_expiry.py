"""Idempotency records expire after OKGIN_IDEMPOTENCY_TTL_SECONDS (the key is free again: a retry
is a new request) and the hourly task prunes them."""
from datetime import timedelta

import pytest
from django.utils import timezone

from games import tasks
from games.idempotency import idempotency_records_prune
from games.models import IdempotencyRecord, Move
from players.models import Player
from tests.games.factories import game_make
from tests.helpers import act, register


@pytest.mark.django_db
def test_an_expired_record_frees_its_key_and_is_pruned(anon, settings):
    alice, bob = register(anon, "alice"), register(anon, "bob")
    g = game_make(Player.objects.get(name="alice"), Player.objects.get(name="bob"))
    first = act(alice, g.pk, g.version, {"type": "pass"}, key="k-1")
    assert first.status_code == 200
    assert act(alice, g.pk, g.version, {"type": "pass"}, key="k-1").json() == first.json()  # replayed
    assert act(bob, g.pk, g.version + 1, {"type": "pass"}, key="k-2").status_code == 200
    IdempotencyRecord.objects.filter(key="k-1").update(created_at=timezone.now() - timedelta(hours=25))
    # Expired: the retry is a new request (the game moved on: 409), and nothing is applied again.
    r = act(alice, g.pk, g.version, {"type": "pass"}, key="k-1")
    assert r.status_code == 409 and r.json()["error"]["code"] == "stale_version"
    assert Move.objects.filter(game=g).count() == 2
    IdempotencyRecord.objects.filter(key="k-2").update(created_at=timezone.now() - timedelta(hours=25))
    settings.OKGIN_IDEMPOTENCY_TTL_SECONDS = 26 * 3600
    assert tasks.idempotency_records_prune() == 0  # within the (longer) lifetime: kept
    settings.OKGIN_IDEMPOTENCY_TTL_SECONDS = 24 * 3600
    assert tasks.idempotency_records_prune() == 2  # (k-1's refused retry left its record as it was)
    assert not IdempotencyRecord.objects.filter(game=g).exists()


@pytest.mark.django_db
def test_the_prune_deletes_in_batches_and_counts_every_batch(anon):
    """Five expired records pruned two at a time (batches of 2, 2, 1): all five are deleted and the
    count is 5, not the last batch's 1; a record within its lifetime is kept."""
    register(anon, "alice")
    alice = Player.objects.get(name="alice")
    for i in range(6):
        IdempotencyRecord.objects.create(player=alice, operation="register", key=f"k-{i}", request_hash="0" * 64,
                                         response_status=201, response_body={})
    old = timezone.now() - timedelta(hours=25)
    IdempotencyRecord.objects.exclude(key="k-5").update(created_at=old)
    assert idempotency_records_prune(batch=2) == 5
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["k-5"]
