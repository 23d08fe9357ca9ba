"""Error codes a client meets outside the game rules (authentication, accounts, invitations,
webhooks, HTTP methods and media types): each request answers the listed status, code and shape
(``assert_error``) and writes nothing."""
import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.renderers import JSONRenderer
from rest_framework.test import APIClient
from rest_framework_simplejwt.exceptions import (
    AuthenticationFailed as JwtAuthenticationFailed,
)

from games.engine import BadArgument, CardParseError, IllegalAction
from games.models import Game, Move, Round
from notifications.models import WebhookEndpoint
from okgin_project.errors import exception_handler
from players.models import Player
from tests.helpers import access_token, assert_error, bearer_client

PUBLIC = "https://93.184.215.14/okgin"  # a public address literal: no DNS lookup needed


@pytest.mark.django_db
@pytest.mark.error_code("no_active_account")
def test_wrong_password_is_401_no_active_account(anon, bob):
    r = anon.post("/api/v1/auth/token/", {"username": "bob", "password": "wrong-password"}, format="json")
    assert_error(r, "no_active_account")
    r = anon.post("/api/v1/auth/token/", {"username": "nobody", "password": "s3cret-pass-x"}, format="json")
    assert_error(r, "no_active_account")


@pytest.mark.django_db
@pytest.mark.error_code("token_not_valid")
def test_a_token_that_is_not_a_jwt_is_401_token_not_valid(anon):
    r = bearer_client("not-a-jwt").get("/api/v1/me/")
    assert_error(r, "token_not_valid")
    assert r["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.django_db
@pytest.mark.error_code("bad_authorization_header")
def test_an_authorization_header_of_three_words_is_401_bad_authorization_header(anon):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer two words")
    assert_error(client.get("/api/v1/me/"), "bad_authorization_header")
    assert_error(client.post("/api/v1/games/new/", {"kind": "ai"}, format="json"), "bad_authorization_header")
    assert Game.objects.count() == 0


@pytest.mark.error_code("authentication_failed")
def test_an_authentication_failure_with_an_unlisted_code_is_authentication_failed():
    """simplejwt's precise codes are used when listed; another (``password_changed``, when token
    revocation is switched on) falls back to ``authentication_failed``: no unlisted code leaks."""
    error = assert_error(_rendered(JwtAuthenticationFailed("The user's password has been changed.",
                                                           code="password_changed")), "authentication_failed")
    assert error["message"] == "The user's password has been changed."


@pytest.mark.django_db
@pytest.mark.error_code("user_not_found")
def test_the_token_of_a_deleted_user_is_401_user_not_found(anon, bob):
    token = access_token(anon, "bob")
    get_user_model().objects.filter(username="bob").delete()
    # The access token's user is looked up on each request (players/authentication.py).
    assert assert_error(bearer_client(token).get("/api/v1/me/"), "user_not_found")["message"] == "User not found"


@pytest.mark.django_db
@pytest.mark.error_code("user_inactive")
def test_the_token_of_a_deactivated_user_is_401_user_inactive(anon, bob):
    token = access_token(anon, "bob")
    get_user_model().objects.filter(username="bob").update(is_active=False)
    client = bearer_client(token)
    n = Game.objects.count()
    error = assert_error(client.post("/api/v1/games/new/", {"kind": "ai"}, format="json"), "user_inactive")
    assert error["message"] == "User is inactive"
    assert Game.objects.count() == n


@pytest.mark.django_db
@pytest.mark.error_code("permission_denied")
def test_a_session_post_without_the_csrf_token_is_403_permission_denied(alice):
    """Session authentication (browsers, the admin's users) requires Django's CSRF token on writes."""
    browser = APIClient(enforce_csrf_checks=True)
    assert browser.login(username="alice", password="s3cret-pass-alice")
    assert browser.get("/api/v1/me/").json()["name"] == "alice"  # reads are fine
    r = browser.post("/api/v1/games/new/", {"kind": "ai"}, format="json")
    assert_error(r, "permission_denied")
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.error_code("no_player")
def test_an_account_whose_name_another_player_holds_is_409_no_player(anon, bob):
    """A staff account made outside the API (createsuperuser) named BOB while the player bob exists
    has no player profile of its own and cannot get one."""
    get_user_model().objects.create_user(username="BOB", password="s3cret-pass-BOB")
    client = bearer_client(access_token(anon, "BOB"))
    players = Player.objects.count()
    message = "This account's name belongs to another player."
    assert assert_error(client.get("/api/v1/me/"), "no_player")["message"] == message
    error = assert_error(client.post("/api/v1/games/new/", {"kind": "ai"}, format="json"), "no_player")
    assert error["message"] == message
    assert Player.objects.count() == players and Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.error_code("invitation_expired")
def test_accepting_an_expired_invitation_is_409_and_starts_nothing(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "invitation_ttl": 60}, format="json")
    gid, version = r.json()["id"], r.json()["version"]
    Game.objects.filter(pk=gid).update(invitation_expires_at=timezone.now() - timezone.timedelta(seconds=1))
    assert_error(bob.post(f"/api/v1/games/{gid}/accept/"), "invitation_expired")
    g = Game.objects.get(pk=gid)  # the expiry was applied instead, nothing started
    assert (g.status, g.end_reason, g.version, g.state, g.player1.name) == ("aborted", "expired", version + 1,
                                                                            None, "bob")
    assert not Round.objects.filter(game=g).exists()


@pytest.mark.django_db
@pytest.mark.error_code("invalid_opponent")
def test_inviting_yourself_or_an_ai_is_409_invalid_opponent(alice):
    assert alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "simple"}, format="json").status_code == 201
    n = Game.objects.count()
    for name in ("alice", "ALICE", "ai-simple"):
        r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": name}, format="json")
        assert_error(r, "invalid_opponent")
    assert Game.objects.count() == n


@pytest.mark.django_db
@pytest.mark.error_code("bad_ai_level")
def test_an_unknown_ai_level_is_400_bad_ai_level(alice):
    for level in ("medium", "", "STRONG", None, 3):
        r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": level}, format="json")
        error = assert_error(r, "bad_ai_level")
        assert "random, simple, strong" in error["message"]
    assert Game.objects.count() == 0 and not Player.objects.filter(is_ai=True).exists()


@pytest.mark.django_db
@pytest.mark.error_code("bad_url")
def test_a_webhook_url_that_is_not_http_is_400_bad_url(bob):
    for url in ("ftp://93.184.215.14/x", "93.184.215.14/x", "https://user:pw@93.184.215.14/x", "http://"):
        assert_error(bob.post("/api/v1/webhooks/", {"url": url}, format="json"), "bad_url")
    assert WebhookEndpoint.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.error_code("too_many_webhooks")
def test_a_webhook_over_the_limit_is_409_too_many_webhooks(bob, settings):
    settings.OKGIN_WEBHOOKS_PER_PLAYER = 3
    for i in range(3):
        assert bob.post("/api/v1/webhooks/", {"url": f"{PUBLIC}/{i}"}, format="json").status_code == 201
    error = assert_error(bob.post("/api/v1/webhooks/", {"url": f"{PUBLIC}/3"}, format="json"), "too_many_webhooks")
    assert error["message"] == "You have registered the maximum number of webhooks."
    assert sorted(WebhookEndpoint.objects.values_list("url", flat=True)) == [f"{PUBLIC}/{i}" for i in range(3)]


@pytest.mark.django_db
@pytest.mark.error_code("method_not_allowed")
def test_a_method_the_url_does_not_have_is_405_with_allow(alice):
    r = alice.delete("/api/v1/games/new/")
    assert_error(r, "method_not_allowed")
    assert "POST" in r["Allow"] and "DELETE" not in r["Allow"]
    assert_error(alice.put("/api/v1/me/", {}, format="json"), "method_not_allowed")


@pytest.mark.django_db
@pytest.mark.error_code("not_acceptable")
def test_asking_for_html_is_406_not_acceptable(alice):
    r = alice.get("/api/v1/me/", HTTP_ACCEPT="text/html")
    assert_error(r, "not_acceptable")
    assert alice.get("/api/v1/me/", HTTP_ACCEPT="application/json").status_code == 200


@pytest.mark.django_db
@pytest.mark.error_code("bad_request")
def test_a_host_not_in_allowed_hosts_is_400_bad_request(alice):
    n = Game.objects.count()
    assert_error(alice.post("/api/v1/games/new/", {"kind": "ai"}, format="json", HTTP_HOST="evil.example"),
                 "bad_request")
    assert Game.objects.count() == n


@pytest.mark.django_db
@pytest.mark.error_code("game_not_active")
def test_acting_on_a_resigned_game_is_409_game_not_active(alice, bob):
    gid = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob"}, format="json").json()["id"]
    game = bob.post(f"/api/v1/games/{gid}/accept/").json()
    finished = alice.post(f"/api/v1/games/{gid}/resign/").json()
    assert (finished["status"], finished["winner_seat"]) == ("finished", 1)
    me = alice if game["to_act"] == 0 else bob
    r = me.post(f"/api/v1/games/{gid}/actions/", {"version": finished["version"], "action": {"type": "pass"}},
                format="json")
    assert assert_error(r, "game_not_active")["message"] == "The game is not in play."
    again = assert_error(alice.post(f"/api/v1/games/{gid}/resign/"), "game_not_active")
    assert again["message"] == "The game is not in play."
    assert Game.objects.get(pk=gid).version == finished["version"] and not Move.objects.filter(game_id=gid).exists()


def _rendered(exc):
    response = exception_handler(exc, {})
    response.accepted_renderer, response.accepted_media_type, response.renderer_context = (
        JSONRenderer(), "application/json", {})
    return response.render()


# The engine's refusals that no request of today's API reaches (a finished match answers
# game_not_active first, the serializers refuse bad card codes as malformed_action, a wrong Python
# argument type only comes from code using the engine as a library): the exception
# handler renders them like every engine error, with the status of the table and the rule.
@pytest.mark.parametrize("exc,code", [
    pytest.param(IllegalAction("you may not do that now", rule="R7.1"), "illegal_action",
                 marks=pytest.mark.error_code("illegal_action")),
    pytest.param(IllegalAction("the match is over", code="match_over", rule="R10.1"), "match_over",
                 marks=pytest.mark.error_code("match_over")),
    pytest.param(CardParseError("'1X' is not a card", rule="R1.2"), "bad_card", marks=pytest.mark.error_code("bad_card")),
    pytest.param(BadArgument("seat must be 0 or 1, got 2"), "bad_argument", marks=pytest.mark.error_code("bad_argument")),
])
def test_engine_refusals_without_an_api_path_render_with_their_status(exc, code):
    error = assert_error(_rendered(exc), code)
    assert error == {"code": code, "message": exc.message, **({"rule": exc.rule} if exc.rule else {})}
