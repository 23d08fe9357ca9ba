"""Input validation and OpenAPI shapes for accounts."""
from django.contrib.auth import get_user_model
from rest_framework import serializers
from rest_framework_simplejwt.exceptions import AuthenticationFailed, InvalidToken
from rest_framework_simplejwt.serializers import (
    TokenBlacklistSerializer,
    TokenObtainPairSerializer,
    TokenRefreshSerializer,
)
from rest_framework_simplejwt.settings import api_settings
from rest_framework_simplejwt.tokens import RefreshToken

from okgin_project.serializers import StrictCharField, StrictEmailField, StrictRegexField, StrictSerializer

from .models import AiLevel
from .tokens import GENERATION_CLAIM, token_generation_of, token_is_current


class RegisterInputSerializer(StrictSerializer):
    """A new account: unknown fields are refused (400 ``validation_error``, ``unknown_field``)."""

    # The reserved prefixes spelled out per letter: the pattern goes into the OpenAPI schema, and
    # clients check it with ECMAScript-style engines that know no scoped (?i:...) flag.
    username = StrictRegexField(
        r"^(?![Aa][Ii]-)(?![Dd][Ee][Ll][Ee][Tt][Ee][Dd]-)[A-Za-z0-9_.-]{3,30}$",
        help_text="3-30 letters, digits, _ . - (not starting with 'ai-' or 'deleted-' in any letter "
        "case: reserved for AI players and deleted accounts); your public player name, unique "
        "regardless of letter case.",
        error_messages={"invalid": "3-30 letters, digits, _ . -, not starting with 'ai-' or 'deleted-' (reserved)."},
        trim_whitespace=False,  # checked as sent, as the schema's pattern checks it: " bob" is refused
    )
    password = StrictCharField(write_only=True, min_length=8, max_length=128, trim_whitespace=False)
    email = StrictEmailField(required=False, allow_blank=True)


class TokenObtainInputSerializer(StrictSerializer, TokenObtainPairSerializer):
    """simplejwt's login: a username and a password (JSON strings); unknown fields refused. Both
    tokens carry the account's token generation (claim ``gen``, ``players.tokens``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields[self.username_field] = StrictCharField(write_only=True)
        self.fields["password"] = StrictCharField(write_only=True, trim_whitespace=False)

    @classmethod
    def get_token(cls, user):
        token = super().get_token(user)
        token[GENERATION_CLAIM] = token_generation_of(user)
        return token


class TokenRefreshInputSerializer(StrictSerializer, TokenRefreshSerializer):
    """simplejwt's refresh with rotation: a refresh token (a JSON string; unknown fields refused)
    in, a new access token and a new refresh token out, the one sent blacklisted. Raises
    ``InvalidToken`` (401 ``token_not_valid``: expired, malformed, blacklisted, or of an older
    generation), ``AuthenticationFailed`` (401 ``user_not_found``: the account was deleted;
    ``user_inactive``)."""

    refresh = StrictCharField(write_only=True)

    def validate(self, attrs):
        refresh = RefreshToken(attrs["refresh"])  # TokenError -> 401 token_not_valid in the view
        user_model = get_user_model()
        try:
            user = user_model.objects.select_related("player").get(
                **{api_settings.USER_ID_FIELD: refresh.payload.get(api_settings.USER_ID_CLAIM)}
            )
        except user_model.DoesNotExist:
            raise AuthenticationFailed("The token's account no longer exists.", code="user_not_found") from None
        if not api_settings.USER_AUTHENTICATION_RULE(user):
            raise AuthenticationFailed("The token's account is inactive.", code="user_inactive")
        if not token_is_current(refresh, user):
            raise InvalidToken("Token was revoked (password changed).")
        data = {"access": str(refresh.access_token)}
        refresh.blacklist()
        refresh.set_jti()
        refresh.set_exp()
        refresh.set_iat()
        refresh.outstand()
        data["refresh"] = str(refresh)
        return data


class LogoutInputSerializer(StrictSerializer, TokenBlacklistSerializer):
    """Logout: the refresh token to revoke (blacklisted); unknown fields refused."""

    refresh = StrictCharField(write_only=True)


class PlayerSerializer(serializers.Serializer):
    name = serializers.CharField()
    is_ai = serializers.BooleanField()
    ai_level = serializers.ChoiceField(choices=AiLevel.choices, allow_null=True, help_text="AI players only.")
    created_at = serializers.DateTimeField()


class PasswordChangeInputSerializer(StrictSerializer):
    current_password = StrictCharField(write_only=True, max_length=128, trim_whitespace=False)
    new_password = StrictCharField(write_only=True, min_length=8, max_length=128, trim_whitespace=False)


class AccountDeleteInputSerializer(StrictSerializer):
    password = StrictCharField(write_only=True, max_length=128, trim_whitespace=False,
                               help_text="The account's current password, to confirm.")


class VacationSerializer(serializers.Serializer):
    """Your vacation: balance, whether it is on, when it runs out (docs/correspondence.md)."""

    on_vacation = serializers.BooleanField()
    seconds_left = serializers.IntegerField(
        help_text="Vacation balance in seconds now (days x 86400), before charging a vacation in progress.")
    days_left = serializers.FloatField(help_text="The same in days (1.75 = a day and 18 hours).")
    whole_days_left = serializers.IntegerField(help_text="Whole days: what a vacation started now may last.")
    days_per_year = serializers.IntegerField(help_text="The yearly allowance, also the balance's cap.")
    monthly_credit_days = serializers.FloatField(help_text="Days credited at each month start (UTC): a twelfth.")
    next_credit_at = serializers.DateTimeField(help_text="The next month start (UTC).")
    started_at = serializers.DateTimeField(allow_null=True, help_text="When the vacation in progress began.")
    ends_at = serializers.DateTimeField(
        allow_null=True, help_text="When the vacation in progress runs out (its start plus the whole days left then).")
    days_charged = serializers.IntegerField(
        help_text="Whole days started: what the vacation in progress costs if turned off now; after "
        "turning it off, what it cost.")
