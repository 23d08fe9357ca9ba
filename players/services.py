"""Writes for players (HackSoft style: keyword-only, ``<entity>_<verb>``): registration and AI
opponents (the account lifecycle is in ``players.accounts``)."""
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from okgin_project.errors import Conflict, ServiceError

from .models import AI_NAME_PREFIX, DELETED_NAME_PREFIX, AiLevel, Player
from .selectors import player_find_by_name

AI_LEVELS: tuple[str, ...] = tuple(AiLevel.values)  # ("random", "simple", "strong")
AI_LEVEL_DEFAULT = AiLevel.STRONG.value


def player_register(*, username: str, password: str, email: str = "") -> Player:
    """Create a Django user and its player profile named ``username``.

    Names are unique regardless of letter case. Raises ``ServiceError`` (400 ``validation_error``)
    for a name starting with ``ai-`` (reserved for AI players) or ``deleted-`` (placeholders of
    deleted accounts) in any case, ``Conflict`` (409
    ``username_taken``) if the name is in use by a person or an AI in any letter case (also when a
    concurrent registration wins it: the database's case-insensitive unique constraint),
    ``django.core.exceptions.ValidationError`` if the password is too weak.
    """
    with transaction.atomic():
        if username.lower().startswith(AI_NAME_PREFIX):
            raise ServiceError("Names starting with 'ai-' are reserved for AI players.", code="validation_error")
        if username.lower().startswith(DELETED_NAME_PREFIX):
            raise ServiceError("Names starting with 'deleted-' are reserved.", code="validation_error")
        user_model = get_user_model()
        if player_find_by_name(name=username) is not None or user_model.objects.filter(
            username__iexact=username
        ).exists():
            raise Conflict("This username is taken.", code="username_taken")
        user = user_model(username=username, email=email)
        try:
            validate_password(password, user)
        except ValidationError as exc:
            raise ValidationError({"password": exc.error_list}) from None
        user.set_password(password)
        try:
            with transaction.atomic():
                user.save()
                return Player.objects.create(user=user, name=username)
        except IntegrityError as exc:  # a concurrent registration won the name
            raise Conflict("This username is taken.", code="username_taken") from exc


def player_for_user(*, user) -> Player:
    """The player profile of ``user``, created on first use (staff users made by createsuperuser).

    Raises ``Conflict`` (409 ``no_player``) if the user's name is taken by another player.
    """
    try:
        return user.player
    except Player.DoesNotExist:
        pass
    try:
        with transaction.atomic():
            player, _ = Player.objects.get_or_create(user=user, defaults={"name": user.get_username()})
    except IntegrityError:  # the name is another player's (in another letter case)
        raise Conflict("This account's name belongs to another player.", code="no_player") from None
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
