"""notifications.services.events_create: each event goes to its player's feed, to every webhook
endpoint of its player and, for a pushed kind, to every active device of its player's user, with
the devices and the endpoints of all the recipients read in one statement (issue 14)."""
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from push_notifications.models import APNSDevice, GCMDevice, WebPushDevice

from notifications.models import PushDelivery, WebhookDelivery, WebhookEndpoint
from notifications.services import Notice, events_create
from players.models import Player
from tests.games.factories import player_make


def _endpoint(player, n):
    return WebhookEndpoint.objects.create(player=player, url=f"https://93.184.215.14/hook/{player.pk}/{n}",
                                          secret=f"whsec_{n}")


@pytest.mark.django_db
def test_events_reach_the_feed_the_webhooks_and_the_active_devices_of_their_players():
    alice, bob, carol = player_make(), player_make(), player_make()
    robot = Player.objects.create(name="robot-x", is_ai=True, ai_level="random")
    a1, a2, b1, c1 = _endpoint(alice, 1), _endpoint(alice, 2), _endpoint(bob, 1), _endpoint(carol, 1)
    a_phone = GCMDevice.objects.create(user=alice.user, registration_id="alice-fcm", cloud_message_type="FCM")
    GCMDevice.objects.create(user=alice.user, registration_id="alice-old", cloud_message_type="FCM", active=False)
    b_phone = APNSDevice.objects.create(user=bob.user, registration_id="b" * 64)
    WebPushDevice.objects.create(user=carol.user, registration_id="carol-web", p256dh="k", auth="a", browser="FIREFOX")
    notices = [Notice(alice, "your_turn", None, {"n": 1}), Notice(bob, "opponent_moved", None, {"n": 2}),
               Notice(robot, "your_turn", None), Notice(bob, "your_turn", None, {"n": 3})]
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        events = events_create(notices=notices)
    assert [(e.player_id, e.kind, e.data) for e in events] == [
        (alice.pk, "your_turn", {"n": 1}), (bob.pk, "opponent_moved", {"n": 2}), (bob.pk, "your_turn", {"n": 3})]
    by_event = {e.pk: e for e in events}
    hooks = sorted((by_event[d.event_id].data["n"], d.endpoint_id) for d in WebhookDelivery.objects.all())
    assert hooks == sorted([(1, a1.pk), (1, a2.pk), (2, b1.pk), (3, b1.pk)])  # never carol's (c1)
    assert c1.pk not in {d.endpoint_id for d in WebhookDelivery.objects.all()}
    pushes = sorted((by_event[d.event_id].data["n"], d.platform, d.fcm_device_id or d.apns_device_id)
                    for d in PushDelivery.objects.all())
    assert pushes == [(1, "fcm", a_phone.pk), (3, "apns", b_phone.pk)]  # opponent_moved is not pushed by default
    lookups = [q["sql"] for q in queries.captured_queries if "webhookendpoint" in q["sql"]]
    assert len(lookups) == 1 and "UNION ALL" in lookups[0] and "gcmdevice" in lookups[0]


@pytest.mark.django_db
def test_nobody_to_tell_runs_no_query_and_no_device_no_webhook_runs_two():
    robot = Player.objects.create(name="robot-y", is_ai=True, ai_level="random")
    with CaptureQueriesContext(connection) as queries:
        assert events_create(notices=[Notice(robot, "your_turn", None), Notice(None, "your_turn", None)]) == []
    assert queries.captured_queries == []
    lone = player_make()
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        assert len(events_create(notices=[Notice(lone, "your_turn", None)])) == 1
    assert len(queries.captured_queries) == 2  # the events, then the devices and endpoints together
    assert not WebhookDelivery.objects.exists() and not PushDelivery.objects.exists()
