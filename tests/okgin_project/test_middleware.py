"""Under /api/ every error is the JSON shape, with DEBUG on or off: control characters in the URL
(400), an exception escaping a view (500 without details)."""
import pytest
from rest_framework.test import APIClient

from players.models import Player
from tests.helpers import assert_error


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("url", ["/api/v1/players/a%00b/stats/", "/api/v1/games/?opponent=a%00b",
                                 "/api/v1/events/?after=%00"])
def test_nul_in_the_url_is_a_validation_error(alice, settings, debug, url):
    settings.DEBUG = debug
    r = alice.get(url)
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.error_code("server_error")
def test_an_unexpected_exception_is_a_json_500_without_details(alice, settings, monkeypatch, debug):
    settings.DEBUG = debug

    def boom(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr("players.views.player_stats", boom)
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=alice._credentials["HTTP_AUTHORIZATION"])
    r = client.get("/api/v1/me/stats/")
    assert_error(r, "server_error")
    assert r.json() == {"error": {"code": "server_error", "message": "Internal server error."}}


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.error_code("unsupported_media_type")
def test_a_form_post_is_json_415(anon, settings, debug):
    settings.DEBUG = debug
    r = anon.post("/api/v1/auth/register/", {"username": "x"})  # multipart form, not JSON
    assert_error(r, "unsupported_media_type")
    assert Player.objects.count() == 0
