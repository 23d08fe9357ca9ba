"""games.services.invitations_expire and its place in the deadlines sweep: an invitation or open
challenge left unanswered past its expiry is aborted (end reason ``expired``) and can no longer
be accepted; answered, unexpired and started games are left alone."""
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services, tasks
from games.models import Game, Move, Round
from notifications.models import Event
from okgin_project.errors import Conflict
from tests.games.factories import game_make, player_make

pytestmark = pytest.mark.django_db


def _invite(creator, opponent=None, *, expires_in: float):
    kind = "invite" if opponent else "open"
    game = services.game_create(creator=creator, kind=kind,
                                opponent_name=opponent.name if opponent else None)
    Game.objects.filter(pk=game.pk).update(
        invitation_expires_at=timezone.now() + timedelta(seconds=expires_in))
    return Game.objects.get(pk=game.pk)


def test_expired_invitation_and_challenge_are_aborted_and_cannot_be_accepted():
    alice, bob, carol = player_make(), player_make(), player_make()
    invite = _invite(alice, bob, expires_in=-1)
    challenge = _invite(alice, expires_in=-60)
    fresh = _invite(alice, carol, expires_in=3600)
    active = game_make()
    versions = {g.pk: g.version for g in (invite, challenge, fresh, active)}

    assert services.invitations_expire() == 2

    for g in (invite, challenge):
        g.refresh_from_db()
        assert (g.status, g.end_reason, g.version) == ("aborted", "expired", versions[g.pk] + 1)
    fresh.refresh_from_db()
    active.refresh_from_db()
    assert (fresh.status, fresh.version) == ("invited", versions[fresh.pk])
    assert (active.status, active.version) == ("active", versions[active.pk])
    # nothing was dealt for the aborted games
    assert not Round.objects.filter(game__in=[invite, challenge]).exists()
    assert not Move.objects.filter(game__in=[invite, challenge]).exists()

    with pytest.raises(Conflict) as info:
        services.invitation_accept(game_id=invite.pk, player=bob)
    assert info.value.code == "not_invited"
    # running it again finds nothing more to do
    assert services.invitations_expire() == 0


def test_deadlines_sweep_reports_expired_invitations():
    alice, bob = player_make(), player_make()
    _invite(alice, bob, expires_in=-5)
    result = tasks.deadlines_sweep()
    assert result["invitations_expired"] == 1
    assert Game.objects.get(player1=bob).status == "aborted"


@pytest.mark.parametrize("answer", ["decline", "abort", "accept"])
def test_answering_an_expired_invitation_is_409_and_expires_it_instead(answer):
    # The invitee declines (or accepts, or the creator aborts) after the expiry, before the sweep:
    # the answer is refused as accept's is, and the expiry is what happens (end reason expired,
    # invitation_expired to both players, once), not a decline or a withdrawal.
    alice, bob = player_make(), player_make()
    invite = _invite(alice, bob, expires_in=-1)
    call = {"decline": lambda: services.invitation_decline(game_id=invite.pk, player=bob),
            "abort": lambda: services.invitation_abort(game_id=invite.pk, player=alice),
            "accept": lambda: services.invitation_accept(game_id=invite.pk, player=bob)}[answer]
    with pytest.raises(Conflict) as info:
        call()
    assert info.value.code == "invitation_expired"
    g = Game.objects.get(pk=invite.pk)
    assert (g.status, g.end_reason, g.version) == ("aborted", "expired", invite.version + 1)
    kinds = sorted(Event.objects.filter(game=g).exclude(kind="invitation_received")
                   .values_list("player__name", "kind"))
    assert kinds == sorted([(alice.name, "invitation_expired"), (bob.name, "invitation_expired")])
    assert not Round.objects.filter(game=g).exists()
    assert services.invitations_expire() == 0  # nothing left for the sweep


def test_reading_an_expired_invitation_expires_it():
    from rest_framework.test import APIClient
    from rest_framework_simplejwt.tokens import AccessToken

    alice, bob = player_make(), player_make()
    invite = _invite(alice, bob, expires_in=-1)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {AccessToken.for_user(bob.user)}")
    body = client.get(f"/api/v1/games/{invite.pk}/").json()
    assert (body["status"], body["end_reason"], body["version"]) == ("aborted", "expired", invite.version + 1)
