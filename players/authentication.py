"""JWT authentication that loads the user and their player profile in one query."""
from django.contrib.auth import get_user_model
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import AuthenticationFailed, InvalidToken
from rest_framework_simplejwt.settings import api_settings


class PlayerJWTAuthentication(JWTAuthentication):
    """simplejwt's authentication with ``select_related("player")`` (one SQL query per request)."""

    def get_user(self, validated_token):
        try:
            user_id = validated_token[api_settings.USER_ID_CLAIM]
        except KeyError as exc:
            raise InvalidToken("Token contained no recognizable user identification") from exc
        user_model = get_user_model()
        try:
            user = user_model.objects.select_related("player").get(
                **{api_settings.USER_ID_FIELD: user_id}
            )
        except user_model.DoesNotExist as exc:
            raise AuthenticationFailed("User not found", code="user_not_found") from exc
        if not user.is_active:
            raise AuthenticationFailed("User is inactive", code="user_inactive")
        return user
