"""Input validation and OpenAPI shapes. No logic here: services decide, presenters build bodies.

Card codes are strings such as ``"10H"``, ``"QS"``, ``"AC"`` (rank then suit C/D/H/S).
"""
from collections.abc import Mapping

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from okgin_project.errors import ServiceError
from players.services import AI_LEVEL_DEFAULT, AI_LEVELS

from .models import GameKind, GameStatus, TimeoutPolicy

CARD_HELP = 'Card code: rank (A, 2-10, J, Q, K) then suit (C, D, H, S), e.g. "10H", "QS".'
ACTION_TYPES = ("take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock")


class StrictIntegerField(serializers.IntegerField):
    """An integer that must be a JSON integer: ``"1"``, ``1.0`` and ``true`` are refused."""

    def to_internal_value(self, data):
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer):
    """A serializer that refuses fields it does not know (DRF drops them silently). With
    ``unknown_field_code`` set the refusal is a ``ServiceError`` with that code (400), else a
    ``validation_error`` naming the fields."""

    unknown_field_code: str | None = None

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            extra = sorted(str(k) for k in set(data) - set(self.fields))
            if extra and self.unknown_field_code:
                raise ServiceError(f"Unknown field(s): {', '.join(extra)}.", code=self.unknown_field_code,
                                   detail={"unknown_fields": extra})
            if extra:
                raise serializers.ValidationError({k: ["Unknown field."] for k in extra})
        return super().to_internal_value(data)


def card_field(**kwargs):
    kwargs.setdefault("help_text", CARD_HELP)
    return serializers.CharField(max_length=3, **kwargs)


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code, e.g. not_your_turn.")
    message = serializers.CharField()
    rule = serializers.CharField(required=False, help_text='Rule of RULES.md broken, e.g. "R7.2".')
    detail = serializers.JSONField(required=False)


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


class RulesSerializer(StrictSerializer):
    """RuleSet options (RULES.md); omitted fields take the default of the variant. Unknown
    options: 400 ``bad_rules``."""

    unknown_field_code = "bad_rules"

    variant = serializers.ChoiceField(choices=("oklahoma", "classic"), required=False)
    knock_limit = serializers.JSONField(
        required=False, allow_null=True, help_text='"upcard" (Oklahoma, R4.4) or a number of points 0..10.'
    )
    gin_bonus = StrictIntegerField(required=False, help_text="Points (R9.4), default 25.")
    undercut_bonus = StrictIntegerField(required=False, help_text="Points (R9.3), default 10.")
    target_score = StrictIntegerField(required=False, help_text="Points (R10.1), default 100.")
    forbid_discarding_drawn_upcard = serializers.BooleanField(required=False, help_text="R6.3, default true.")
    spade_doubles = serializers.BooleanField(required=False)
    ace_requires_gin = serializers.BooleanField(required=False)


class GameCreateInputSerializer(StrictSerializer):
    kind = serializers.ChoiceField(choices=GameKind.choices, help_text="ai, invite or open.")
    opponent = serializers.CharField(required=False, help_text="Name of the player to invite (kind invite).")
    ai_level = serializers.ChoiceField(
        choices=AI_LEVELS, required=False, default=AI_LEVEL_DEFAULT,
        help_text="Strength of the AI opponent (kind ai): random, simple or strong (default).",
    )
    rules = RulesSerializer(required=False)
    move_time_limit = StrictIntegerField(
        required=False, allow_null=True, min_value=60, max_value=14 * 24 * 3600,
        help_text="Seconds per turn, from 60 (a minute) to 1209600 (14 days), or null for no limit.",
    )
    timeout_policy = serializers.ChoiceField(
        choices=TimeoutPolicy.choices, required=False, default=TimeoutPolicy.FORFEIT,
        help_text="When the player to act runs out of time: forfeit (the opponent wins the match) or "
        "auto_play (the AI plays that turn for them; after auto_play_limit consecutive auto-played "
        "turns the next timeout forfeits).",
    )
    auto_play_limit = StrictIntegerField(
        required=False, min_value=0, max_value=100,
        help_text="auto_play only: consecutive auto-played turns allowed before a timeout forfeits "
        "(default 3).",
    )
    invitation_ttl = StrictIntegerField(
        required=False, allow_null=True, min_value=60, max_value=30 * 24 * 3600,
        help_text="Seconds before an invitation or open challenge expires.",
    )
    decks = serializers.ListField(
        child=serializers.ListField(child=card_field(), min_length=52, max_length=52),
        required=False, max_length=100,
        help_text="Staff only: deck order of rounds 1, 2, ... (52 cards each, deal order).",
    )
    first_dealer = StrictIntegerField(
        required=False, min_value=0, max_value=1, help_text="Staff only: dealer of round 1."
    )


class ActionSerializer(StrictSerializer):
    """An action: take_upcard / pass (R5), draw_stock / draw_discard (R6.1), discard (R6.2),
    knock (R7; melds optional, the server arranges the best melds when absent). Unknown fields:
    400 ``malformed_action``."""

    unknown_field_code = "malformed_action"

    type = serializers.ChoiceField(choices=ACTION_TYPES)
    card = card_field(required=False, help_text="The card to discard (discard and knock only).")
    melds = serializers.ListField(
        child=serializers.ListField(child=card_field()), required=False, allow_null=True,
        help_text="Knock only: melds laid out (lists of card codes); null lets the server choose.",
    )


class ActionSubmitInputSerializer(StrictSerializer):
    version = StrictIntegerField(min_value=0, help_text="The game version this action was chosen on (a JSON integer).")
    action = ActionSerializer()


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    is_ai = serializers.BooleanField()
    ai_level = serializers.ChoiceField(choices=AI_LEVELS, allow_null=True, help_text="AI seats only.")


@extend_schema_field({
    "type": "array", "minItems": 2, "maxItems": 2,
    "items": {
        "type": "object", "nullable": True, "required": ["seat", "name", "is_ai", "ai_level"],
        "properties": {
            "seat": {"type": "integer"},
            "name": {"type": "string"},
            "is_ai": {"type": "boolean"},
            "ai_level": {"type": "string", "enum": list(AI_LEVELS), "nullable": True,
                         "description": "AI seats only."},
        },
    },
})
class SeatListField(serializers.ListField):
    """Output only: both seats in order, ``null`` for a seat nobody has taken yet (the OpenAPI
    generator cannot mark the items of a nested serializer list nullable, hence the explicit schema)."""

    child = SeatSerializer(allow_null=True)


class LayOffSerializer(serializers.Serializer):
    card = card_field()
    meld_index = serializers.IntegerField()


class RoundResultSerializer(serializers.Serializer):
    """A finished round in full (R7-R9): both hands revealed, melds, lay-offs, deadwood counts."""

    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=("knock", "gin", "undercut", "wall"))
    knocker = serializers.IntegerField(allow_null=True)
    winner = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField()
    hands = serializers.ListField(child=serializers.ListField(child=card_field()))
    discard = card_field(allow_null=True)
    knocker_melds = serializers.ListField(child=serializers.ListField(child=card_field()))
    knocker_deadwood = serializers.ListField(child=card_field())
    defender_melds = serializers.ListField(child=serializers.ListField(child=card_field()))
    defender_deadwood = serializers.ListField(child=card_field())
    lay_offs = LayOffSerializer(many=True)
    deadwood = serializers.ListField(child=serializers.IntegerField(), help_text="Points per seat.")
    knock_limit = serializers.IntegerField()
    multiplier = serializers.IntegerField()
    scores_after = serializers.ListField(child=serializers.IntegerField())


class EventSerializer(serializers.Serializer):
    """An event; ``card`` of a ``drew_stock`` is only shown to the drawer while the round is on."""

    type = serializers.ChoiceField(choices=(
        "round_dealt", "upcard_taken", "upcard_passed", "drew_stock", "drew_discard", "discarded",
        "knocked", "round_ended", "match_ended",
    ))
    seat = serializers.IntegerField(allow_null=True)
    card = card_field(required=False)
    round = serializers.IntegerField(required=False)
    dealer = serializers.IntegerField(required=False)
    upcard = card_field(required=False)
    knock_limit = serializers.IntegerField(required=False)
    gin = serializers.BooleanField(required=False)
    deadwood = serializers.IntegerField(required=False)
    result = RoundResultSerializer(required=False)
    winner = serializers.IntegerField(required=False)
    scores = serializers.ListField(child=serializers.IntegerField(), required=False)


class PlayerViewSerializer(serializers.Serializer):
    """The requesting seat's view from the engine: own hand, public piles, legal actions."""

    seat = serializers.IntegerField()
    rules = RulesSerializer()
    phase = serializers.ChoiceField(choices=("deal", "upcard", "draw", "discard", "match_over"))
    to_act = serializers.IntegerField(allow_null=True)
    dealer = serializers.IntegerField()
    round_number = serializers.IntegerField()
    scores = serializers.ListField(child=serializers.IntegerField())
    knock_limit = serializers.IntegerField(allow_null=True)
    first_upcard = card_field(allow_null=True)
    hand = serializers.ListField(child=card_field())
    melds = serializers.ListField(child=serializers.ListField(child=card_field()))
    deadwood = serializers.ListField(child=card_field())
    deadwood_count = serializers.IntegerField(allow_null=True)
    upcard = card_field(allow_null=True)
    discard_pile = serializers.ListField(child=card_field(), help_text="Bottom to top.")
    stock_size = serializers.IntegerField()
    hand_sizes = serializers.ListField(child=serializers.IntegerField())
    opponent_hand_size = serializers.IntegerField()
    known_cards = serializers.ListField(child=serializers.ListField(child=card_field()))
    opponent_known_cards = serializers.ListField(child=card_field())
    taken_from_discard = card_field(allow_null=True)
    upcard_refused = serializers.BooleanField()
    history = EventSerializer(many=True)
    legal_actions = ActionSerializer(many=True)
    last_result = RoundResultSerializer(allow_null=True)
    winner = serializers.IntegerField(allow_null=True)


class GameSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=GameKind.choices)
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField()
    variant = serializers.CharField()
    rules = RulesSerializer()
    seats = SeatListField(help_text="Seats 0 and 1; an open challenge's empty seat is null.")
    your_seat = serializers.IntegerField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    round_number = serializers.IntegerField()
    dealer = serializers.IntegerField(allow_null=True)
    to_act = serializers.IntegerField(allow_null=True)
    is_your_turn = serializers.BooleanField()
    winner_seat = serializers.IntegerField(allow_null=True)
    end_reason = serializers.CharField(allow_null=True)
    move_time_limit = serializers.IntegerField(allow_null=True, help_text="Seconds per turn.")
    timeout_policy = serializers.ChoiceField(choices=TimeoutPolicy.choices)
    auto_play_limit = serializers.IntegerField()
    auto_played_turns = serializers.ListField(
        child=serializers.IntegerField(), help_text="Consecutive auto-played turns per seat."
    )
    turn_started_at = serializers.DateTimeField(allow_null=True, help_text="When the current turn began.")
    turn_deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the player to act runs out of time (null: no limit, or an AI to act)."
    )
    invitation_expires_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class GameDetailSerializer(GameSummarySerializer):
    view = PlayerViewSerializer(allow_null=True)
    last_round_result = RoundResultSerializer(allow_null=True)


class ActionSubmitOutputSerializer(serializers.Serializer):
    game = GameDetailSerializer()
    events = EventSerializer(many=True, help_text="What this action caused, redacted for you.")


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    upcard = card_field(help_text="The round's first upcard.")
    knock_limit = serializers.IntegerField()
    in_play = serializers.BooleanField()
    outcome = serializers.CharField(allow_null=True)
    knocker_seat = serializers.IntegerField(allow_null=True)
    winner_seat = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField(allow_null=True)
    result = RoundResultSerializer(allow_null=True)
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class MoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    round = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = ActionSerializer()
    events = EventSerializer(many=True)
    auto_played = serializers.BooleanField(help_text="Played by the AI for a player who ran out of time.")
    created_at = serializers.DateTimeField()


class ExportMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    round = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = ActionSerializer()


class ExportSerializer(serializers.Serializer):
    format = serializers.CharField()
    id = serializers.IntegerField()
    variant = serializers.CharField()
    rules = RulesSerializer()
    first_dealer = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())
    decks = serializers.ListField(child=serializers.ListField(child=card_field()))
    moves = ExportMoveSerializer(many=True)
    rounds = RoundResultSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    winner_seat = serializers.IntegerField(allow_null=True)
    end_reason = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class PlayerStatsSerializer(serializers.Serializer):
    player = serializers.CharField()
    matches_played = serializers.IntegerField()
    matches_won = serializers.IntegerField()
    rounds_played = serializers.IntegerField()
    rounds_won = serializers.IntegerField()
    gins = serializers.IntegerField()
    undercuts = serializers.IntegerField()
    knocks = serializers.IntegerField()
    points = serializers.IntegerField()
    average_points_per_round = serializers.FloatField()
