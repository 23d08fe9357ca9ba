"""Factories: players and games made through the services (no HTTP)."""
from django.contrib.auth import get_user_model

from games import services
from players.models import Player
from tests.helpers import deck_for

_n = [0]


def player_make(name: str | None = None) -> Player:
    _n[0] += 1
    name = name or f"player{_n[0]}"
    user = get_user_model().objects.create_user(username=name, password="x")
    return Player.objects.create(user=user, name=name)


# Round 1 with first dealer seat 1: seat 0 holds AC..9C 5H, seat 1 holds the hand below; upcard 6D.
DECK = deck_for(
    nondealer="AC 2C 3C 4C 5C 6C 7C 8C 9C 5H",
    dealer="7S 8S 9S 2H 2D 2S KD QH JH 3D",
    upcard="6D",
    stock_top="3H 4H",
)


def game_make(p0: Player | None = None, p1: Player | None = None, decks=None, first_dealer: int = 1):
    """An active game between ``p0`` (seat 0) and ``p1`` (seat 1) on ``DECK``; seat 0 acts first."""
    p0 = p0 or player_make()
    p1 = p1 or player_make()
    game = services.game_create(
        creator=p0, kind="invite", opponent_name=p1.name, decks=decks or [DECK],
        first_dealer=first_dealer, allow_preset_deal=True,
    )
    return services.invitation_accept(game_id=game.pk, player=p1)
