"""Push notifications: devices per player (register, move between accounts, remove), preferences
(kinds, IANA time zone, quiet hours), and pushes sent by the real django-push-notifications /
pywebpush to a fake Web Push service on loopback (tests/notifications/fake_push.py: it checks
VAPID and decrypts each push like a browser): success, invalid token (410: the device is
deactivated), the TTL, 5xx or 429 then success, another 4xx (failed), an unreachable service
(retried), quiet hours. Bad input answers 400 and writes nothing."""
from datetime import datetime, time, timedelta
from datetime import timezone as dt_timezone
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from push_notifications.models import GCMDevice, WebPushDevice

from notifications.models import PushDelivery, PushSettings
from notifications.push_prefs import quiet_hours_end
from notifications.push_send import push_delivery_attempt
from tests.helpers import ALL_CARDS, strings_in
from tests.loopback import refused_port
from tests.notifications.conftest import invite_accepted, pass_turn, retried_then_delivered

API = "/api/v1"
PAYLOAD_KEYS = {"kind", "game_id", "event_id", "opponent", "deadline", "text"}


def _subscribe(client, fake, token, **extra):
    sub = fake.subscribe(token)
    body = {"platform": "webpush", "registration_id": token, "keys": {"p256dh": sub.p256dh, "auth": sub.b64auth},
            **extra}
    r = client.post(f"{API}/devices/", body, format="json")
    assert r.status_code in (200, 201), r.content
    return r


def test_a_registered_device_gets_its_pushes_without_hidden_cards(people, fake, django_capture_on_commit_callbacks):
    alice, bob = people
    with django_capture_on_commit_callbacks(execute=True):
        r = _subscribe(bob, fake, "bob-phone-token-1", name="Bob's phone")
        assert r.status_code == 201, r.content
        device = r.json()
        assert device["id"].startswith("webpush-") and device["active"] and device["name"] == "Bob's phone"
        gid = invite_accepted(alice, bob)  # bob: invitation_received
        pass_turn(alice, gid)  # bob: opponent_moved (not pushed by default) and your_turn
    pushed = fake.payloads("bob-phone-token-1")
    assert fake.refused == []
    assert [p["kind"] for p in pushed] == ["invitation_received", "your_turn"]
    for p in pushed:
        assert set(p) == PAYLOAD_KEYS and p["game_id"] == gid and p["opponent"] == "alice"
        assert not strings_in(p) & set(ALL_CARDS)  # no card anywhere
    assert "alice" in pushed[1]["text"] and fake.refused == []
    rows = bob.get(f"{API}/devices/{device['id']}/pushes/").json()["results"]
    assert [(d["event_kind"], d["status"], d["attempts"]) for d in rows] == [
        ("your_turn", "delivered", 1), ("invitation_received", "delivered", 1)]


def test_an_unregistered_token_deactivates_the_device(people, fake, django_capture_on_commit_callbacks):
    alice, bob = people
    device = _subscribe(bob, fake, "bob-old-subscription-1").json()
    fake.unsubscribe("bob-old-subscription-1")  # the browser dropped the subscription: 410 Gone
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    assert fake.refused == [{"token": "bob-old-subscription-1", "status": 410, "why": "unknown subscription"}]
    assert bob.get(f"{API}/devices/").json()["results"][0]["active"] is False
    rows = bob.get(f"{API}/devices/{device['id']}/pushes/").json()["results"]
    assert [(d["status"], d["last_error"]) for d in rows] == [("failed", "invalid_token")]


def test_a_push_carries_the_configured_ttl(people, fake, settings, django_capture_on_commit_callbacks):
    alice, bob = people
    settings.OKGIN_PUSH_TTL_SECONDS = 3 * 3600
    _subscribe(bob, fake, "bob-ttl-subscription-1")
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    assert [(r["payload"]["kind"], r["ttl"]) for r in fake.received] == [("invitation_received", 10800)]


@pytest.mark.parametrize("status", [503, 500, 429])
def test_a_5xx_or_429_is_retried_with_backoff_then_delivered(people, fake, settings, status,
                                                             django_capture_on_commit_callbacks):
    alice, bob = people
    settings.OKGIN_PUSH_BACKOFF_SECONDS = 30.0
    device = _subscribe(bob, fake, "bob-flaky-token-1").json()
    fake.script("bob-flaky-token-1", [status])
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    retried_then_delivered(f"http_{status}", before)
    assert [p["kind"] for p in fake.payloads("bob-flaky-token-1")] == ["invitation_received"]
    assert bob.get(f"{API}/devices/{device['id']}/pushes/?status=delivered").json()["results"][0]["attempts"] == 2


def test_another_4xx_fails_the_push_without_a_retry(people, fake, django_capture_on_commit_callbacks):
    alice, bob = people  # 413 Payload Too Large: sending it again would not help
    _subscribe(bob, fake, "bob-refusing-token-1")
    fake.script("bob-refusing-token-1", [413])
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    row = PushDelivery.objects.get()
    assert (row.status, row.attempts, row.last_error, row.next_attempt_at) == ("failed", 1, "http_413", None)
    assert fake.refused == [{"token": "bob-refusing-token-1", "status": 413, "why": "scripted"}]
    assert bob.get(f"{API}/devices/").json()["results"][0]["active"] is True  # only 404 and 410 drop it


def test_an_unreachable_push_service_is_retried_then_delivered(people, fake, settings, monkeypatch,
                                                               django_capture_on_commit_callbacks):
    alice, bob = people
    settings.OKGIN_PUSH_BACKOFF_SECONDS = 30.0
    _subscribe(bob, fake, "bob-far-subscription-1")
    conf = settings.PUSH_NOTIFICATIONS_SETTINGS
    urls = conf["WP_POST_URL"]
    before = timezone.now()
    with refused_port() as port:
        monkeypatch.setitem(conf, "WP_POST_URL", {b: f"http://127.0.0.1:{port}/wp" for b in urls})
        with django_capture_on_commit_callbacks(execute=True):
            invite_accepted(alice, bob)
    monkeypatch.setitem(conf, "WP_POST_URL", urls)  # reachable again
    retried_then_delivered("connection_failed", before)
    assert [p["kind"] for p in fake.payloads("bob-far-subscription-1")] == ["invitation_received"]


def test_quiet_hours_hold_a_push_until_they_end(people, fake, django_capture_on_commit_callbacks):
    alice, bob = people
    tokyo = ZoneInfo("Asia/Tokyo")
    local = timezone.now().astimezone(tokyo)
    start, end = (local - timedelta(hours=1)).time().replace(microsecond=0), \
        (local + timedelta(hours=2)).time().replace(microsecond=0)
    r = bob.patch(f"{API}/me/push-settings/", {"time_zone": "Asia/Tokyo", "quiet_hours": {
        "start": start.isoformat(), "end": end.isoformat()}}, format="json")
    assert r.status_code == 200, r.content
    _subscribe(bob, fake, "bob-night-token-1")
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    row = PushDelivery.objects.get()
    expected_end = (local + timedelta(hours=2)).replace(microsecond=0).astimezone(dt_timezone.utc)
    assert (row.status, row.next_attempt_at) == ("held", expected_end)
    assert fake.payloads("bob-night-token-1") == []
    assert push_delivery_attempt(delivery_id=row.pk) is None  # still quiet: not sent
    PushSettings.objects.filter(player__name="bob").update(quiet_start=None, quiet_end=None)
    PushDelivery.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now())  # the hours are over
    assert push_delivery_attempt(delivery_id=row.pk).status == "delivered"
    assert [p["kind"] for p in fake.payloads("bob-night-token-1")] == ["invitation_received"]


@pytest.mark.parametrize("zone, start, end, now_local, expected_local", [
    ("Europe/Paris", time(22), time(7), datetime(2026, 3, 10, 23, 30), datetime(2026, 3, 11, 7, 0)),
    ("Europe/Paris", time(22), time(7), datetime(2026, 3, 11, 6, 59), datetime(2026, 3, 11, 7, 0)),
    ("Europe/Paris", time(22), time(7), datetime(2026, 3, 11, 7, 0), None),
    ("Europe/Paris", time(22), time(7), datetime(2026, 3, 10, 21, 59), None),
    ("America/New_York", time(1), time(6), datetime(2026, 3, 8, 1, 30), datetime(2026, 3, 8, 6, 0)),  # DST night
    ("Asia/Kolkata", time(13), time(14), datetime(2026, 6, 1, 13, 15), datetime(2026, 6, 1, 14, 0)),
])
def test_quiet_hours_end_in_the_players_zone(zone, start, end, now_local, expected_local):
    tz = ZoneInfo(zone)
    row = PushSettings(quiet_start=start, quiet_end=end)
    found = quiet_hours_end(row=row, time_zone=zone, now=now_local.replace(tzinfo=tz).astimezone(dt_timezone.utc))
    assert found == (expected_local.replace(tzinfo=tz).astimezone(dt_timezone.utc) if expected_local else None)


def test_deadline_near_may_be_pushed_during_quiet_hours():
    from notifications.push_prefs import hold_until

    row = PushSettings(quiet_start=time(0), quiet_end=time(23, 59), deadline_near_in_quiet_hours=True)
    now = datetime(2026, 5, 5, 12, 0, tzinfo=dt_timezone.utc)
    assert hold_until(row=row, time_zone="UTC", kind="deadline_near", now=now) is None
    assert hold_until(row=row, time_zone="UTC", kind="your_turn", now=now) == datetime(2026, 5, 5, 23, 59,
                                                                                      tzinfo=dt_timezone.utc)


def test_a_token_registered_by_another_account_moves_to_it(people, fake):
    alice, bob = people
    first = _subscribe(bob, fake, "shared-tablet-token").json()
    again = _subscribe(alice, fake, "shared-tablet-token", name="tablet")
    assert again.status_code == 200 and again.json()["id"] == first["id"]
    assert bob.get(f"{API}/devices/").json()["results"] == []
    assert [d["name"] for d in alice.get(f"{API}/devices/").json()["results"]] == ["tablet"]
    assert WebPushDevice.objects.count() == 1
    assert bob.delete(f"{API}/devices/{first['id']}/").status_code == 404  # not bob's any more
    assert alice.delete(f"{API}/devices/{first['id']}/").status_code == 204
    assert WebPushDevice.objects.count() == 0


def test_fcm_and_apns_devices_register_and_fail_plainly_without_credentials(people, caplog,
                                                                            django_capture_on_commit_callbacks):
    alice, bob = people
    fcm = bob.post(f"{API}/devices/", {"platform": "fcm", "registration_id": "f" * 20 + ":APA91b" + "x" * 140},
                   format="json")
    apns = bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "ab" * 32}, format="json")
    assert fcm.status_code == 201 and apns.status_code == 201
    assert GCMDevice.objects.get().cloud_message_type == "FCM"
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    got = {(d.platform, d.status, d.last_error) for d in PushDelivery.objects.all()}
    assert got == {("fcm", "failed", "provider_not_configured"), ("apns", "failed", "provider_not_configured")}
    assert {r.getMessage() for r in caplog.records if r.name == "notifications.push_send"} == {  # the libraries' reasons
        "push via fcm not possible: The default Firebase app does not exist. Make sure to initialize the SDK by "
        "calling initialize_app().",
        "push via apns not possible: You need to setup PUSH_NOTIFICATIONS_SETTINGS properly to send messages"}


@pytest.mark.parametrize("body, code", [
    ({"platform": "blackberry", "registration_id": "x" * 40}, "bad_platform"),
    ({"platform": "apns", "registration_id": "not-hex-at-all"}, "bad_registration_id"),
    ({"platform": "apns", "registration_id": "ab" * 31}, "bad_registration_id"),
    ({"platform": "fcm", "registration_id": "short"}, "bad_registration_id"),
    ({"platform": "fcm", "registration_id": "a b" * 30}, "bad_registration_id"),
    ({"platform": "webpush", "registration_id": "token-without-keys"}, "validation_error"),
    ({"platform": "webpush", "registration_id": "some-webpush-token", "keys": {"p256dh": "AAAA", "auth": "AAAA"}},
     "validation_error"),
    ({"platform": "fcm", "registration_id": "y" * 40, "browser": "CHROME"}, "validation_error"),
    ({"platform": "fcm", "registration_id": "y" * 40, "colour": "red"}, "validation_error"),
    ({"registration_id": "y" * 40}, "validation_error"),
])
def test_bad_device_registrations_are_refused_and_write_nothing(people, body, code):
    _alice, bob = people
    r = bob.post(f"{API}/devices/", body, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == code
    assert bob.get(f"{API}/devices/").json()["results"] == []


def test_push_settings_defaults_and_changes(people):
    _alice, bob = people
    assert bob.get(f"{API}/me/push-settings/").json() == {
        "kinds": ["your_turn", "match_over", "invitation_received", "deadline_near"], "time_zone": "UTC",
        "quiet_hours": None, "deadline_near_in_quiet_hours": False}
    r = bob.patch(f"{API}/me/push-settings/", {"kinds": ["match_over", "your_turn"], "time_zone": "Europe/Paris",
                                              "quiet_hours": {"start": "22:30", "end": "07:00"},
                                              "deadline_near_in_quiet_hours": True}, format="json")
    assert r.status_code == 200
    assert r.json() == {"kinds": ["your_turn", "match_over"], "time_zone": "Europe/Paris",
                        "quiet_hours": {"start": "22:30:00", "end": "07:00:00"}, "deadline_near_in_quiet_hours": True}
    assert bob.get(f"{API}/me/push-settings/").json() == r.json()
    r = bob.patch(f"{API}/me/push-settings/", {"quiet_hours": None}, format="json")
    assert r.json()["quiet_hours"] is None and r.json()["time_zone"] == "Europe/Paris"


@pytest.mark.parametrize("body, code", [
    ({"time_zone": "Mars/Olympus"}, "bad_time_zone"),
    ({"time_zone": "europe/paris"}, "bad_time_zone"),
    ({"time_zone": "../../etc/passwd"}, "bad_time_zone"),
    ({"time_zone": "UTC", "kinds": ["your_turn", "weather"]}, "validation_error"),
    ({"time_zone": "UTC", "quiet_hours": {"start": "22:00", "end": "22:00"}}, "validation_error"),
    ({"time_zone": "UTC", "quiet_hours": {"start": "25:00", "end": "07:00"}}, "validation_error"),
    ({"time_zone": "UTC", "quiet_hours": {"start": "22:00"}}, "validation_error"),
    ({"time_zone": "UTC", "snooze": True}, "validation_error"),
])
def test_bad_push_settings_are_refused_and_write_nothing(people, body, code):
    _alice, bob = people
    before = bob.get(f"{API}/me/push-settings/").json()
    r = bob.patch(f"{API}/me/push-settings/", body, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == code
    assert bob.get(f"{API}/me/push-settings/").json() == before
