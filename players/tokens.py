"""JWTs of okgin accounts (simplejwt with its token_blacklist app).

Every token carries the claim ``gen``: the account's ``Player.token_generation`` when it was
issued. A password change or the account's deletion increments the generation, so every token
issued before, access and refresh alike, stops working at once (``players.authentication`` checks
access tokens on each request; the refresh serializer here checks refresh tokens). Refresh tokens
rotate: each refresh answers a new pair and blacklists the refresh token it used, so a stolen
refresh token works at most until its owner's next refresh. Logout blacklists a refresh token.
"""
from __future__ import annotations

from rest_framework import serializers
from rest_framework_simplejwt.tokens import RefreshToken

GENERATION_CLAIM = "gen"


def token_generation_of(user) -> int:
    """The current token generation of ``user`` (0 for a user without a player profile yet)."""
    from .models import Player

    try:
        return user.player.token_generation
    except Player.DoesNotExist:
        return 0


def token_pair_for(user) -> dict[str, str]:
    """A new ``{"access", "refresh"}`` pair for ``user`` at its current token generation (the
    refresh token is recorded as outstanding, so it can be blacklisted)."""
    refresh = RefreshToken.for_user(user)
    refresh[GENERATION_CLAIM] = token_generation_of(user)
    return {"access": str(refresh.access_token), "refresh": str(refresh)}


def token_is_current(token, user) -> bool:
    """True if ``token`` (a validated simplejwt token) was issued at ``user``'s current token
    generation (tokens without the claim count as generation 0)."""
    return token.get(GENERATION_CLAIM, 0) == token_generation_of(user)


class TokenPairSerializer(serializers.Serializer):
    """OpenAPI shape of a token pair."""

    access = serializers.CharField()
    refresh = serializers.CharField()
