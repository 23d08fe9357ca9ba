"""End-to-end, issue 11: a real Celery worker sends pushes with django-push-notifications to the
fake Web Push service on loopback (tests/notifications/fake_push.py, the worker pointed at it by
WEBPUSH_POST_URL) and to the fake FCM and APNs (tests/notifications/fake_providers.py, by
FCM_CREDENTIALS_FILE and FCM_ENDPOINT, the APNS_* variables and SSL_CERT_FILE); long-polls are woken through Redis pub/sub; a deleted account's tokens stop
working."""
import threading
import uuid
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
import requests
from django.contrib.auth import get_user_model
from django.utils import timezone

from notifications.models import PushDelivery
from tests.e2e.client import Player
from tests.e2e.conftest import wait_for
from tests.games.factories import DECK
from tests.helpers import ALL_CARDS, strings_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _device(player: Player, fake, token: str) -> dict:
    sub = fake.subscribe(token)
    r = player.post("/devices/", {"platform": "webpush", "registration_id": token,
                                  "keys": {"p256dh": sub.p256dh, "auth": sub.b64auth}})
    assert r.status_code == 201, r.text
    return r.json()


def _pair(base):
    """alice (staff, seat 0, non-dealer: acts first) and bob, in an accepted game on DECK."""
    alice, bob = Player(base), Player(base)
    get_user_model().objects.filter(username=alice.name).update(is_staff=True)
    return alice, bob


def _start(alice, bob) -> int:
    r = alice.post("/games/new/", {"kind": "invite", "opponent": bob.name, "decks": [DECK], "first_dealer": 1})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    assert bob.post(f"/games/{gid}/accept/").status_code == 200
    return gid


def _pass_while_opponent_long_polls(alice, bob, gid) -> dict:
    """bob long-polls his feed (30 s) while alice passes (R5.1): his poll answers with
    opponent_moved and your_turn; returns the your_turn event."""
    cursor = bob.get("/events/", limit=1)["next_cursor"]
    answer = {}

    def long_poll():
        answer["r"] = bob.http.get(f"{bob.base}/events/", params={"cursor": cursor, "wait": 30}, timeout=40)

    poll = threading.Thread(target=long_poll)
    poll.start()
    version = alice.game(gid)["version"]
    assert alice.act(gid, version, {"type": "pass"}).status_code == 200  # bob's turn (R5.1)
    poll.join(40)
    assert not poll.is_alive() and answer["r"].status_code == 200
    assert [e["kind"] for e in answer["r"].json()["results"]] == ["opponent_moved", "your_turn"]
    return answer["r"].json()["results"][1]


def _kinds(fake, token):
    return [p["kind"] for p in fake.payloads(token)]


def test_a_move_wakes_the_opponents_long_poll_and_pushes_one_your_turn(e2e, fake_webpush):
    alice, bob = _pair(e2e)
    _device(bob, fake_webpush, "e2e-bob-phone-subscription")
    gid = _start(alice, bob)
    wait_for(lambda: _kinds(fake_webpush, "e2e-bob-phone-subscription") == ["invitation_received"], what="the invitation push")
    your_turn_event = _pass_while_opponent_long_polls(alice, bob, gid)
    wait_for(lambda: "your_turn" in _kinds(fake_webpush, "e2e-bob-phone-subscription"), what="the your_turn push")
    pushes = fake_webpush.payloads("e2e-bob-phone-subscription")
    assert [p for p in pushes if p["kind"] == "your_turn"] == [{
        "kind": "your_turn", "game_id": gid, "event_id": your_turn_event["id"], "opponent": alice.name,
        "deadline": None, "text": f"Your turn against {alice.name}."}]
    assert not strings_in(pushes) & set(ALL_CARDS)
    assert _kinds(fake_webpush, "e2e-bob-phone-subscription") == ["invitation_received", "your_turn"]  # exactly one
    rows = PushDelivery.objects.filter(event__kind="your_turn",
                                       webpush_device__registration_id="e2e-bob-phone-subscription")
    assert wait_for(lambda: rows.filter(status="delivered").count(), what="the delivery recorded") == 1
    assert rows.count() == 1 and rows.get().attempts == 1


def test_a_move_pushes_one_your_turn_to_the_opponents_fcm_and_apns_devices(e2e, fake_fcm, fake_apns):
    alice, bob = _pair(e2e)
    fcm_token, apns_token = f"e2e-{bob.name}:APA91b" + "x" * 40, uuid.uuid4().hex * 2
    fake_fcm.register(fcm_token)
    fake_apns.register(apns_token)
    for platform, token in (("fcm", fcm_token), ("apns", apns_token)):
        r = bob.post("/devices/", {"platform": platform, "registration_id": token})
        assert r.status_code == 201, r.text

    def fcm_kinds():
        return fake_fcm.kinds(fcm_token)

    def apns_kinds():
        return fake_apns.kinds(apns_token)

    gid = _start(alice, bob)
    wait_for(lambda: fcm_kinds() == apns_kinds() == ["invitation_received"], what="the invitation pushes")
    event_id = _pass_while_opponent_long_polls(alice, bob, gid)["id"]
    rows = PushDelivery.objects.filter(event_id=event_id)
    assert wait_for(lambda: rows.filter(status="delivered").count() == 2 or None, what="both pushes recorded")
    assert fcm_kinds() == apns_kinds() == ["invitation_received", "your_turn"]  # exactly one each
    assert fake_fcm.messages(fcm_token)[1]["data"] == {
        "kind": "your_turn", "game_id": str(gid), "event_id": str(event_id), "opponent": alice.name}
    assert {k: v for k, v in fake_apns.payloads(apns_token)[1].items() if k != "aps"} == {
        "kind": "your_turn", "game_id": gid, "event_id": event_id, "opponent": alice.name, "deadline": None}
    assert sorted((r.platform, r.attempts) for r in rows) == [("apns", 1), ("fcm", 1)]


def test_a_push_in_quiet_hours_is_held_and_sent_when_they_end(e2e, fake_webpush):
    alice, bob = _pair(e2e)
    device = _device(bob, fake_webpush, "e2e-bob-night-subscription")
    gid = _start(alice, bob)
    wait_for(lambda: _kinds(fake_webpush, "e2e-bob-night-subscription") == ["invitation_received"], what="the invitation push")
    local = timezone.now().astimezone(ZoneInfo("Pacific/Auckland"))
    start, end = local - timedelta(hours=1), local + timedelta(seconds=4)
    r = bob.http.patch(f"{bob.base}/me/push-settings/", timeout=10, json={
        "time_zone": "Pacific/Auckland",
        "quiet_hours": {"start": start.strftime("%H:%M:%S"), "end": end.strftime("%H:%M:%S")}})
    assert r.status_code == 200, r.text
    version = alice.game(gid)["version"]
    assert alice.act(gid, version, {"type": "pass"}).status_code == 200
    held = bob.get(f"/devices/{device['id']}/pushes/", status="held")["results"]
    assert [p["event_kind"] for p in held] == ["your_turn"] and held[0]["next_attempt_at"]
    assert _kinds(fake_webpush, "e2e-bob-night-subscription") == ["invitation_received"]  # not yet
    wait_for(lambda: "your_turn" in _kinds(fake_webpush, "e2e-bob-night-subscription"), timeout=30, what="the held push")
    rows = PushDelivery.objects.filter(event__kind="your_turn",
                                       webpush_device__registration_id="e2e-bob-night-subscription")
    row = wait_for(lambda: rows.filter(status="delivered").first(), what="the delivery recorded")
    assert row.attempts == 1 and rows.count() == 1
    assert row.delivered_at >= end.replace(microsecond=0)  # not before the quiet hours ended


def test_a_deleted_accounts_tokens_stop_working(e2e):
    carol = Player(e2e)
    password = "s3cret-pass-" + carol.name
    refresh = requests.post(f"{carol.base}/auth/token/", json={"username": carol.name, "password": password},
                            timeout=10).json()["refresh"]
    assert carol.http.get(f"{carol.base}/me/", timeout=10).status_code == 200
    r = carol.post("/me/delete/", {"password": password})
    assert r.status_code == 204, r.text
    r = carol.http.get(f"{carol.base}/me/", timeout=10)
    assert r.status_code == 401 and r.json()["error"]["code"] == "user_not_found"
    r = requests.post(f"{carol.base}/auth/token/refresh/", json={"refresh": refresh}, timeout=10)
    assert r.status_code == 401 and r.json()["error"]["code"] == "user_not_found"
    r = requests.post(f"{carol.base}/auth/token/", json={"username": carol.name, "password": password}, timeout=10)
    assert r.status_code == 401
