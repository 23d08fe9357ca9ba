"""Request strictness, unknown URLs, the participant-only 404, the API index and CORS."""
import pytest
from django.contrib.auth import get_user_model

from games.models import Game
from tests.helpers import register

REGISTER = "/api/v1/auth/register/"


def _users() -> int:
    return get_user_model().objects.count()


@pytest.mark.django_db
@pytest.mark.parametrize("body, field, code", [
    ({"username": "carol", "password": "s3cret-pass-carol", "colour": "red"}, "colour", "unknown_field"),
    ({"username": 12345, "password": "s3cret-pass-carol"}, "username", "not_a_string"),
    ({"username": "carol", "password": 123456789}, "password", "not_a_string"),
    ({"username": "carol", "password": "s3cret-pass-carol", "email": ["a@b.example"]}, "email", "not_a_string"),
])
def test_register_refuses_unknown_fields_and_non_strings_and_writes_nothing(anon, body, field, code):
    before = _users()
    r = anon.post(REGISTER, body, format="json")
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "validation_error"
    assert [e["code"] for e in error["detail"][field]] == [code]
    assert _users() == before


@pytest.mark.django_db
def test_a_weak_password_is_a_field_error_of_password(anon):
    r = anon.post(REGISTER, {"username": "carol", "password": "12345678"}, format="json")
    assert r.status_code == 400
    codes = {e["code"] for e in r.json()["error"]["detail"]["password"]}
    assert "password_entirely_numeric" in codes and _users() == 0


@pytest.mark.django_db
def test_login_and_refresh_refuse_unknown_fields_and_non_strings(anon, bob):
    r = anon.post("/api/v1/auth/token/", {"username": "bob", "password": "s3cret-pass-bob", "otp": "1"},
                  format="json")
    assert r.status_code == 400 and list(r.json()["error"]["detail"]) == ["otp"]
    r = anon.post("/api/v1/auth/token/", {"username": ["bob"], "password": "s3cret-pass-bob"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["detail"]["username"][0]["code"] == "not_a_string"
    r = anon.post("/api/v1/auth/token/refresh/", {"refresh": 7}, format="json")
    assert r.status_code == 400 and r.json()["error"]["detail"]["refresh"][0]["code"] == "not_a_string"


@pytest.mark.django_db
def test_duplicate_keys_are_refused(anon):
    body = b'{"username": "carol", "password": "s3cret-pass-carol", "username": "mallory"}'
    r = anon.post(REGISTER, body, content_type="application/json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json"
    assert "username" in r.json()["error"]["message"] and _users() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("content_type, status", [
    ("application/json; charset=latin-1", 415),
    ("application/json; charset=UTF-16", 415),
    ("application/json; charset=utf-8", 201),
    ('application/json; Charset="UTF-8"', 201),
])
def test_only_utf8_is_read(anon, content_type, status):
    body = '{"username": "carol", "password": "s3cret-pass-carol"}'.encode()
    r = anon.post(REGISTER, body, content_type=content_type)
    assert r.status_code == status, r.content
    if status == 415:
        assert r.json()["error"]["code"] == "unsupported_media_type" and _users() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
def test_unknown_api_urls_are_404_for_every_method(method):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    kwargs = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
    r = getattr(client, method)("/api/v1/nothing-here/", **kwargs)
    assert r.status_code == 404
    assert r.json() == {"error": {"code": "not_found", "message": "Not found."}}


@pytest.mark.django_db
def test_accept_decline_abort_on_a_game_you_are_not_in_answer_the_same_404(alice, bob, anon):
    carol = register(anon, "carol")
    ai = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json").json()
    invite = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()
    started = alice.post("/api/v1/games/new/", {"kind": "open"}, format="json").json()
    assert bob.post(f"/api/v1/games/{started['id']}/accept/").status_code == 200
    missing = max(g["id"] for g in (ai, invite, started)) + 1000
    answers = set()
    for gid in (ai["id"], invite["id"], started["id"], missing):
        for op in ("accept", "decline", "abort", "resign"):
            before = Game.objects.filter(pk=gid).values_list("version", flat=True).first()
            r = carol.post(f"/api/v1/games/{gid}/{op}/")
            answers.add((r.status_code, r.content))
            assert Game.objects.filter(pk=gid).values_list("version", flat=True).first() == before
    statuses = {s for s, _ in answers}
    assert statuses == {404}
    assert {r.decode() for _, r in answers} <= {
        '{"error":{"code":"not_found","message":"No such invitation."}}',
        '{"error":{"code":"not_found","message":"No such game."}}',
    }


@pytest.mark.django_db
def test_the_api_index_links_the_schema_docs_and_collections(anon):
    r = anon.get("/api/v1/")
    assert r.status_code == 200
    links = r.json()["links"]
    assert links["schema"] == "http://testserver/api/schema/"
    assert links["games"] == "http://testserver/api/v1/games/"
    assert links["events"] == "http://testserver/api/v1/events/"
    for url in (links["schema"], links["docs"]):
        assert anon.get(url).status_code == 200


@pytest.mark.django_db
def test_cors_allows_no_origin_by_default(anon):
    r = anon.options("/api/v1/games/", HTTP_ORIGIN="https://play.example.com",
                     HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET")
    assert "access-control-allow-origin" not in r.headers


@pytest.mark.django_db
def test_cors_preflight_is_answered_before_authentication(anon, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://play.example.com"]
    r = anon.options("/api/v1/games/1/actions/", HTTP_ORIGIN="https://play.example.com",
                     HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
                     HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type, idempotency-key")
    assert r.status_code == 200  # no credentials were sent, yet no 401
    assert r.headers["access-control-allow-origin"] == "https://play.example.com"
    assert "idempotency-key" in r.headers["access-control-allow-headers"]
    # The actual request then carries the headers a browser app may read.
    r = anon.get("/api/v1/games/", HTTP_ORIGIN="https://play.example.com")
    assert r.status_code == 401 and r.headers["access-control-allow-origin"] == "https://play.example.com"
    assert "etag" in r.headers["access-control-expose-headers"]
    r = anon.get("/api/v1/games/", HTTP_ORIGIN="https://evil.example.com")
    assert "access-control-allow-origin" not in r.headers


@pytest.mark.django_db
def test_field_errors_name_nested_fields_by_their_dotted_path(alice):
    r = alice.post("/api/v1/games/new/", {"kind": "open", "rules": {"colour": "red"}}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_rules"
    assert r.json()["error"]["detail"] == {"rules.colour": [{"code": "unknown_field", "message": "Unknown field."}]}
    r = alice.post("/api/v1/games/new/", {"kind": "open", "rules": {"gin_bonus": "25"}}, format="json")
    assert r.status_code == 400 and list(r.json()["error"]["detail"]) == ["rules.gin_bonus"]
    r = alice.post("/api/v1/games/new/", {"kind": "open", "decks": [["AC"] * 52, [7] * 52]}, format="json")
    assert r.status_code == 400
    assert set(r.json()["error"]["detail"]) == {f"decks.1.{i}" for i in range(52)}
    assert r.json()["error"]["detail"]["decks.1.0"][0]["code"] == "not_a_string"
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("url, method, body, field, code", [
    ("/api/v1/devices/", "post", {"platform": "apns", "registration_id": "ab" * 32, "name": 7}, "name", "not_a_string"),
    ("/api/v1/devices/", "post", {"platform": "webpush", "registration_id": "t" * 20, "keys": {"p256dh": 1, "auth": 2}},
     "keys.auth", "not_a_string"),
    ("/api/v1/me/push-settings/", "patch", {"deadline_near_in_quiet_hours": "true"}, "deadline_near_in_quiet_hours",
     "invalid"),
])
def test_devices_and_push_settings_take_json_types_only(alice, url, method, body, field, code):
    """A JSON number where a string is meant, or a string where a boolean is, is a field error:
    no device is registered, the push settings are unchanged."""
    from notifications.models import PushSettings
    from push_notifications.models import APNSDevice, WebPushDevice

    r = getattr(alice, method)(url, body, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error", r.content
    assert [e["code"] for e in r.json()["error"]["detail"][field]] == [code]
    assert APNSDevice.objects.count() == WebPushDevice.objects.count() == PushSettings.objects.count() == 0


def _bodyless_posts(client) -> list[str]:
    """The paths of every POST operation whose schema takes no request body."""
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    return sorted(path for path, ops in schema["paths"].items()
                  if "post" in ops and "requestBody" not in ops["post"])


@pytest.mark.django_db
def test_operations_without_a_body_refuse_one_and_write_nothing(alice, bob):
    from games.models import IdempotencyRecord, Move
    from notifications.models import Event
    from players.models import Player

    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    paths = _bodyless_posts(alice)
    # accept, decline, abort, resign, the three rematch operations, review, vacation on and off
    assert len(paths) >= 10, paths
    def snapshot():
        return (list(Game.objects.order_by("pk").values_list("pk", "version", "status", "rematch_status")),
                Event.objects.count(), Move.objects.count(), IdempotencyRecord.objects.count(),
                list(Player.objects.order_by("pk").values_list("pk", "vacation_started_at", "vacation_balance")))

    before = snapshot()
    for path in paths:
        url = path.replace("{id}", str(gid)).replace("{game_id}", str(gid))
        for body in ({"evil": 1}, [1]):
            r = bob.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=f"k-{path}-{type(body).__name__}")
            assert r.status_code == 400, (path, body, r.content)
            error = r.json()["error"]
            assert error["code"] == "validation_error", (path, error)
            if body == {"evil": 1}:
                assert [e["code"] for e in error["detail"]["evil"]] == ["unknown_field"], (path, error)
        assert snapshot() == before, path
    # No body, or an empty object, is what these operations take: bob accepts with {}.
    r = bob.post(f"/api/v1/games/{gid}/accept/", {}, format="json")
    assert r.status_code == 200, r.content
    assert Game.objects.get(pk=gid).status == "active"
