"""Account lifecycle over the API: refresh rotation with a blacklist, logout, password change that
revokes every earlier token (access tokens too), and account deletion (games resigned, personal
data gone, finished games kept under a placeholder name). Rejected requests write nothing."""
from datetime import datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from push_notifications.models import APNSDevice
from rest_framework.test import APIClient
from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken, OutstandingToken

from games.models import Game
from notifications.models import Event, PushSettings, WebhookEndpoint
from players.models import Player

pytestmark = pytest.mark.django_db
API = "/api/v1"


def _signup(name: str, password: str | None = None) -> dict:
    """Register ``name`` and log in: ``{"client", "access", "refresh", "password"}``."""
    password = password or "s3cret-pass-" + name
    anon = APIClient()
    assert anon.post(f"{API}/auth/register/", {"username": name, "password": password}, format="json").status_code == 201
    r = anon.post(f"{API}/auth/token/", {"username": name, "password": password}, format="json")
    assert r.status_code == 200
    return {"client": _bearer(r.json()["access"]), "password": password, **r.json()}


def _bearer(access: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION="Bearer " + access)
    return c


def _refresh(token: str):
    return APIClient().post(f"{API}/auth/token/refresh/", {"refresh": token}, format="json")


def _code(r) -> str:
    return r.json()["error"]["code"]


def test_refresh_rotates_and_the_used_refresh_token_is_revoked():
    a = _signup("rota")
    r = _refresh(a["refresh"])
    assert r.status_code == 200 and set(r.json()) == {"access", "refresh"}
    new = r.json()
    assert new["refresh"] != a["refresh"]
    assert _bearer(new["access"]).get(f"{API}/me/").json()["name"] == "rota"
    again = _refresh(a["refresh"])  # the used one is blacklisted
    assert again.status_code == 401 and _code(again) == "token_not_valid"
    assert _refresh(new["refresh"]).status_code == 200


def test_logout_revokes_the_refresh_token():
    a = _signup("leaver")
    r = APIClient().post(f"{API}/auth/logout/", {"refresh": a["refresh"]}, format="json")
    assert r.status_code == 204
    r = _refresh(a["refresh"])
    assert r.status_code == 401 and _code(r) == "token_not_valid"
    r = APIClient().post(f"{API}/auth/logout/", {"refresh": a["refresh"]}, format="json")
    assert r.status_code == 401 and _code(r) == "token_not_valid"


@pytest.mark.parametrize("body, status, code", [
    ({}, 400, "validation_error"),
    ({"refresh": "not-a-jwt"}, 401, "token_not_valid"),
])
def test_logout_bad_input_writes_nothing(body, status, code):
    _signup("lazy")
    before = BlacklistedToken.objects.count()
    r = APIClient().post(f"{API}/auth/logout/", body, format="json")
    assert (r.status_code, _code(r)) == (status, code)
    assert BlacklistedToken.objects.count() == before


def test_password_change_revokes_every_earlier_token():
    a = _signup("changer")
    second = APIClient().post(f"{API}/auth/token/", {"username": "changer", "password": a["password"]},
                              format="json").json()  # another device's session
    r = a["client"].post(f"{API}/me/password/", {"current_password": a["password"],
                                                 "new_password": "a-new-long-phrase-9"}, format="json")
    assert r.status_code == 200, r.content
    fresh = r.json()
    for access in (a["access"], second["access"]):
        r = _bearer(access).get(f"{API}/me/")
        assert r.status_code == 401 and _code(r) == "token_not_valid"
    for refresh in (a["refresh"], second["refresh"]):
        r = _refresh(refresh)
        assert r.status_code == 401 and _code(r) == "token_not_valid"
    assert _bearer(fresh["access"]).get(f"{API}/me/").status_code == 200
    assert _refresh(fresh["refresh"]).status_code == 200
    login = APIClient().post(f"{API}/auth/token/", {"username": "changer", "password": a["password"]}, format="json")
    assert login.status_code == 401
    login = APIClient().post(f"{API}/auth/token/", {"username": "changer", "password": "a-new-long-phrase-9"},
                             format="json")
    assert login.status_code == 200 and _bearer(login.json()["access"]).get(f"{API}/me/").status_code == 200


def test_an_account_made_outside_the_api_keeps_its_first_tokens_once_its_player_exists():
    """A staff account made by createsuperuser has no player until its first request: the tokens
    it logged in with carry generation 0 (``token_generation_of``), the new player's generation is
    0, so the same access and refresh tokens keep working after the player is created."""
    get_user_model().objects.create_user(username="admin1", password="s3cret-pass-admin1", is_staff=True)
    r = APIClient().post(f"{API}/auth/token/", {"username": "admin1", "password": "s3cret-pass-admin1"}, format="json")
    assert r.status_code == 200, r.content
    tokens = r.json()
    assert not Player.objects.filter(name="admin1").exists()
    client = _bearer(tokens["access"])
    assert client.get(f"{API}/me/").json()["name"] == "admin1"  # the first request creates the player
    assert Player.objects.get(name="admin1").token_generation == 0
    assert client.get(f"{API}/me/").status_code == 200  # the same token, now checked against the player
    assert _refresh(tokens["refresh"]).status_code == 200


def test_account_deletion_applies_a_passed_deadline_instead_of_resigning():
    # The seat to act let the turn's time run out (forfeit) before bob deletes his account: the
    # match ends on time (the other seat wins), not by bob's resignation; the deletion goes through.
    alice, bob = _signup("alice"), _signup("bob")
    r = alice["client"].post(f"{API}/games/new/", {"kind": "invite", "opponent": "bob", "move_time_limit": 600,
                                                   "timeout_policy": "forfeit"}, format="json")
    gid = r.json()["id"]
    late = bob["client"].post(f"{API}/games/{gid}/accept/").json()["to_act"]
    Game.objects.filter(pk=gid).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    r = bob["client"].post(f"{API}/me/delete/", {"password": bob["password"]}, format="json")
    assert r.status_code == 204, r.content
    g = Game.objects.get(pk=gid)
    assert (g.status, g.end_reason, g.winner_seat) == ("finished", "timeout", 1 - late)
    assert not get_user_model().objects.filter(username="bob").exists()


@pytest.mark.parametrize("body, code", [
    ({"current_password": "wrong-password-1", "new_password": "a-new-long-phrase-9"}, "wrong_password"),
    ({"new_password": "a-new-long-phrase-9"}, "validation_error"),
    ({"current_password": None, "new_password": "a-new-long-phrase-9"}, "validation_error"),
    ({"current_password": "s3cret-pass-keeper", "new_password": "12345678"}, "validation_error"),
    ({"current_password": "s3cret-pass-keeper", "new_password": "short"}, "validation_error"),
])
def test_a_refused_password_change_writes_nothing(body, code):
    a = _signup("keeper")
    user = get_user_model().objects.get(username="keeper")
    before = (user.password, Player.objects.get(user=user).token_generation, BlacklistedToken.objects.count())
    r = a["client"].post(f"{API}/me/password/", body, format="json")
    assert r.status_code == 400 and _code(r) == code
    user.refresh_from_db()
    assert (user.password, Player.objects.get(user=user).token_generation,
            BlacklistedToken.objects.count()) == before
    assert a["client"].get(f"{API}/me/").status_code == 200 and _refresh(a["refresh"]).status_code == 200


def _invite_and_accept(host: APIClient, guest: APIClient, guest_name: str) -> int:
    r = host.post(f"{API}/games/new/", {"kind": "invite", "opponent": guest_name}, format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert guest.post(f"{API}/games/{gid}/accept/").status_code == 200
    return gid


def test_account_deletion_resigns_active_games_and_keeps_finished_ones_anonymized():
    alice, bob = _signup("alice"), _signup("bob")
    finished = _invite_and_accept(alice["client"], bob["client"], "bob")
    assert alice["client"].post(f"{API}/games/{finished}/resign/").status_code == 200  # bob won it
    active = _invite_and_accept(alice["client"], bob["client"], "bob")
    invited_by_bob = bob["client"].post(f"{API}/games/new/", {"kind": "invite", "opponent": "alice"},
                                        format="json").json()["id"]
    invited_bob = alice["client"].post(f"{API}/games/new/", {"kind": "invite", "opponent": "bob"},
                                       format="json").json()["id"]
    ai_game = bob["client"].post(f"{API}/games/new/", {"kind": "ai", "ai_level": "random"}, format="json").json()["id"]
    r = bob["client"].post(f"{API}/webhooks/", {"url": "https://93.184.215.14/hook"}, format="json")
    assert r.status_code == 201, r.content
    r = bob["client"].post(f"{API}/devices/", {"platform": "apns", "registration_id": "ab" * 32}, format="json")
    assert r.status_code == 201, r.content
    bob["client"].patch(f"{API}/me/push-settings/", {"time_zone": "Europe/Oslo"}, format="json")
    bob_player = Player.objects.get(name="bob")
    assert Event.objects.filter(player=bob_player).exists() and APNSDevice.objects.count() == 1

    r = bob["client"].post(f"{API}/me/delete/", {"password": bob["password"]}, format="json")
    assert r.status_code == 204, r.content

    bob_player.refresh_from_db()
    assert bob_player.user_id is None and bob_player.deleted_at is not None
    assert bob_player.name.startswith("deleted-") and "bob" not in bob_player.name
    assert not get_user_model().objects.filter(username="bob").exists()
    assert not WebhookEndpoint.objects.filter(player=bob_player).exists()
    assert not Event.objects.filter(player=bob_player).exists()
    assert APNSDevice.objects.count() == 0 and not PushSettings.objects.filter(player=bob_player).exists()
    assert bob_player.time_zone == "UTC"
    assert not OutstandingToken.objects.filter(token__in=[bob["refresh"]]).exists()
    g = Game.objects.get(pk=active)
    assert (g.status, g.end_reason, g.winner_seat) == ("finished", "resigned", 0)  # alice (seat 0) won
    assert Game.objects.get(pk=ai_game).status == "finished"
    assert Game.objects.get(pk=invited_by_bob).status == "aborted"
    assert Game.objects.get(pk=invited_bob).status == "declined"
    # alice still sees both finished games, with the placeholder in bob's seat, and was told
    for gid, winner in ((finished, 1), (active, 0)):
        r = alice["client"].get(f"{API}/games/{gid}/")
        assert r.status_code == 200
        assert r.json()["seats"][1]["name"] == bob_player.name and r.json()["winner_seat"] == winner
    kinds = [e["kind"] for e in alice["client"].get(f"{API}/events/?limit=200").json()["results"]
             if e["game_id"] == active]
    assert kinds[-1] == "match_over"
    # bob's tokens are dead: access (401, not 500) and refresh
    r = bob["client"].get(f"{API}/me/")
    assert r.status_code == 401 and _code(r) == "user_not_found"
    r = _refresh(bob["refresh"])
    assert r.status_code == 401 and _code(r) == "user_not_found"
    # the placeholder cannot be invited, and the name is free for a new person
    r = alice["client"].post(f"{API}/games/new/", {"kind": "invite", "opponent": bob_player.name}, format="json")
    assert r.status_code == 404
    assert _signup("bob")["client"].get(f"{API}/me/").json()["name"] == "bob"


@pytest.mark.parametrize("body, code", [
    ({"password": "not-my-password"}, "wrong_password"),
    ({}, "validation_error"),
    ({"password": ["x"]}, "validation_error"),
])
def test_a_refused_account_deletion_writes_nothing(body, code):
    alice, bob = _signup("alice"), _signup("bob")
    gid = _invite_and_accept(alice["client"], bob["client"], "bob")
    version = Game.objects.get(pk=gid).version
    r = bob["client"].post(f"{API}/me/delete/", body, format="json")
    assert r.status_code == 400 and _code(r) == code
    assert get_user_model().objects.filter(username="bob").exists()
    assert Game.objects.get(pk=gid).status == "active" and Game.objects.get(pk=gid).version == version
    assert bob["client"].get(f"{API}/me/").status_code == 200


@pytest.mark.parametrize("name", ["deleted-1", "Deleted-x", "DELETED-y", "ai-x", "Ai-strong",
                                  " abcw", "abcq\n", "abc\t", "\nabcz"])  # not trimmed into a name
def test_the_placeholder_and_ai_prefixes_are_reserved(name):
    r = APIClient().post(f"{API}/auth/register/", {"username": name, "password": "correct-horse-42"}, format="json")
    assert r.status_code == 400 and _code(r) == "validation_error"
    assert [e["code"] for e in r.json()["error"]["detail"]["username"]] == ["invalid"]
    assert not get_user_model().objects.exists() and not Player.objects.filter(name__iexact=name).exists()


@pytest.mark.parametrize("name", ["deletedx", "delete-me", "aim", "ai_x", "xai-"])
def test_names_near_the_reserved_prefixes_are_free(name):
    r = APIClient().post(f"{API}/auth/register/", {"username": name, "password": "correct-horse-42"}, format="json")
    assert r.status_code == 201, r.content


def test_the_schemas_username_pattern_is_ecmascript_and_agrees_with_the_server():
    """The pattern a generated client checks names with has no Python-only syntax (the scoped
    ``(?i:...)`` flag it used to have breaks JavaScript's RegExp), and accepts and refuses what the
    server does."""
    import re

    r = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    pattern = r.json()["components"]["schemas"]["RegisterInputRequest"]["properties"]["username"]["pattern"]
    assert not re.search(r"\(\?[aiLmsux]|\(\?P|\\[AZ]", pattern), pattern
    for name, ok in [("deleted-1", False), ("DeLeTeD-2", False), ("AI-x", False), ("deletedx", True),
                     ("ai_x", True), ("ab", False), ("a" * 30, True), ("a" * 31, False), ("no space", False)]:
        assert bool(re.fullmatch(pattern, name)) is ok, name


def test_the_game_view_and_the_action_answer_carry_server_time():
    alice, bob = _signup("alice"), _signup("bob")
    before = datetime.now().astimezone()
    gid = _invite_and_accept(alice["client"], bob["client"], "bob")
    detail = alice["client"].get(f"{API}/games/{gid}/").json()
    mover = alice if detail["to_act"] == detail["your_seat"] else bob  # the non-dealer may pass (R5)
    acted = mover["client"].post(f"{API}/games/{gid}/actions/", {"version": detail["version"],
                                                                "action": {"type": "pass"}}, format="json")
    assert acted.status_code == 200, acted.content
    after = datetime.now().astimezone()
    for body in (detail, acted.json()["game"]):
        server = datetime.fromisoformat(body["server_time"].replace("Z", "+00:00"))
        assert before <= server <= after


def test_a_password_is_kept_exactly_as_typed_spaces_included():
    """Register, login and password change all take the password verbatim: leading and trailing
    spaces are part of it (register used to trim them, so the same string then failed to log in)."""
    spaced = "  spaced-horse-42  "
    a = _signup("spacer", spaced)  # logs in with the same string: 200
    user = get_user_model().objects.get(username="spacer")
    assert user.check_password(spaced) and not user.check_password(spaced.strip())
    r = APIClient().post(f"{API}/auth/token/", {"username": "spacer", "password": spaced.strip()}, format="json")
    assert r.status_code == 401
    r = a["client"].post(f"{API}/me/password/", {"current_password": spaced, "new_password": " another-horse-7 "},
                         format="json")
    assert r.status_code in (200, 204), r.content
    user.refresh_from_db()
    assert user.check_password(" another-horse-7 ")


@pytest.mark.parametrize("password", [" " * 8, "\t" * 12, " \n " * 5])
def test_a_password_of_whitespace_only_is_refused(password):
    r = APIClient().post(f"{API}/auth/register/", {"username": "blank", "password": password}, format="json")
    assert r.status_code == 400 and _code(r) == "validation_error"
    assert "password_only_whitespace" in [e["code"] for e in r.json()["error"]["detail"]["password"]]
    assert not get_user_model().objects.exists() and not Player.objects.exists()
    a = _signup("blanker")
    r = a["client"].post(f"{API}/me/password/", {"current_password": a["password"], "new_password": password},
                         format="json")
    assert r.status_code == 400 and _code(r) == "validation_error"
    user = get_user_model().objects.get(username="blanker")
    assert user.check_password(a["password"])
