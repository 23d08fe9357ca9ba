"""Each error code of issue 11 (accounts, devices, push settings, long-polls) answered by the API,
with the error shape (``assert_error``), and nothing written."""
import pytest
from push_notifications.models import APNSDevice

from notifications import live
from tests.helpers import assert_error

API = "/api/v1"


@pytest.mark.django_db
@pytest.mark.error_code("wrong_password")
def test_wrong_password(bob):
    assert_error(bob.post(f"{API}/me/password/", {"current_password": "nope-nope-1",
                                                   "new_password": "another-long-phrase"}, format="json"),
                 "wrong_password")
    assert_error(bob.post(f"{API}/me/delete/", {"password": "nope-nope-1"}, format="json"), "wrong_password")
    assert bob.get(f"{API}/me/").status_code == 200


@pytest.mark.django_db
@pytest.mark.error_code("bad_platform", "bad_registration_id", "too_many_devices")
def test_device_registration_errors(bob, settings):
    assert_error(bob.post(f"{API}/devices/", {"platform": "symbian", "registration_id": "ab" * 32},
                          format="json"), "bad_platform")
    assert_error(bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "zz" * 32},
                          format="json"), "bad_registration_id")
    settings.OKGIN_PUSH_DEVICES_PER_PLAYER = 1
    assert bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "ab" * 32},
                    format="json").status_code == 201
    assert_error(bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "cd" * 32},
                          format="json"), "too_many_devices")
    assert APNSDevice.objects.count() == 1
    # Re-registering its own device is no new device: allowed at the limit.
    assert bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "ab" * 32},
                    format="json").status_code == 200


@pytest.mark.django_db
@pytest.mark.error_code("too_many_devices")
def test_a_device_moving_from_another_account_counts_toward_the_limit(alice, bob, settings):
    """A token registered by alice, then by bob who is at the limit: 409 too_many_devices, and the
    device stays alice's (moving it used to skip the count, so two accounts made the limit moot)."""
    settings.OKGIN_PUSH_DEVICES_PER_PLAYER = 1
    assert bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "ab" * 32},
                    format="json").status_code == 201
    assert alice.post(f"{API}/devices/", {"platform": "apns", "registration_id": "cd" * 32},
                      format="json").status_code == 201
    assert_error(bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "cd" * 32},
                          format="json"), "too_many_devices")
    assert APNSDevice.objects.get(registration_id="cd" * 32).user.username == "alice"
    assert APNSDevice.objects.filter(user__username="bob").count() == 1
    # Once bob has room, the token moves to him.
    bob.delete(f"{API}/devices/apns-{APNSDevice.objects.get(registration_id='ab' * 32).pk}/")
    assert bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "cd" * 32},
                    format="json").status_code == 200
    assert APNSDevice.objects.get(registration_id="cd" * 32).user.username == "bob"


@pytest.mark.django_db
@pytest.mark.error_code("bad_time_zone")
def test_bad_time_zone(bob):
    assert_error(bob.patch(f"{API}/me/push-settings/", {"time_zone": "Atlantis/Capital"}, format="json"),
                 "bad_time_zone")
    assert bob.get(f"{API}/me/push-settings/").json()["time_zone"] == "UTC"


@pytest.mark.django_db
@pytest.mark.error_code("live_unavailable")
def test_live_unavailable_when_redis_is_down_and_a_wait_is_needed(bob, settings):
    settings.OKGIN_LIVE_BACKEND = "redis"
    settings.OKGIN_LIVE_REDIS_URL = "redis://127.0.0.1:20002/0"  # nothing listens there
    live._hub = None
    try:
        r = bob.get(f"{API}/events/", {"wait": 3})  # no event yet: the request would have to wait
        assert_error(r, "live_unavailable")
        assert int(r["Retry-After"]) > 0
    finally:
        if isinstance(live._hub, live.RedisHub):
            live._hub.close()
        live._hub = None


@pytest.mark.django_db
@pytest.mark.parametrize("start", ["22:00+02:00", "22:00:00.5", "22:00Z", "24:00", "22h00", "22:00:60"])
def test_quiet_hours_take_a_local_time_as_written_only(bob, start):
    """A time with an offset (it was dropped silently: the zone is the settings' time_zone), a
    fraction or another spelling is 400 validation_error naming the field; nothing changes."""
    before = bob.get(f"{API}/me/push-settings/").json()
    r = bob.patch(f"{API}/me/push-settings/", {"quiet_hours": {"start": start, "end": "07:00"}}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error", r.content
    assert list(r.json()["error"]["detail"]) == ["quiet_hours.start"]
    assert bob.get(f"{API}/me/push-settings/").json() == before


@pytest.mark.django_db
def test_quiet_hours_take_hh_mm_and_hh_mm_ss(bob):
    for start, shown in [("22:30", "22:30:00"), ("06:05:09", "06:05:09")]:
        r = bob.patch(f"{API}/me/push-settings/", {"quiet_hours": {"start": start, "end": "07:00"}}, format="json")
        assert r.status_code == 200, r.content
        assert r.json()["quiet_hours"]["start"] == shown


@pytest.mark.django_db
def test_an_apns_token_in_upper_case_is_the_same_device(bob):
    """APNs tokens are hex: "AB..." and "ab..." name one device (they were two)."""
    first = bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "ab" * 32}, format="json")
    again = bob.post(f"{API}/devices/", {"platform": "apns", "registration_id": "AB" * 32}, format="json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert list(APNSDevice.objects.values_list("registration_id", flat=True)) == ["ab" * 32]
