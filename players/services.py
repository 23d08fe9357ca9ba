"""Writes for players (HackSoft style: keyword-only, ``<entity>_<verb>``)."""
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.db import IntegrityError, transaction

from okgin_project.errors import Conflict, ServiceError

from .models import AiLevel, Player

AI_LEVELS: tuple[str, ...] = tuple(AiLevel.values)  # ("random", "simple", "strong")
AI_LEVEL_DEFAULT = AiLevel.STRONG.value


@transaction.atomic
def player_register(*, username: str, password: str, email: str = "") -> Player:
    """Create a Django user and its player profile named ``username``.

    Raises ``Conflict`` (409 ``username_taken``) if the name is in use by a person or an AI,
    ``django.core.exceptions.ValidationError`` if the password is too weak.
    """
    user_model = get_user_model()
    if Player.objects.filter(name__iexact=username).exists() or user_model.objects.filter(
        username__iexact=username
    ).exists():
        raise Conflict("This username is taken.", code="username_taken")
    user = user_model(username=username, email=email)
    validate_password(password, user)
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            return Player.objects.create(user=user, name=username)
    except IntegrityError as exc:  # a concurrent registration won the name
        raise Conflict("This username is taken.", code="username_taken") from exc


def player_for_user(*, user) -> Player:
    """The player profile of ``user``, created on first use (staff users made by createsuperuser).

    Raises ``ServiceError`` ``no_player`` if the user's name is taken by another player.
    """
    try:
        return user.player
    except Player.DoesNotExist:
        pass
    player, _ = Player.objects.get_or_create(user=user, defaults={"name": user.get_username()})
    if player.user_id != user.pk:  # pragma: no cover - defensive
        raise ServiceError("This account has no player profile.", code="no_player")
    return player


def player_ai_get_or_create(*, level: str) -> Player:
    """The AI opponent of ``level`` (one of ``AI_LEVELS``), named ``ai-<level>``.

    Raises ``ServiceError`` ``bad_ai_level`` (400) for an unknown level.
    """
    if level not in AI_LEVELS:
        raise ServiceError(
            f"Unknown AI level; choose one of {', '.join(AI_LEVELS)}.", code="bad_ai_level"
        )
    player, _ = Player.objects.get_or_create(
        name=f"ai-{level}", defaults={"is_ai": True, "ai_level": level}
    )
    return player
