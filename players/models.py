"""Player profiles. AI opponents are players too (``is_ai``, ``ai_level``), without a user."""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

AI_NAME_PREFIX = "ai-"  # reserved for AI players, in any letter case
DELETED_NAME_PREFIX = "deleted-"  # reserved for the placeholders of deleted accounts


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
    person has a user and no AI level; an AI has a level and no user; a deleted account's player
    (``deleted_at`` set) has neither and keeps a placeholder name ``deleted-<hex>``, so that its
    finished games stay in the other players' histories.

    ``token_generation`` is copied into every JWT issued for the account (claim ``gen``); a
    password change or the account's deletion increments it, which revokes every access and refresh
    token issued before (checked on each request by ``players.authentication``).

    Vacation (``games.services.vacation``, ``docs/correspondence.md``): ``vacation_balance`` is
    the seconds of vacation left as of the month ``vacation_accrued_month`` (``year * 12 + month -
    1``, UTC; None: never credited, i.e. the full yearly allowance), to which each month start
    since adds its credit (``games.vacation.vacation_balance``). While on vacation,
    ``vacation_started_at`` is when it began and ``vacation_until`` when it runs out (the start
    plus the whole days of the balance then).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="player"
    )
    name = models.CharField(max_length=150, unique=True)
    is_ai = models.BooleanField(default=False)
    ai_level = models.CharField(max_length=32, blank=True, default="", choices=AiLevel.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    token_generation = models.PositiveIntegerField(default=0)
    time_zone = models.CharField(max_length=64, default="UTC")  # IANA name: quiet hours of pushes
    deleted_at = models.DateTimeField(null=True, blank=True)
    vacation_balance = models.PositiveIntegerField(default=0)  # seconds, as of vacation_accrued_month
    vacation_accrued_month = models.PositiveIntegerField(null=True, blank=True)
    vacation_started_at = models.DateTimeField(null=True, blank=True)
    vacation_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["vacation_until"], name="player_vacation_until",
                                condition=Q(vacation_until__isnull=False))]
        constraints = [
            models.UniqueConstraint(Lower("name"), name="player_name_unique_ci"),
            models.CheckConstraint(
                name="player_kind_consistent",
                condition=(Q(is_ai=True, user__isnull=True, deleted_at__isnull=True) & ~Q(ai_level=""))
                | Q(is_ai=False, user__isnull=False, ai_level="", deleted_at__isnull=True)
                | Q(is_ai=False, user__isnull=True, ai_level="", deleted_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return self.name
