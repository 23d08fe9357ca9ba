"""Player profiles. AI opponents are players too (``is_ai``, ``ai_level``), without a user."""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

AI_NAME_PREFIX = "ai-"  # reserved for AI players, in any letter case


class AiLevel(models.TextChoices):
    """Strength of an AI opponent; each is a policy of ``games.engine.ai.get_policy(level)``."""

    RANDOM = "random", "random legal actions"
    SIMPLE = "simple", "simple heuristics"
    STRONG = "strong", "strong (search within a time budget)"


class Player(models.Model):
    """A seat-holder in games: a registered person (``user``) or an AI opponent (``is_ai``).

    ``name`` is the public handle used to invite a player (a person's username; ``ai-<level>``
    for AI opponents, ``level`` one of ``AiLevel``: random, simple, strong), unique regardless of
    letter case ("Zed" and "zed" are one name; looked up case-insensitively). Constraints: a
    person has a user and no AI level; an AI has a level and no user.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="player"
    )
    name = models.CharField(max_length=150, unique=True)
    is_ai = models.BooleanField(default=False)
    ai_level = models.CharField(max_length=32, blank=True, default="", choices=AiLevel.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("name"), name="player_name_unique_ci"),
            models.CheckConstraint(
                name="player_ai_xor_user",
                condition=(Q(is_ai=True, user__isnull=True) & ~Q(ai_level=""))
                | (Q(is_ai=False, user__isnull=False) & Q(ai_level="")),
            ),
        ]

    def __str__(self) -> str:
        return self.name
