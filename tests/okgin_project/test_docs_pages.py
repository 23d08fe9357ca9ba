"""The API docs (Swagger UI, ReDoc) and the admin login load only this server's assets, all 200
(served by WhiteNoise; tests/deploy/test_production_smoke.py checks the same under gunicorn with
production settings and collected static files)."""
import pytest

from tests.deploy.test_production_smoke import _Assets


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/", "/admin/login/"])
def test_page_assets_are_local_and_served(client, page):
    response = client.get(page)
    assert response.status_code == 200
    parser = _Assets()
    parser.feed(response.content.decode())
    assert any(u.startswith("/static/") for u in parser.urls), parser.urls
    for url in parser.urls:
        assert url.startswith("/") and not url.startswith("//"), f"{page} loads {url} from elsewhere"
        asset = client.get(url)
        assert asset.status_code == 200, url
