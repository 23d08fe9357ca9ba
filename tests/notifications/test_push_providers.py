"""FCM and APNs pushes sent by the real libraries (django-push-notifications with firebase-admin, and
with aioapns) to fakes on loopback that speak the providers' APIs (tests/notifications/
fake_providers.py): FCM HTTP v1 after the service account's OAuth token exchange, APNs over HTTP/2
and TLS with an ES256 provider token. The libraries are pointed at the fakes by settings
(FCM_CREDENTIALS_FILE's token_uri and FCM_ENDPOINT; the APNS_* keys, APNS_ENDPOINT and
SSL_CERT_FILE), as in docs/mobile.md. Success, an invalid or unregistered token (the device is
deactivated), a 5xx or FCM's quota then success (retried, delivered once), an FCM refusal not
worth a retry, a legacy GCM device."""
import pytest
from django.conf import settings as django_settings
from django.utils import timezone
from push_notifications.models import GCMDevice

from notifications.models import Event, PushDelivery
from notifications.push_providers import push_providers_configure
from tests.helpers import ALL_CARDS, strings_in
from tests.loopback import refused_port
from tests.notifications.conftest import invite_accepted, pass_turn, retried_then_delivered
from tests.notifications.fake_providers import FakeAPNs, FakeFCM

API = "/api/v1"
FCM_TOKEN = "dGVzdC1mY20tdG9rZW4:APA91b" + "Bob_phone-1" * 12
APNS_TOKEN = "a1b2c3d4" * 8


@pytest.fixture
def fcm(settings, tmp_path):
    """The fake FCM, and firebase-admin's default app made from a service-account file whose
    token_uri is the fake, with FCM_ENDPOINT naming it."""
    with FakeFCM() as fake:
        settings.OKGIN_FCM_CREDENTIALS_FILE = str(fake.credentials_file(tmp_path))
        settings.OKGIN_FCM_ENDPOINT = fake.base_url
        push_providers_configure()
        try:
            yield fake
        finally:
            settings.OKGIN_FCM_CREDENTIALS_FILE = settings.OKGIN_FCM_ENDPOINT = ""
            push_providers_configure()


@pytest.fixture
def apns(settings, tmp_path, monkeypatch):
    """The fake APNs, and the library's APNS_* settings (token auth: .p8 key, key id, team id,
    topic) with APNS_ENDPOINT naming it and SSL_CERT_FILE trusting its self-signed certificate."""
    with FakeAPNs(tmp_path) as fake:
        conf = django_settings.PUSH_NOTIFICATIONS_SETTINGS  # the library holds this very dict
        monkeypatch.setitem(conf, "APNS_AUTH_KEY_PATH", str(fake.auth_key_file(tmp_path)))
        monkeypatch.setitem(conf, "APNS_AUTH_KEY_ID", fake.key_id)
        monkeypatch.setitem(conf, "APNS_TEAM_ID", fake.team_id)
        monkeypatch.setitem(conf, "APNS_TOPIC", fake.topic)
        monkeypatch.setenv("SSL_CERT_FILE", str(fake.ca_file))
        settings.OKGIN_APNS_ENDPOINT = fake.endpoint
        push_providers_configure()
        try:
            yield fake
        finally:
            settings.OKGIN_APNS_ENDPOINT = ""
            push_providers_configure()


def _device(client, platform, token) -> dict:
    r = client.post(f"{API}/devices/", {"platform": platform, "registration_id": token}, format="json")
    assert r.status_code == 201, r.content
    return r.json()


def _pushes(client, device):
    return [(d["event_kind"], d["status"], d["attempts"], d["last_error"])
            for d in client.get(f"{API}/devices/{device['id']}/pushes/").json()["results"]]


# --- FCM -------------------------------------------------------------------------------------


def test_fcm_pushes_go_through_firebase_admin_after_the_oauth_exchange(people, fcm, django_capture_on_commit_callbacks):
    alice, bob = people
    fcm.register(FCM_TOKEN)
    with django_capture_on_commit_callbacks(execute=True):
        device = _device(bob, "fcm", FCM_TOKEN)
        gid = invite_accepted(alice, bob)  # bob: invitation_received
        pass_turn(alice, gid)  # bob: opponent_moved (not pushed by default) and your_turn
    messages = fcm.messages(FCM_TOKEN)
    events = {e.kind: e.pk for e in Event.objects.filter(player__name="bob")}
    # FCM data values are strings; a null deadline is left out
    assert [m["data"] for m in messages] == [
        {"kind": "invitation_received", "game_id": str(gid), "event_id": str(events["invitation_received"]),
         "opponent": "alice"},
        {"kind": "your_turn", "game_id": str(gid), "event_id": str(events["your_turn"]), "opponent": "alice"}]
    assert [m["android"]["notification"]["body"] for m in messages] == [
        "alice invites you to a game of gin.", "Your turn against alice."]
    assert not strings_in(messages) & set(ALL_CARDS)
    assert fcm.token_exchanges == 1  # one OAuth access token, reused for the second send
    assert fcm.sends(FCM_TOKEN) == [200, 200]
    assert _pushes(bob, device) == [("your_turn", "delivered", 1, ""), ("invitation_received", "delivered", 1, "")]


def test_an_unregistered_fcm_token_deactivates_the_device(people, fcm, django_capture_on_commit_callbacks):
    alice, bob = people  # the fake does not know FCM_TOKEN: 404 UNREGISTERED
    device = _device(bob, "fcm", FCM_TOKEN)
    with django_capture_on_commit_callbacks(execute=True):
        gid = invite_accepted(alice, bob)
    assert fcm.sends(FCM_TOKEN) == [404] and fcm.messages(FCM_TOKEN) == []
    assert bob.get(f"{API}/devices/").json()["results"][0]["active"] is False
    assert _pushes(bob, device) == [("invitation_received", "failed", 1, "invalid_token")]
    with django_capture_on_commit_callbacks(execute=True):
        pass_turn(alice, gid)  # bob's turn: an inactive device gets no push
    assert fcm.sends(FCM_TOKEN) == [404] and PushDelivery.objects.count() == 1


# --- APNs ------------------------------------------------------------------------------------


def test_apns_pushes_go_over_http2_with_a_provider_token(people, apns, django_capture_on_commit_callbacks):
    alice, bob = people
    apns.register(APNS_TOKEN)
    with django_capture_on_commit_callbacks(execute=True):
        device = _device(bob, "apns", APNS_TOKEN)
        gid = invite_accepted(alice, bob)
        pass_turn(alice, gid)
    events = {e.kind: e.pk for e in Event.objects.filter(player__name="bob")}
    payloads = apns.payloads(APNS_TOKEN)
    assert [p["aps"]["alert"] for p in payloads] == ["alice invites you to a game of gin.", "Your turn against alice."]
    assert [{k: v for k, v in p.items() if k != "aps"} for p in payloads] == [
        {"kind": "invitation_received", "game_id": gid, "event_id": events["invitation_received"],
         "opponent": "alice", "deadline": None},
        {"kind": "your_turn", "game_id": gid, "event_id": events["your_turn"], "opponent": "alice", "deadline": None}]
    assert not strings_in(payloads) & set(ALL_CARDS)
    assert apns.refused == [] and apns.sends(APNS_TOKEN) == [200, 200]
    assert {r["headers"]["apns-topic"] for r in apns.received} == {apns.topic}
    assert _pushes(bob, device) == [("your_turn", "delivered", 1, ""), ("invitation_received", "delivered", 1, "")]


@pytest.mark.parametrize("dropped, status, reason", [(False, 400, "BadDeviceToken"), (True, 410, "Unregistered")])
def test_a_bad_or_unregistered_apns_token_deactivates_the_device(people, apns, dropped, status, reason,
                                                                 django_capture_on_commit_callbacks):
    alice, bob = people
    if dropped:
        apns.register(APNS_TOKEN)
        apns.unregister(APNS_TOKEN)  # the app was removed from the phone
    device = _device(bob, "apns", APNS_TOKEN)
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    assert apns.refused == [{"token": APNS_TOKEN, "status": status, "reason": reason}]
    assert bob.get(f"{API}/devices/").json()["results"][0]["active"] is False
    assert _pushes(bob, device) == [("invitation_received", "failed", 1, "invalid_token")]


@pytest.mark.parametrize("platform, token, failures, error", [
    ("fcm", FCM_TOKEN, [503] * 5, "fcm_UNAVAILABLE"),  # more than firebase-admin's own 4 retries of a 503
    ("fcm", FCM_TOKEN, [500] * 5, "fcm_INTERNAL"),  # and of a 500
    ("fcm", FCM_TOKEN, [429], "fcm_RESOURCE_EXHAUSTED"),  # QUOTA_EXCEEDED: not retried by firebase-admin
    ("apns", APNS_TOKEN, [503], "apns_ServiceUnavailable"),  # aioapns does not retry
    ("apns", APNS_TOKEN, [500], "apns_InternalServerError"),
], ids=["fcm-503", "fcm-500", "fcm-429", "apns-503", "apns-500"])
def test_a_5xx_or_quota_is_retried_with_backoff_then_delivered_once(people, settings, request, platform, token,
                                                                   failures, error,
                                                                   django_capture_on_commit_callbacks):
    alice, bob = people
    fake = request.getfixturevalue(platform)
    settings.OKGIN_PUSH_BACKOFF_SECONDS = 30.0
    fake.register(token)
    fake.script(token, failures)
    device = _device(bob, platform, token)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    retried_then_delivered(error, before)
    assert fake.sends(token) == failures + [200]
    assert fake.kinds(token) == ["invitation_received"]  # delivered once
    assert _pushes(bob, device) == [("invitation_received", "delivered", 2, "")]


def test_an_apns_server_that_cannot_be_reached_is_tried_again_later(people, settings, apns,
                                                                   django_capture_on_commit_callbacks):
    """APNs down (its port refuses connections): django-push-notifications reports no answer
    ("TimeoutError" after its 1 s, or "CommunicationError: ..."), which is not Apple refusing the
    push, so the push stays pending for the backoff and is delivered once APNs answers again; the
    device stays active."""
    alice, bob = people
    settings.OKGIN_PUSH_BACKOFF_SECONDS = 30.0
    apns.register(APNS_TOKEN)
    device = _device(bob, "apns", APNS_TOKEN)
    before = timezone.now()
    with refused_port() as port:
        settings.OKGIN_APNS_ENDPOINT = f"127.0.0.1:{port}"
        push_providers_configure()
        with django_capture_on_commit_callbacks(execute=True):
            invite_accepted(alice, bob)
    settings.OKGIN_APNS_ENDPOINT = apns.endpoint  # reachable again
    push_providers_configure()
    assert apns.sends(APNS_TOKEN) == []  # nothing reached the fake while its port was elsewhere
    retried_then_delivered("connection_failed", before)
    assert apns.kinds(APNS_TOKEN) == ["invitation_received"]
    assert _pushes(bob, device) == [("invitation_received", "delivered", 2, "")]
    assert [d["active"] for d in bob.get(f"{API}/devices/").json()["results"]] == [True]


@pytest.mark.parametrize("status, error, active", [
    (403, "fcm_PERMISSION_DENIED", True),  # the project may not send: not retried, the device kept
    (400, "invalid_token", False),  # INVALID_ARGUMENT: django-push-notifications deactivates the device
])
def test_an_fcm_refusal_that_a_retry_would_not_change_fails_at_once(people, fcm, status, error, active,
                                                                    django_capture_on_commit_callbacks):
    alice, bob = people
    fcm.register(FCM_TOKEN)
    fcm.script(FCM_TOKEN, [status])
    device = _device(bob, "fcm", FCM_TOKEN)
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    assert fcm.sends(FCM_TOKEN) == [status]
    assert _pushes(bob, device) == [("invitation_received", "failed", 1, error)]
    assert bob.get(f"{API}/devices/").json()["results"][0]["active"] is active


def test_a_legacy_gcm_device_is_sent_nothing_and_fails(people, fcm, django_capture_on_commit_callbacks):
    """django-push-notifications sends nothing to a device registered for GCM (Google shut it down):
    no answer, so no FCM error code; the push fails as ``fcm_error``, not retried."""
    alice, bob = people
    fcm.register(FCM_TOKEN)
    device = _device(bob, "fcm", FCM_TOKEN)
    GCMDevice.objects.update(cloud_message_type="GCM")  # registered before FCM replaced GCM
    with django_capture_on_commit_callbacks(execute=True):
        invite_accepted(alice, bob)
    assert fcm.sends(FCM_TOKEN) == []
    assert _pushes(bob, device) == [("invitation_received", "failed", 1, "fcm_error")]
    assert bob.get(f"{API}/devices/").json()["results"][0]["active"] is True


# --- configuration ---------------------------------------------------------------------------


def test_endpoints_are_set_and_taken_back_to_the_providers_own(settings, tmp_path):
    """FCM_ENDPOINT (a trailing / dropped) and APNS_ENDPOINT point the libraries at another server;
    once the settings are empty again, configuring puts back firebase-admin's FCM URL and Apple's
    hosts and port, and removes the Firebase app."""
    import firebase_admin
    from aioapns.connection import APNsDevelopmentClientProtocol as Development
    from aioapns.connection import APNsProductionClientProtocol as Production
    from firebase_admin import messaging

    def apns():
        return [(p.APNS_SERVER, p.APNS_PORT) for p in (Production, Development)]

    with FakeFCM() as fake:
        try:
            settings.OKGIN_FCM_CREDENTIALS_FILE = str(fake.credentials_file(tmp_path))
            settings.OKGIN_FCM_ENDPOINT = fake.base_url + "/"
            settings.OKGIN_APNS_ENDPOINT = "127.0.0.1:2197"
            push_providers_configure()
            assert messaging._MessagingService.FCM_URL == fake.base_url + "/v1/projects/{0}/messages:send"
            assert firebase_admin.get_app().project_id == fake.project_id
            assert apns() == [("127.0.0.1", 2197), ("127.0.0.1", 2197)]
            push_providers_configure()  # again, with the app in place: made anew
            assert firebase_admin.get_app().project_id == fake.project_id
        finally:
            settings.OKGIN_FCM_CREDENTIALS_FILE = settings.OKGIN_FCM_ENDPOINT = settings.OKGIN_APNS_ENDPOINT = ""
            push_providers_configure()
    assert messaging._MessagingService.FCM_URL == "https://fcm.googleapis.com/v1/projects/{0}/messages:send"
    assert firebase_admin._DEFAULT_APP_NAME not in firebase_admin._apps
    assert apns() == [("api.push.apple.com", 443), ("api.development.push.apple.com", 443)]
