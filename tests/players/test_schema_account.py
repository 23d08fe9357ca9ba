"""The account lifecycle endpoints answer what /api/schema/ documents (bodies per status code,
request bodies, no undocumented fields)."""
import pytest

from tests.okgin_project.test_schema_conformance import Checked, _login, schema  # noqa: F401


@pytest.mark.django_db
def test_account_endpoints_conform_to_the_schema(schema, anon):  # noqa: F811
    checked: list = []
    guest = Checked(schema, anon, checked)
    carol = _login(guest, guest, "carol")
    _, pair = carol.call("POST", "/api/v1/me/password/", {"current_password": "s3cret-pass-carol",
                                                         "new_password": "another-long-phrase-1"}, expect=200)
    _, err = carol.call("GET", "/api/v1/me/", expect=401)
    assert err["error"]["code"] == "token_not_valid"
    _, err = guest.call("POST", "/api/v1/me/password/", {"current_password": "x", "new_password": "y" * 9},
                        expect=401)
    _, pair = guest.call("POST", "/api/v1/auth/token/refresh/", {"refresh": pair["refresh"]}, expect=200)
    guest.call("POST", "/api/v1/auth/logout/", {"refresh": pair["refresh"]}, expect=204)
    _, err = guest.call("POST", "/api/v1/auth/logout/", {"refresh": pair["refresh"]}, expect=401)
    _, err = guest.call("POST", "/api/v1/auth/logout/", {}, expect=400, validate_request=False)
    dave = _login(guest, guest, "dave")
    _, err = dave.call("POST", "/api/v1/me/password/", {"current_password": "nope", "new_password": "z" * 12},
                       expect=400)
    assert err["error"]["code"] == "wrong_password"
    _, err = dave.call("POST", "/api/v1/me/delete/", {"password": "nope"}, expect=400)
    assert err["error"]["code"] == "wrong_password"
    dave.call("POST", "/api/v1/me/delete/", {"password": "s3cret-pass-dave"}, expect=204)
    _, err = dave.call("GET", "/api/v1/me/", expect=401)
    assert err["error"]["code"] == "user_not_found"
    assert {op for _m, op, _s in checked} >= {"password_change", "token_refresh", "logout", "account_delete"}
