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
