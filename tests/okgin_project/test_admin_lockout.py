"""The admin login is rate limited by django-axes: after 5 wrong passwords from one address (or for
one user name) the login answers 429 even with the right password, and the lockout is listed in
the admin. The API's own login is not locked out by it (it has the ``auth`` rate limit)."""
import pytest
from axes.models import AccessAttempt, AccessFailureLog
from django.contrib.auth import get_user_model
from django.test import Client


@pytest.fixture
def admin_user(db):
    return get_user_model().objects.create_superuser("root", "root@example.invalid", "right-pass-123")


def login(client: Client, password: str, ip: str = "10.0.0.1", username: str = "root"):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password},
                       REMOTE_ADDR=ip)


@pytest.mark.django_db
def test_admin_login_locks_out_after_five_wrong_passwords(admin_user):
    client = Client()
    codes = [login(client, f"wrong-{i}").status_code for i in range(5)]
    assert codes == [200] * 4 + [429]  # the form again with an error; the fifth failure locks
    assert login(client, "right-pass-123").status_code == 429  # locked, even with the right password
    assert not client.session.get("_auth_user_id")
    # Another address is refused too: the user name itself is locked.
    assert login(Client(), "right-pass-123", ip="10.0.0.2").status_code == 429
    attempt = AccessAttempt.objects.get(username="root", ip_address="10.0.0.1")
    assert attempt.failures_since_start == 6  # five wrong passwords and the refused right one

    # The lockout is visible in the admin (to another staff member).
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("auditor", "a@example.invalid", "x-pass-123"))
    page = staff.get("/admin/axes/accessattempt/")
    assert page.status_code == 200
    assert b"10.0.0.1" in page.content and b"root" in page.content


@pytest.mark.django_db
def test_a_right_password_before_the_limit_resets_the_count(admin_user):
    client = Client()
    for i in range(4):
        assert login(client, f"wrong-{i}").status_code == 200
    assert login(client, "right-pass-123").status_code == 302
    assert not AccessAttempt.objects.filter(failures_since_start__gt=0).exists()


@pytest.mark.django_db
def test_api_logins_are_not_locked_out_by_the_admin_rule(anon):
    from tests.helpers import register

    register(anon, "dora")
    for _ in range(6):
        r = anon.post("/api/v1/auth/token/", {"username": "dora", "password": "wrong"}, format="json")
        assert r.status_code == 401
    r = anon.post("/api/v1/auth/token/", {"username": "dora", "password": "s3cret-pass-dora"}, format="json")
    assert r.status_code == 200


@pytest.mark.django_db
def test_api_login_failures_do_not_lock_the_admin_and_write_nothing(admin_user, anon):
    """Six wrong passwords for the staff user at the API's token endpoint, from the address the
    admin login then uses: no axes rows, and the admin login with the right password works (it
    used to answer 429 for 15 minutes: axes counted the API failures)."""
    for _ in range(6):
        r = anon.post("/api/v1/auth/token/", {"username": "root", "password": "wrong"}, format="json",
                      REMOTE_ADDR="10.0.0.7")
        assert r.status_code == 401
    assert not AccessAttempt.objects.exists() and not AccessFailureLog.objects.exists()
    assert login(Client(), "right-pass-123", ip="10.0.0.7").status_code == 302

