"""games.services.invitations_expire and its place in the deadlines sweep: an invitation or open
challenge left unanswered past its expiry is aborted (end reason ``expired``) and can no longer
be accepted; answered, unexpired and started games are left alone."""
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services, tasks
from games.models import Game, Move, Round
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
