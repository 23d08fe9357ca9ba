"""Account deletion leaves the real name nowhere (issue 11): every copy of the username written
before the deletion (other players' events, the stored answers of their idempotency keys, the
registration's record, the admin login log...) shows the placeholder ``deleted-<hex>`` after it,
through every read endpoint of the opponent, in the webhook bodies and pushes sent afterwards, and
in every row of the database."""
import pytest
from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.core import serializers
from rest_framework.test import APIClient

from notifications.deliveries import webhook_delivery_attempt
from notifications.models import EventKind, PushDelivery, WebhookDelivery
from notifications.push_send import push_delivery_attempt
from players.models import Player
from tests.helpers import register
from tests.notifications.receiver import Receiver

pytestmark = pytest.mark.django_db
API = "/api/v1"
REAL = "Quillon_Zebrowski"  # distinctive: any copy of it is found by a plain text search
PASSWORD = "correct-horse-battery-42"


def _database_text() -> str:
    """Every row of every table of the project and its libraries, serialized as JSON (lower case)."""
    return "\n".join(serializers.serialize("json", model._default_manager.all())
                     for model in apps.get_models()).lower()


def _subscribe(client, fake, token: str, name: str) -> str:
    sub = fake.subscribe(token)
    r = client.post(f"{API}/devices/", {"platform": "webpush", "registration_id": token, "name": name,
                                        "keys": {"p256dh": sub.p256dh, "auth": sub.b64auth}}, format="json")
    assert r.status_code == 201, r.content
    return r.json()["id"]


def _keyed(client, path: str, key: str, body=None):
    return client.post(path, body or {}, format="json", HTTP_IDEMPOTENCY_KEY=key)


def _all_pages(client, path: str) -> list[bytes]:
    """The bodies of every page of a cursor-paginated list."""
    bodies, url = [], path
    while url:
        r = client.get(url)
        assert r.status_code == 200, (url, r.content)
        bodies.append(r.content)
        url = r.json().get("next")
    return bodies


def test_deleting_an_account_scrubs_its_name_from_everything_stored(anon, fake, settings):
    settings.OKGIN_WEBHOOK_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1
    settings.OKGIN_WEBHOOK_PORTS = None
    r = _keyed(anon, f"{API}/auth/register/", "register-1", {"username": REAL, "password": PASSWORD})
    assert r.status_code == 201, r.content  # the registration's answer (with the name) is kept for the key
    quill = APIClient()
    quill.credentials(HTTP_AUTHORIZATION="Bearer " + anon.post(
        f"{API}/auth/token/", {"username": REAL, "password": PASSWORD}, format="json").json()["access"])
    alice = register(anon, "alice", staff=True)
    # a failed admin login under the name: django-axes records the username; staff edited the player
    anon.post("/admin/login/", {"username": REAL, "password": "not-the-password"})
    LogEntry.objects.log_actions(user_id=get_user_model().objects.get(username="alice").pk,
                                 queryset=Player.objects.filter(name=REAL), action_flag=CHANGE)

    with Receiver() as receiver:
        r = alice.post(f"{API}/webhooks/", {"url": receiver.url}, format="json")
        assert r.status_code == 201, r.content
        hook, secret = r.json()["id"], r.json()["secret"]
        device = _subscribe(alice, fake, "alice-phone-token-1", "alice's phone")
        _subscribe(quill, fake, "quill-phone-token-1", REAL + "'s phone")
        r = alice.patch(f"{API}/me/push-settings/", {"kinds": sorted(EventKind.values)}, format="json")
        assert r.status_code == 200, r.content

        # g1: quill invites alice (rated), alice accepts with a key, quill resigns and offers a rematch
        g1 = _keyed(quill, f"{API}/games/new/", "q-create-1", {"kind": "invite", "opponent": "alice", "rated": True})
        assert g1.status_code == 201, g1.content
        g1 = g1.json()["id"]
        assert _keyed(alice, f"{API}/games/{g1}/accept/", "a-accept-1").status_code == 200
        assert quill.post(f"{API}/games/{g1}/resign/").status_code == 200
        assert quill.post(f"{API}/games/{g1}/rematch/").status_code == 200  # rematch_offered, by: the name
        # g2: alice invites quill with a key (her stored answer names him), he accepts, goes on vacation
        g2 = _keyed(alice, f"{API}/games/new/", "a-create-2", {"kind": "invite", "opponent": REAL})
        assert g2.status_code == 201, g2.content
        g2 = g2.json()["id"]
        assert quill.post(f"{API}/games/{g2}/accept/").status_code == 200  # invitation_accepted
        assert quill.post(f"{API}/me/vacation/start/").status_code == 200  # vacation_started
        assert quill.post(f"{API}/me/vacation/end/").status_code == 200  # vacation_ended
        # g3: declined by quill; g4: quill's invitation, withdrawn by the deletion itself
        g3 = alice.post(f"{API}/games/new/", {"kind": "invite", "opponent": REAL}, format="json").json()["id"]
        assert quill.post(f"{API}/games/{g3}/decline/").status_code == 200  # invitation_declined
        g4 = quill.post(f"{API}/games/new/", {"kind": "invite", "opponent": "alice"}, format="json").json()["id"]
        games = (g1, g2, g3, g4)

        feed = b"".join(_all_pages(alice, f"{API}/events/?limit=100"))
        assert feed.count(REAL.encode()) >= 6  # received, accepted, rematch, 2 vacation, declined, received
        assert REAL.lower() in _database_text()  # the name was copied around: the checks below can fail
        assert WebhookDelivery.objects.filter(status="pending").exists()  # not sent yet (no commit here)
        assert PushDelivery.objects.filter(status="pending").exists()

        r = quill.post(f"{API}/me/delete/", {"password": PASSWORD}, format="json")
        assert r.status_code == 204, r.content
        placeholder = Player.objects.get(deleted_at__isnull=False).name
        assert placeholder.startswith("deleted-")

        # what alice reads: feed, lists, each game, exports, histories, stats, deliveries
        seen = _all_pages(alice, f"{API}/events/?limit=100")
        seen += _all_pages(alice, f"{API}/games/?limit=100")
        for status in ("finished", "aborted", "declined", "active", "invited"):
            seen += _all_pages(alice, f"{API}/games/?status={status}")
        for gid in games:
            for part in ("", "export/", "rounds/", "moves/") if gid in (g1, g2) else ("",):  # g2: resigned
                r = alice.get(f"{API}/games/{gid}/{part}")
                assert r.status_code == 200, (gid, part, r.content)
                seen.append(r.content)
        for path in (f"{API}/players/alice/games.ndjson",
                     f"{API}/me/stats/", f"{API}/players/alice/stats/", f"{API}/leaderboard/oklahoma/",
                     f"{API}/webhooks/{hook}/deliveries/", f"{API}/devices/{device}/pushes/"):
            r = alice.get(path)
            assert r.status_code == 200, (path, r.content)
            seen.append(b"".join(r.streaming_content) if r.streaming else r.content)
        # her keyed requests answered again from the stored answers
        replays = [_keyed(alice, f"{API}/games/{g1}/accept/", "a-accept-1"),
                   _keyed(alice, f"{API}/games/new/", "a-create-2", {"kind": "invite", "opponent": REAL})]
        assert [r.headers.get("Idempotent-Replayed") for r in replays] == ["true", "true"]
        seen += [r.content for r in replays]
        # the webhook bodies and pushes still pending go out now, built from the scrubbed events
        for d in WebhookDelivery.objects.filter(status="pending").order_by("pk"):
            webhook_delivery_attempt(delivery_id=d.pk)
        for p in PushDelivery.objects.filter(status="pending").order_by("pk"):
            push_delivery_attempt(delivery_id=p.pk)
        bodies = receiver.verified(secret)
        pushed = fake.payloads("alice-phone-token-1")

    by = [b["data"]["by"] for b in bodies if "by" in b["data"]]
    # invitation_received (g1, g4), invitation_accepted (g2), rematch_offered (g1), vacation_started and
    # vacation_ended (g2), invitation_declined (g3), invitation_withdrawn (g4, by the deletion): 8
    assert len(by) == 8 and set(by) == {placeholder}
    assert {p["opponent"] for p in pushed} == {placeholder} and len(pushed) == len(bodies)
    for text in seen + [repr(bodies).encode(), repr(pushed).encode()]:
        assert REAL.lower().encode() not in text.lower()
    assert placeholder.encode() in b"".join(seen)
    assert REAL.lower() not in _database_text()


def test_a_name_equal_to_another_api_value_changes_only_where_it_names_the_player(anon):
    # A username may be any string of the API; "active" is also a game's status. alice's stored
    # answer to her keyed accept holds both: the seat's "name": "active" and "status": "active".
    active = register(anon, "active")
    alice = register(anon, "alice")
    gid = active.post(f"{API}/games/new/", {"kind": "invite", "opponent": "alice"}, format="json").json()["id"]
    first = _keyed(alice, f"{API}/games/{gid}/accept/", "a-accept")
    assert first.status_code == 200, first.content
    assert first.json()["status"] == "active"
    assert "active" in {seat["name"] for seat in first.json()["seats"]}
    opened = alice.get(f"{API}/events/?limit=100").json()["results"]
    assert [e["data"]["by"] for e in opened if e["kind"] == "invitation_received"] == ["active"]

    r = active.post(f"{API}/me/delete/", {"password": "s3cret-pass-active"}, format="json")
    assert r.status_code == 204, r.content
    placeholder = Player.objects.get(deleted_at__isnull=False).name

    again = _keyed(alice, f"{API}/games/{gid}/accept/", "a-accept")
    assert again.headers.get("Idempotent-Replayed") == "true"
    # The replay is the first answer with the name replaced in the seat, and only there: the
    # status (resigned by the deletion since, but the stored answer is of the accept) stays "active".
    expected = first.json()
    for seat in expected["seats"]:
        if seat["name"] == "active":
            seat["name"] = placeholder
    assert again.json() == expected
    events = alice.get(f"{API}/events/?limit=100").json()["results"]
    received = [e for e in events if e["kind"] == "invitation_received"]
    assert [e["data"]["by"] for e in received] == [placeholder]
    # Each event alice had before is as it was, but for "by" (the deletion's own events follow).
    before = {e["id"]: e for e in opened}
    after = {e["id"]: e for e in events if e["id"] in before}
    assert after == {i: dict(e, data=dict(e["data"], by=placeholder) if "by" in e["data"] else e["data"])
                     for i, e in before.items()}
