"""Input validation and OpenAPI shapes for accounts."""
from rest_framework import serializers


class RegisterInputSerializer(serializers.Serializer):
    username = serializers.RegexField(
        r"^(?!(?i:ai-))[A-Za-z0-9_.-]{3,30}$",
        help_text="3-30 letters, digits, _ . - (not starting with 'ai-' in any letter case); your "
        "public player name, unique regardless of letter case.",
    )
    password = serializers.CharField(write_only=True, min_length=8, max_length=128)
    email = serializers.EmailField(required=False, allow_blank=True)


class PlayerSerializer(serializers.Serializer):
    name = serializers.CharField()
    is_ai = serializers.BooleanField()
    ai_level = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
