"""Storage of matches (``Game``), their rounds and the append-only move log.

Source of truth: each round's deck order plus the move log (replayed by ``verify_games``). The
``Game.state`` snapshot (the engine's full secret state as JSON) is kept for speed only and is
never sent to a client: clients only ever see ``player_view(state, seat)``.
"""
from django.db import models
from django.db.models import F, Q

from players.models import Player


class GameStatus(models.TextChoices):
    INVITED = "invited", "invited"
    ACTIVE = "active", "active"
    FINISHED = "finished", "finished"
    DECLINED = "declined", "declined"
    ABORTED = "aborted", "aborted"


class GameKind(models.TextChoices):
    AI = "ai", "against the AI"
    INVITE = "invite", "invitation to a named player"
    OPEN = "open", "open challenge"


class EndReason(models.TextChoices):
    TARGET_SCORE = "target_score", "target score reached (R10.1)"
    RESIGNED = "resigned", "a player resigned"
    TIMEOUT = "timeout", "a player ran out of time"
    INVITATION_EXPIRED = "expired", "the invitation or challenge expired unanswered"


class TimeoutPolicy(models.TextChoices):
    """What happens when the player to act runs out of time (``Game.turn_deadline`` passes)."""

    FORFEIT = "forfeit", "the player who runs out of time loses the match"
    AUTO_PLAY = "auto_play", (
        "the AI plays the turn for the absent player; after auto_play_limit consecutive "
        "auto-played turns the next timeout forfeits the match"
    )


class RoundOutcome(models.TextChoices):
    KNOCK = "knock", "knock"
    GIN = "gin", "gin"
    UNDERCUT = "undercut", "undercut"
    WALL = "wall", "wall (drawn round)"


class Game(models.Model):
    """A match between seat 0 (``player0``, the creator) and seat 1 (``player1``).

    ``version`` increases by one with every accepted change (accept, action, resign, abort, ...);
    clients send it back with actions (optimistic concurrency). Scores are points (R9, R10).
    ``move_time_limit`` is seconds per turn (None: unlimited). A turn is the run of consecutive
    actions of one seat (draw then discard; a pass of the upcard); it starts at ``turn_started_at``
    when the seat to act changes or a round is dealt. ``turn_deadline`` is when the person to act
    runs out of time under ``timeout_policy`` (None for an AI seat or without a limit);
    ``turn_reminder_at`` is when the ``deadline_near`` event is due (80% of the limit; None once
    sent). ``awaiting_ai``: an AI seat is to act (its Celery task plays; the sweep re-queues it
    when lost). ``auto_played0/1``: consecutive auto-played turns of each seat (``auto_play``
    policy; more than ``auto_play_limit`` in a row forfeits the match).
    """

    kind = models.CharField(max_length=16, choices=GameKind.choices)
    status = models.CharField(max_length=16, choices=GameStatus.choices, db_index=True)
    player0 = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="games_as_seat0")
    player1 = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="games_as_seat1", null=True, blank=True
    )
    rules = models.JSONField()
    variant = models.CharField(max_length=16)
    state = models.JSONField(null=True, blank=True, editable=False)  # secret snapshot
    version = models.PositiveIntegerField(default=0)
    move_count = models.PositiveIntegerField(default=0)  # seq of the last Move
    first_dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    dealer = models.PositiveSmallIntegerField(null=True, blank=True)
    round_number = models.PositiveIntegerField(default=0)
    to_act_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    score0 = models.PositiveIntegerField(default=0)
    score1 = models.PositiveIntegerField(default=0)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=EndReason.choices, blank=True, default="")
    preset_decks = models.JSONField(default=list, blank=True, editable=False)  # staff-only deals
    move_time_limit = models.PositiveIntegerField(null=True, blank=True)
    timeout_policy = models.CharField(
        max_length=16, choices=TimeoutPolicy.choices, default=TimeoutPolicy.FORFEIT
    )
    auto_play_limit = models.PositiveSmallIntegerField(default=3)
    auto_played0 = models.PositiveSmallIntegerField(default=0)
    auto_played1 = models.PositiveSmallIntegerField(default=0)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    turn_deadline = models.DateTimeField(null=True, blank=True)
    turn_reminder_at = models.DateTimeField(null=True, blank=True)
    awaiting_ai = models.BooleanField(default=False)
    invitation_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(name="game_seats_differ", condition=~Q(player0=F("player1"))),
            models.CheckConstraint(
                name="game_seat_values",
                condition=Q(dealer__isnull=True) | Q(dealer__in=(0, 1)),
            ),
            models.CheckConstraint(
                name="game_to_act_values",
                condition=Q(to_act_seat__isnull=True) | Q(to_act_seat__in=(0, 1)),
            ),
            models.CheckConstraint(
                name="game_winner_values",
                condition=Q(winner_seat__isnull=True) | Q(winner_seat__in=(0, 1)),
            ),
            models.CheckConstraint(
                name="game_active_has_both_seats",
                condition=~Q(status__in=("active", "finished")) | Q(player1__isnull=False),
            ),
            models.CheckConstraint(
                name="game_finished_has_time",
                condition=~Q(status="finished") | Q(finished_at__isnull=False),
            ),
        ]
        indexes = [
            models.Index(fields=["player0", "status", "-created_at"], name="game_p0_status_created"),
            models.Index(fields=["player1", "status", "-created_at"], name="game_p1_status_created"),
            models.Index(
                fields=["-created_at"],
                name="game_lobby_open",
                condition=Q(kind="open", status="invited"),
            ),
            models.Index(
                fields=["turn_deadline"],
                name="game_active_deadline",
                condition=Q(status="active", turn_deadline__isnull=False),
            ),
            models.Index(
                fields=["turn_reminder_at"],
                name="game_active_reminder",
                condition=Q(status="active", turn_reminder_at__isnull=False),
            ),
            models.Index(
                fields=["turn_started_at"],
                name="game_ai_due",
                condition=Q(status="active", awaiting_ai=True),
            ),
        ]

    def __str__(self) -> str:
        return f"Game {self.pk} ({self.status})"

    def seat_of(self, player: Player) -> int | None:
        """The seat (0 or 1) of ``player`` in this game, or None if not seated."""
        if player.pk == self.player0_id:
            return 0
        if self.player1_id is not None and player.pk == self.player1_id:
            return 1
        return None

    def player_at(self, seat: int) -> Player | None:
        """The player at ``seat`` (0 or 1)."""
        return self.player0 if seat == 0 else self.player1

    @property
    def scores(self) -> tuple[int, int]:
        return (self.score0, self.score1)

    def auto_played(self, seat: int) -> int:
        """Consecutive auto-played turns of ``seat`` (0 or 1)."""
        return self.auto_played0 if seat == 0 else self.auto_played1

    def auto_played_set(self, seat: int, value: int) -> None:
        if seat == 0:
            self.auto_played0 = value
        else:
            self.auto_played1 = value


class Round(models.Model):
    """One deal of a match. ``deck`` (52 card codes, deal order) is server-side only until the end.

    When the round ends: ``outcome``, ``knocker_seat``, ``winner_seat`` (None for a wall), ``points``
    (scored by the winner, R9) and ``result`` (the engine's RoundResult: both hands' melds, lay-offs,
    deadwood counts).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    deck = models.JSONField(editable=False)
    upcard = models.CharField(max_length=3)
    knock_limit = models.PositiveSmallIntegerField()
    outcome = models.CharField(max_length=16, choices=RoundOutcome.choices, blank=True, default="")
    knocker_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="round_unique_number"),
            models.CheckConstraint(name="round_dealer_values", condition=Q(dealer__in=(0, 1))),
            models.CheckConstraint(
                name="round_ended_has_outcome",
                condition=Q(ended_at__isnull=True, outcome="")
                | (Q(ended_at__isnull=False) & ~Q(outcome="")),
            ),
        ]
        indexes = [models.Index(fields=["outcome", "winner_seat"], name="round_outcome_winner")]

    def __str__(self) -> str:
        return f"Game {self.game_id} round {self.number}"

    @property
    def is_over(self) -> bool:
        return self.ended_at is not None


class Move(models.Model):
    """One accepted action, append-only: ``seq`` (1, 2, ...) is unique per game.

    ``action`` is the engine action as JSON; ``auto_played``: chosen by the AI for a player who ran
    out of time (``auto_play`` policy); ``events`` are the engine events it produced, unredacted
    (redact with the engine's ``redact_event`` before showing them to anybody while the round is on).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField()
    events = models.JSONField(default=list)
    auto_played = models.BooleanField(default=False)  # played by the server for a timed-out player
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="move_unique_seq"),
            models.CheckConstraint(name="move_seat_values", condition=Q(seat__in=(0, 1))),
        ]
        indexes = [models.Index(fields=["round", "seq"], name="move_round_seq")]
        ordering = ["seq"]

    def __str__(self) -> str:
        return f"Game {self.game_id} move {self.seq}"


class IdempotencyRecord(models.Model):
    """The first response to a request with an ``Idempotency-Key`` (per player and game).

    A retry with the same key returns ``response_status``/``response_body`` without applying again;
    ``request_hash`` (sha256 of the canonical request JSON) detects a key reused for another request.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="idempotency_records")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "game", "key"], name="idempotency_unique_key"),
        ]
