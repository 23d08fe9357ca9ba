"""Unknown URLs under /api/ answer the JSON error shape, with DEBUG on or off."""
import pytest


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize("url", ["/api/v1/nope/", "/api/v1/games/abc/", "/api/v2/games/", "/api/"])
def test_unknown_api_url_is_a_json_404(client, settings, debug, url):
    settings.DEBUG = debug
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"error": {"code": "not_found", "message": "Not found."}}


@pytest.mark.django_db
def test_an_unknown_url_and_a_view_write_the_same_bytes(alice):
    """The 404 of an unknown URL (Django's handler404) and of a view (DRF) are the same bytes: compact
    JSON, as the renderer writes it (the handler wrote spaces after ',' and ':')."""
    from_url = alice.get("/api/v1/games/abc/")
    from_view = alice.get("/api/v1/games/999999/")
    assert from_url.status_code == from_view.status_code == 404
    assert from_url.content == b'{"error":{"code":"not_found","message":"Not found."}}'
    assert from_view.json()["error"]["code"] == "not_found" and b", " not in from_view.content
