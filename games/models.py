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


class RematchStatus(models.TextChoices):
    """Where a finished match's rematch stands (one offer per match)."""

    NONE = "", "no offer"
    OFFERED = "offered", "offered, waiting for the other player"
    ACCEPTED = "accepted", "accepted: the rematch was created"
    DECLINED = "declined", "declined (no further offer for this match)"


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
    sent). ``deck_commitment``: the current round's ``Round.commitment`` (public from the deal on).
    ``rematch_status``/``rematch_offered_by`` (seat)/``rematch``
    (the new match once accepted): the one rematch offer of a finished match.
    Time bank (``time_bank_initial`` not None; ``docs/correspondence.md``): instead of a fixed
    ``move_time_limit`` each person has a bank of seconds (``bank0``/``bank1``, starting at
    ``time_bank_initial``); a turn's deadline is the bank's seconds after its start, and when the
    turn ends the seconds left plus ``time_bank_increment`` become the new bank, at most
    ``time_bank_max``. For the seat to act, ``bank0/1`` is what it had when its turn began.
    Pause (vacation, ``games.services.vacation``): while a seated person is on vacation
    ``paused_until`` is when the clocks restart at the latest (the end of the longest vacation);
    no clock runs: ``turn_deadline``/``turn_reminder_at`` are None and the current turn's seconds
    left (``turn_time_left``) and to its reminder (``turn_reminder_left``, None once sent) are
    kept, to the second rounded up, until the game resumes.
    ``awaiting_ai``: an AI seat is to act (its Celery task plays; the sweep re-queues it
    when lost). ``auto_played0/1``: consecutive auto-played turns of each seat (``auto_play``
    policy; more than ``auto_play_limit`` in a row forfeits the match).
    """

    kind = models.CharField(max_length=16, choices=GameKind.choices)
    # No single-column indexes on status and the seats: every action rewrites the game row's index
    # entries, and the composite and partial indexes of Meta serve every query (seats lead
    # game_p*_created; status filters go with a seat or a partial index).
    status = models.CharField(max_length=16, choices=GameStatus.choices)
    player0 = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="games_as_seat0", db_index=False)
    player1 = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="games_as_seat1", null=True, blank=True, db_index=False
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
    deck_commitment = models.CharField(max_length=64, blank=True, default="")  # the current round's
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
    time_bank_initial = models.PositiveIntegerField(null=True, blank=True)  # seconds; None: no bank
    time_bank_increment = models.PositiveIntegerField(null=True, blank=True)  # seconds added per turn
    time_bank_max = models.PositiveIntegerField(null=True, blank=True)  # seconds, the bank's cap
    bank0 = models.PositiveIntegerField(null=True, blank=True)
    bank1 = models.PositiveIntegerField(null=True, blank=True)
    paused_until = models.DateTimeField(null=True, blank=True)
    turn_time_left = models.PositiveIntegerField(null=True, blank=True)  # seconds, while paused
    turn_reminder_left = models.PositiveIntegerField(null=True, blank=True)  # seconds, while paused
    awaiting_ai = models.BooleanField(default=False)
    invitation_expires_at = models.DateTimeField(null=True, blank=True)
    rated = models.BooleanField(default=False)  # Glicko-2 (games.ratings); people only, chosen at creation
    rematch_status = models.CharField(max_length=16, choices=RematchStatus.choices, blank=True, default="")
    rematch_offered_by = models.PositiveSmallIntegerField(null=True, blank=True)
    rematch = models.OneToOneField("self", on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="rematch_of")
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
            # A player's games list in created or updated order, one seat at a time (games.selectors.game_seats).
            models.Index(fields=["player0", "created_at", "id"], name="game_p0_created"),
            models.Index(fields=["player1", "created_at", "id"], name="game_p1_created"),
            models.Index(fields=["player0", "updated_at", "id"], name="game_p0_updated"),
            models.Index(fields=["player1", "updated_at", "id"], name="game_p1_updated"),
            models.Index(
                fields=["-created_at"],
                name="game_lobby_open",
                condition=Q(kind="open", status="invited"),
            ),
            # The invitations sweep (games.services.deadlines.invitations_expire).
            models.Index(
                fields=["invitation_expires_at"],
                name="game_invited_expiry",
                condition=Q(status="invited"),
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
                fields=["paused_until"],
                name="game_active_paused",
                condition=Q(status="active", paused_until__isnull=False),
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

    def match_state(self):
        """The engine's ``MatchState`` (frozen) of ``state``, which must be set (the match has
        started). Parsed once for each value ``state`` holds: an action parses it once for the
        engine and not again for the answer's ``player_view`` (issue 14)."""
        from games import engine

        parsed = self.__dict__.get("_match_state")
        if parsed is None or parsed[0] is not self.state:
            parsed = self.__dict__["_match_state"] = (self.state, engine.MatchState.from_dict(self.state))
        return parsed[1]

    def match_state_set(self, state) -> None:
        """Store the engine's ``MatchState`` ``state`` in ``state`` (its JSON form), keeping it
        parsed for :meth:`match_state`."""
        self.state = state.to_dict()
        self.__dict__["_match_state"] = (self.state, state)

    @property
    def scores(self) -> tuple[int, int]:
        return (self.score0, self.score1)

    def auto_played(self, seat: int) -> int:
        """Consecutive auto-played turns of ``seat`` (0 or 1)."""
        return self.auto_played0 if seat == 0 else self.auto_played1

    def bank(self, seat: int) -> int | None:
        """Seconds in ``seat``'s time bank (None without a time bank)."""
        return self.bank0 if seat == 0 else self.bank1

    def bank_set(self, seat: int, value: int) -> None:
        if seat == 0:
            self.bank0 = value
        else:
            self.bank1 = value

    def auto_played_set(self, seat: int, value: int) -> None:
        if seat == 0:
            self.auto_played0 = value
        else:
            self.auto_played1 = value


class Round(models.Model):
    """One deal of a match. ``deck`` (52 card codes, deal order) is server-side only until the end.

    Provably fair: ``commitment`` (public from the deal) is the SHA-256 hex digest of
    ``games.fairness.commitment_message(deck, salt)``; ``salt`` (64 hex characters from ``secrets``)
    is as secret as the deck until the round is over, then both are revealed. ``preset_deck``: the
    deck was chosen by staff (``game_create(decks=...)``), not shuffled.

    When the round ends: ``outcome``, ``knocker_seat``, ``winner_seat`` (None for a wall), ``points``
    (scored by the winner, R9) and ``result`` (the engine's RoundResult: both hands' melds, lay-offs,
    deadwood counts).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rounds", db_index=False)  # round_unique_number
    number = models.PositiveIntegerField()
    dealer = models.PositiveSmallIntegerField()
    deck = models.JSONField(editable=False)
    salt = models.CharField(max_length=64, blank=True, default="", editable=False)  # secret until the end
    commitment = models.CharField(max_length=64, blank=True, default="")
    preset_deck = models.BooleanField(default=False)
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

    # Indexed by move_unique_seq (game, seq) and move_round_seq (round, seq), not on their own.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves", db_index=False)
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="moves", db_index=False)
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
    """The first response to a request with an ``Idempotency-Key`` (``games.idempotency``), per
    player (None: registration, before there is one), ``operation`` (``action``, ``game_create``,
    ``invitation_accept``, ``register``, ``webhook_create``...) and game (None: not about one game).

    A retry with the same key answers the first response without applying again;
    ``request_hash`` (sha256 of the canonical request JSON) detects a key reused for another request.
    An action's record is compact (about 0.4 KB instead of the 2.3 KB of its answer): ``move_seq``
    names the ``Move`` it applied and ``response_body`` holds only what the move log does not (the
    version and times of the game row then, ``games.idempotency.ACTION_ROW_FIELDS``); the answer is
    rebuilt from the game's moves (``games.idempotency.action_response_rebuild``). Other operations
    (about one per game) keep their whole answer in ``response_body``.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+", null=True, blank=True,
                               db_index=False)  # leads idempotency_unique_scope_key
    operation = models.CharField(max_length=32, default="action")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="idempotency_records", null=True,
                             blank=True)
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    move_seq = models.PositiveIntegerField(null=True, blank=True)  # actions: the Move applied (its seq)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "operation", "game", "key"], nulls_distinct=False,
                                    name="idempotency_unique_scope_key"),
            models.CheckConstraint(name="idempotency_action_has_move",
                                   condition=~Q(operation="action") | Q(move_seq__isnull=False, game__isnull=False)),
        ]
        indexes = [models.Index(fields=["created_at"], name="idempotency_created")]


class SchedulerLease(models.Model):
    """A lease on one periodic job, held by one process at a time (``games.sweeps``).

    ``owner`` (host:pid:random) may run the job until ``expires_at``; it renews the lease on every
    tick, and another process takes it over only once it has expired (the holder died). Taking or
    renewing it is one conditional ``UPDATE``, atomic on PostgreSQL and on SQLite alike.
    """

    name = models.CharField(max_length=64, primary_key=True)
    owner = models.CharField(max_length=128, blank=True, default="")
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"lease {self.name} ({self.owner or 'free'} until {self.expires_at})"


class PlayerRating(models.Model):
    """A person's Glicko-2 rating in one ``variant`` (``games.ratings``): ``rating`` and ``rd``
    (rating deviation) in rating points, ``volatility``, ``games`` rated matches, and when the last
    one finished (``last_rated_at``; the deviation widens with the idle time since)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(max_length=16)
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    last_rated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "variant"], name="rating_unique_player_variant")]
        indexes = [models.Index(fields=["variant", "-rating", "-id"], name="rating_leaderboard")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.variant} {self.rating:.0f}"


class RatingChange(models.Model):
    """One player's rating before and after one rated match (the rating history)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    variant = models.CharField(max_length=16)
    rating_before = models.FloatField()
    rd_before = models.FloatField()
    rating_after = models.FloatField()
    rd_after = models.FloatField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="rating_change_unique")]
        indexes = [models.Index(fields=["player", "variant", "-created_at"], name="rating_change_history")]


class ReviewStatus(models.TextChoices):
    QUEUED = "queued", "queued: waiting for a worker"
    RUNNING = "running", "running: decisions being reviewed"
    DONE = "done", "done"
    FAILED = "failed", "failed (logged): POST again to retry"


class GameReview(models.Model):
    """A review of one player's decisions in a finished match (``games.services.review``, issue 16).

    One per game and seat (``player`` at ``seat``). ``status`` goes ``queued`` -> ``running`` ->
    ``done`` (or ``failed``, whose ``error`` is the message kept; a new request queues it again).
    ``iterations``: the strong evaluator's playouts per decision; ``decisions_total`` (known once
    running) and ``decisions_done`` are the progress; ``result`` (when done):
    ``{"decisions": [...], "mistakes", "mistake_threshold", "expected_loss", "rounds": [...]}``
    (``games.engine.review``). ``attempts``: tasks that started on it.
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="reviews")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="reviews")
    seat = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=ReviewStatus.choices, default=ReviewStatus.QUEUED)
    iterations = models.PositiveIntegerField()
    decisions_total = models.PositiveIntegerField(null=True, blank=True)
    decisions_done = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="review_unique_game_seat"),
            models.CheckConstraint(name="review_seat_values", condition=Q(seat__in=(0, 1))),
            models.CheckConstraint(name="review_done_has_result",
                                   condition=~Q(status="done") | Q(result__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"Review of game {self.game_id} seat {self.seat} ({self.status})"
