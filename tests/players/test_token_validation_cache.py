"""players/authentication.py: each web process validates an access token (signature, ``exp``,
type) once and reuses the result until the token's ``exp``, which is checked again at every use;
refused tokens are never kept (issue 14). The cache is emptied before each test (tests/conftest.py)."""
from datetime import datetime, timedelta, timezone

import jwt
import pytest
from rest_framework_simplejwt.backends import TokenBackend

from players import authentication
from tests.helpers import access_token, assert_error, bearer_client

pytestmark = pytest.mark.django_db
API = "/api/v1"


@pytest.fixture
def decodes(monkeypatch):
    """The number of times simplejwt decoded a token (the real decoding, counted)."""
    calls = []
    real = TokenBackend.decode

    def counted(self, token, verify=True):
        calls.append(token)
        return real(self, token, verify)

    monkeypatch.setattr(TokenBackend, "decode", counted)
    return calls


def _clocks_at(monkeypatch, when: datetime) -> None:
    """Every clock the token check reads (this cache's, simplejwt's and PyJWT's) shows ``when``."""
    class Moved(datetime):
        @classmethod
        def now(cls, tz=None):
            return when if tz is not None else when.replace(tzinfo=None)

    monkeypatch.setattr(authentication.time, "time", lambda: when.timestamp())
    monkeypatch.setattr(jwt.api_jwt, "datetime", Moved)
    monkeypatch.setattr("rest_framework_simplejwt.tokens.aware_utcnow", lambda: when)


def test_a_token_is_decoded_once_per_process_and_each_token_on_its_own(bob, alice, anon, decodes):
    bob_token, alice_token = access_token(anon, "bob"), access_token(anon, "alice")
    decodes.clear()
    bob_client = bearer_client(bob_token)
    for _ in range(3):
        r = bob_client.get(f"{API}/me/")
        assert r.status_code == 200 and r.json()["name"] == "bob"
    assert decodes == [bob_token.encode()]
    r = bearer_client(alice_token).get(f"{API}/me/")
    assert r.status_code == 200 and r.json()["name"] == "alice"
    assert decodes == [bob_token.encode(), alice_token.encode()]


@pytest.mark.error_code("token_not_valid")
def test_a_kept_token_is_refused_once_its_exp_passes(bob, anon, decodes, monkeypatch):
    token = access_token(anon, "bob")
    decodes.clear()
    client = bearer_client(token)
    assert client.get(f"{API}/me/").status_code == 200  # kept now
    exp = datetime.fromtimestamp(jwt.decode(token, options={"verify_signature": False})["exp"], timezone.utc)
    _clocks_at(monkeypatch, exp - timedelta(seconds=1))
    assert client.get(f"{API}/me/").status_code == 200  # still valid, from the cache
    assert decodes == [token.encode()]
    _clocks_at(monkeypatch, exp)  # simplejwt refuses at exp <= now (no leeway configured)
    assert_error(client.get(f"{API}/me/"), "token_not_valid")
    assert_error(client.get(f"{API}/me/"), "token_not_valid")
    assert decodes == [token.encode()] * 3  # decoded again each time, refused each time


@pytest.mark.error_code("token_not_valid")
def test_a_refused_token_is_not_kept(bob, anon, decodes):
    token = access_token(anon, "bob")
    header, payload, signature = token.split(".")
    forged = f"{header}.{payload}.{signature[:-4]}AAAA"
    decodes.clear()
    for _ in range(2):
        assert_error(bearer_client(forged).get(f"{API}/me/"), "token_not_valid")
    assert decodes == [forged.encode(), forged.encode()]
    assert forged.encode() not in authentication._validated
