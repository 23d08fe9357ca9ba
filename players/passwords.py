"""A password validator of our own, next to Django's (``AUTH_PASSWORD_VALIDATORS``)."""
from __future__ import annotations

from django.core.exceptions import ValidationError

ONLY_WHITESPACE = "password_only_whitespace"  # a field error code (of ``password``), not an error code


class NotOnlyWhitespaceValidator:
    """Refuses a password made of whitespace only (field error ``password_only_whitespace``):
    Django's validators let eight spaces through (the length counts them, the common-password list
    strips them). Spaces inside or around other characters stay allowed: a password is kept as
    typed."""

    def validate(self, password: str, user=None) -> None:
        if not password.strip():
            raise ValidationError("This password is only whitespace.", code=ONLY_WHITESPACE)

    def get_help_text(self) -> str:
        return "Your password can't be only spaces."
