"""Input validation and OpenAPI shapes. No logic here: services decide, presenters build bodies.

Card codes are strings such as ``"10H"``, ``"QS"``, ``"AC"`` (rank then suit C/D/H/S).
"""
import re

from django.conf import settings
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from games.engine import CardParseError, MalformedAction
from games.engine.cards import FULL_DECK
from games.engine.rules import OPTION_RANGES, VARIANTS
from okgin_project.errors import ServiceError
from okgin_project.schema import ErrorSerializer  # noqa: F401  (re-exported: the one error shape)
from okgin_project.serializers import (FIELD_NOT_APPLICABLE, AiLevelField, CodedFieldMixin, StrictBooleanField, StrictCharField, StrictChoiceField,
                                       StrictIntegerField, StrictSerializer)
from players.models import AiLevel
from players.services import AI_LEVEL_DEFAULT

from .models import EndReason, GameKind, GameStatus, RematchStatus, RoundOutcome, TimeoutPolicy

CARD_HELP = 'Card code: rank (A, 2-10, J, Q, K) then suit (C, D, H, S), e.g. "10H", "QS".'
ACTION_TYPES = ("take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock")
ACTION_TYPES_SET = frozenset(ACTION_TYPES)


CARD_PATTERN = r"^(A|[2-9]|10|J|Q|K)[CDHS]$"


_CARD_CODE = re.compile(CARD_PATTERN)


@extend_schema_field({"type": "string", "pattern": CARD_PATTERN, "description": CARD_HELP})
class CardField(StrictCharField):
    """A card code spelled as the schema's pattern spells it (R1.2): ``"10H"``, ``"QS"``. Any
    other string (``"8c"``, ``"TH"``, ``" AS"``, which the engine itself would read) is refused as
    an unreadable code is, with the engine's error of the field's context (``error``: 400
    ``bad_card`` by default, ``malformed_action`` in an action), so a request and its retry name a
    card one way only (their Idempotency-Key hashes agree). Not a string: 400 (the serializer's)."""

    def __init__(self, *, error=CardParseError, **kwargs):
        self.error = error
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not _CARD_CODE.match(value):
            raise self.error(f"invalid card code {value!r}: rank A, 2-10, J, Q or K, then suit C, D, H or S",
                             rule="R1.2")
        return value


def card_field(**kwargs):
    kwargs.setdefault("help_text", CARD_HELP)
    return CardField(max_length=3, trim_whitespace=False, **kwargs)


@extend_schema_field({
    "oneOf": [{"type": "string", "enum": ["upcard"]}, {"type": "integer", "minimum": 0, "maximum": 10}],
    "description": '"upcard" (Oklahoma: the first upcard\'s value, R4.4) or a fixed number of points 0..10.',
})
class KnockLimitField(serializers.JSONField):
    """Output: ``"upcard"`` or an integer 0..10."""


@extend_schema_field({
    "oneOf": [{"type": "string", "enum": ["upcard"]}, {"type": "integer", "minimum": 0, "maximum": 10}],
    "nullable": True,
    "description": '"upcard" (Oklahoma: the first upcard\'s value, R4.4) or a fixed number of points 0..10; '
                   "null or absent: the variant's default.",
})
class KnockLimitInputField(serializers.JSONField):
    """Input: ``"upcard"``, an integer 0..10 or null (the engine's RuleSet checks: ``bad_rules``)."""


class RulesSerializer(serializers.Serializer):
    """Output: the RuleSet of a game, every option (RULES.md)."""

    variant = serializers.ChoiceField(choices=VARIANTS)
    knock_limit = KnockLimitField()
    gin_bonus = serializers.IntegerField(help_text="Points (R9.4).")
    undercut_bonus = serializers.IntegerField(help_text="Points (R9.3).")
    target_score = serializers.IntegerField(help_text="Points (R10.1).")
    forbid_discarding_drawn_upcard = serializers.BooleanField(help_text="R6.3.")
    spade_doubles = serializers.BooleanField()
    ace_requires_gin = serializers.BooleanField()


def _option_field(name: str, help_text: str) -> StrictIntegerField:
    """An optional whole-number rule option bounded as the engine bounds it (``OPTION_RANGES``)."""
    low, high = OPTION_RANGES[name]
    return StrictIntegerField(required=False, min_value=low, max_value=high, help_text=help_text)


class RulesInputSerializer(CodedFieldMixin, StrictSerializer):
    """RuleSet options (RULES.md); omitted fields take the default of the variant. An unknown
    option, a value of the wrong type or out of range, or options that contradict each other
    (the classic variant with ``knock_limit: "upcard"``; ``spade_doubles`` or ``ace_requires_gin``
    outside Oklahoma or with a fixed knock limit): 400 ``bad_rules``, the option at fault in
    ``detail`` (``rules.gin_bonus``)."""

    unknown_field_code = "bad_rules"
    error_code = "bad_rules"
    error_message = "Invalid rules: an unknown option or a bad value."

    variant = StrictChoiceField(choices=VARIANTS, required=False)
    knock_limit = KnockLimitInputField(required=False, allow_null=True)
    gin_bonus = _option_field("gin_bonus", "Points (R9.4), default 25.")
    undercut_bonus = _option_field("undercut_bonus", "Points (R9.3), default 10.")
    target_score = _option_field("target_score", "Points (R10.1), default 100.")
    forbid_discarding_drawn_upcard = StrictBooleanField(required=False, help_text="R6.3, default true.")
    spade_doubles = StrictBooleanField(required=False, help_text="Oklahoma only (house rule), default false.")
    ace_requires_gin = StrictBooleanField(
        required=False, help_text="Oklahoma with knock_limit \"upcard\" only (house rule), default false.")


class TimeBankInputSerializer(CodedFieldMixin, StrictSerializer):
    """A Fischer-style time bank (seconds): ``initial`` in each bank, ``increment`` added after
    each turn, capped at ``max`` (default: ``initial``). Unknown fields or bad values: 400
    ``bad_time_control``."""

    unknown_field_code = "bad_time_control"
    error_code = "bad_time_control"
    error_message = "Invalid time bank: initial 60 s to 60 days, increment 0 to 14 days, max from initial to 60 days."

    initial = StrictIntegerField(min_value=60, max_value=60 * 24 * 3600,
                                 help_text="Seconds, from 60 (a minute) to 5184000 (60 days).")
    increment = StrictIntegerField(min_value=0, max_value=14 * 24 * 3600,
                                   help_text="Seconds added after each of your turns, 0 to 1209600 (14 days).")
    max = StrictIntegerField(required=False, min_value=60, max_value=60 * 24 * 3600,
                             help_text="The cap in seconds, from initial to 60 days (default: initial).")

    def validate(self, attrs):
        attrs.setdefault("max", attrs["initial"])
        if attrs["max"] < attrs["initial"]:
            raise serializers.ValidationError({"max": ["max must be at least initial."]})
        return attrs


class GameCreateInputSerializer(StrictSerializer):
    kind = StrictChoiceField(choices=GameKind.choices, help_text="ai, invite or open.")
    opponent = StrictCharField(required=False, help_text="Name of the player to invite (kind invite).")
    ai_level = AiLevelField(
        choices=AiLevel.choices, required=False, default=AI_LEVEL_DEFAULT,
        help_text="Strength of the AI opponent (kind ai): random, simple or strong (default); "
        "anything else: 400 bad_ai_level.",
    )
    rules = RulesInputSerializer(required=False)
    move_time_limit = StrictIntegerField(
        required=False, allow_null=True, min_value=60, max_value=14 * 24 * 3600,
        help_text="Seconds per turn, from 60 (a minute) to 1209600 (14 days), or null for no limit.",
    )
    timeout_policy = StrictChoiceField(
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
    time_bank = TimeBankInputSerializer(
        required=False, help_text="A time bank instead of move_time_limit (both: 400 time_control_conflict).")
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
    rated = StrictBooleanField(
        required=False, help_text="The result changes both players' Glicko-2 ratings of the variant. Default: "
        "true between people; games against the AI (and on staff decks) are always unrated.",
    )

    # Fields that mean something for one kind of game (or one timeout policy) only: sent with
    # another, they would be dropped silently, hiding a client's mistake. (Not ai_level: the schema
    # gives it a default, which generated clients send with every kind.)
    ONLY_WITH = {"opponent": ("kind", (GameKind.INVITE,)),
                 "invitation_ttl": ("kind", (GameKind.INVITE, GameKind.OPEN)),
                 "auto_play_limit": ("timeout_policy", (TimeoutPolicy.AUTO_PLAY,))}

    def validate(self, attrs):
        """Refuses (400 ``validation_error``, field error ``not_applicable``) a field sent with a
        ``kind`` (or ``timeout_policy``) it does not apply to: ``opponent`` outside ``invite``,
        ``invitation_ttl`` with ``ai``, ``auto_play_limit`` without
        ``auto_play``; null counts as not sent (``invitation_ttl`` is nullable). Nothing is written."""
        errors = {}
        for name, (key, wanted) in self.ONLY_WITH.items():
            if self.initial_data.get(name) is not None and attrs.get(key) not in wanted:  # null: not sent
                errors[name] = [serializers.ErrorDetail(
                    f"{name} applies only with {key} {' or '.join(wanted)}.", code=FIELD_NOT_APPLICABLE)]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class ActionSerializer(StrictSerializer):
    """Validation of an action: take_upcard / pass (R5), draw_stock / draw_discard (R6.1), discard
    (R6.2), knock (R7; melds optional, the server arranges the best melds when absent). Unknown
    fields: 400 ``malformed_action`` (the engine refuses fields another type does not take). The
    schema is ``ACTION_SCHEMA``, one variant per type."""

    unknown_field_code = "malformed_action"

    type = StrictChoiceField(choices=ACTION_TYPES)
    card = card_field(required=False, error=MalformedAction,
                      help_text="The card to discard (discard and knock only).")
    melds = serializers.ListField(
        child=serializers.ListField(child=card_field(error=MalformedAction)), required=False, allow_null=True,
        help_text="Knock only: melds laid out (lists of card codes); null lets the server choose.",
    )


def _one_of(kind: str, suffix: str, doc: str, base=serializers.Serializer, **fields) -> type[serializers.Serializer]:
    """The variant ``type`` == ``kind`` of a ``oneOf`` (named ``<Kind><suffix>``, e.g. ``DiscardAction``)."""
    name = "".join(part.title() for part in kind.split("_")) + suffix
    return type(name, (base,), {"type": serializers.ChoiceField(choices=[(kind, kind)]), **fields,
                                "__module__": __name__, "__doc__": doc})


def _action(kind: str, doc: str, **fields):
    return _one_of(kind, "Action", doc, base=StrictSerializer, **fields)


ACTION_VARIANTS = {
    "take_upcard": _action("take_upcard", "Take the upcard (first turn, R5)."),
    "pass": _action("pass", "Pass the upcard (first turn, R5)."),
    "draw_stock": _action("draw_stock", "Draw the top card of the stock (R6.1)."),
    "draw_discard": _action("draw_discard", "Take the top card of the discard pile (R6.1)."),
    "discard": _action("discard", "Discard a card from your hand (R6.2).", card=card_field(help_text="The card.")),
    "knock": _action(
        "knock", "Knock (R7) discarding ``card``; ``melds`` optional (absent or null: the server arranges "
        "the best melds). An opponent's knock (opponent_moved) leaves melds out.",
        card=card_field(help_text="The card discarded face down."),
        melds=serializers.ListField(child=serializers.ListField(child=card_field()), required=False,
                                    allow_null=True, help_text="Melds laid out (lists of card codes).")),
}
assert tuple(ACTION_VARIANTS) == ACTION_TYPES == settings.OKGIN_ACTION_TYPES
# One Action component (oneOf on ``type``) for the legal actions of a view, the moves and the
# request body: a legal action is sent back as it came.
ACTION_SCHEMA = PolymorphicProxySerializer(component_name="Action", serializers=ACTION_VARIANTS,
                                           resource_type_field_name="type")


@extend_schema_field(ACTION_SCHEMA)
class ActionField(serializers.JSONField):
    """Output only: an action (``Action``: ``oneOf`` with a discriminator on ``type``)."""


@extend_schema_field(ACTION_SCHEMA)
class ActionInputSerializer(ActionSerializer):
    """Input: an action, validated by ``ActionSerializer``, documented as ``Action``."""


class ActionSubmitInputSerializer(StrictSerializer):
    """An action on the game version it was chosen on. ``action_submission`` validates a body
    with it (or without it, for the common well-formed body)."""

    version = StrictIntegerField(min_value=0, help_text="The game version this action was chosen on (a JSON integer).")
    action = ActionInputSerializer()


_CARD_CODES = frozenset(card.code for card in FULL_DECK)  # the 52 strings CARD_PATTERN matches
_ACTION_FIELDS = frozenset(("type", "card", "melds"))
_VERSION_MAX = 2 ** 63 - 1  # a larger version goes through the serializer (DRF refuses huge ones)


def action_submission(data) -> tuple[int, dict]:
    """``(version, action)`` of an action submission's body (``data``: the parsed JSON), as
    ``ActionSubmitInputSerializer`` validates it: ``action`` holds ``type`` and the ``card`` and
    ``melds`` sent (``melds`` may be None). A body of the usual shape (exactly ``version``, a JSON
    integer 0..2^63-1, and ``action`` with a known ``type`` and card codes spelled as R1.2's
    pattern) is taken without the serializer, which cost about 4% of a web process's CPU under
    load (issue 14, its fields deep-copied per request); any other body goes through the
    serializer, so every refusal and its error are the serializer's. Raises DRF's
    ``ValidationError`` (400 ``validation_error``) or the engine's ``MalformedAction``."""
    fast = _action_submission_usual(data)
    if fast is not None:
        return fast
    checked = ActionSubmitInputSerializer(data=data)
    checked.is_valid(raise_exception=True)
    raw = checked.validated_data["action"]
    return checked.validated_data["version"], {k: raw[k] for k in ("type", "card", "melds") if k in raw}


def _action_submission_usual(data) -> tuple[int, dict] | None:
    """``action_submission``'s answer for a body that the serializer takes as sent, or None for
    any other body (also some the serializer takes: they go through it)."""
    if type(data) is not dict or len(data) != 2:
        return None
    version, raw = data.get("version"), data.get("action")
    if type(version) is not int or not 0 <= version <= _VERSION_MAX or type(raw) is not dict:
        return None
    kind = raw.get("type")
    if not raw.keys() <= _ACTION_FIELDS or type(kind) is not str or kind not in ACTION_TYPES_SET:
        return None
    action = {"type": kind}
    if "card" in raw:
        if type(raw["card"]) is not str or raw["card"] not in _CARD_CODES:
            return None
        action["card"] = raw["card"]
    if "melds" in raw:
        melds = raw["melds"]
        if melds is not None:
            if type(melds) is not list or not all(type(m) is list and all(type(c) is str and c in _CARD_CODES
                                                                          for c in m) for m in melds):
                return None
            melds = [list(m) for m in melds]
        action["melds"] = melds
    return version, action


class PublishedRatingSerializer(serializers.Serializer):
    rating = serializers.FloatField(help_text="Glicko-2 rating points (simple anchored at 1500).")
    rd = serializers.FloatField(help_text="Rating deviation: rating +- 2 rd is the 95% interval.")
    matches = serializers.IntegerField(help_text="Benchmark matches the level played to measure it.")


class SeatSerializer(serializers.Serializer):
    """A seat's player (output only)."""

    seat = serializers.IntegerField()
    name = serializers.CharField()
    is_ai = serializers.BooleanField()
    ai_level = serializers.ChoiceField(choices=AiLevel.choices, allow_null=True, help_text="AI seats only.")
    published_rating = PublishedRatingSerializer(
        allow_null=True, help_text="AI seats: the level's fixed Glicko-2 rating in the game's variant, measured "
        "from its results against the other levels (docs/ratings.md#the-ai-levels); null for people and for a "
        "variant not measured.")


class LayOffSerializer(serializers.Serializer):
    card = card_field()
    meld_index = serializers.IntegerField()


class RoundResultSerializer(serializers.Serializer):
    """A finished round in full (R7-R9): both hands revealed, melds, lay-offs, deadwood counts."""

    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=RoundOutcome.choices)
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


def _event(kind: str, doc: str, *, seat: bool = True, **fields):
    seat_field = (serializers.IntegerField(min_value=0, max_value=1, help_text="The seat that acted.") if seat
                  else serializers.IntegerField(allow_null=True, help_text="Always null: nobody acted."))
    return _one_of(kind, "Event", doc, seat=seat_field, **fields)


GAME_EVENT_VARIANTS = {
    "round_dealt": _event("round_dealt", "A round was dealt (R4).", seat=False,
                          round=serializers.IntegerField(), dealer=serializers.IntegerField(),
                          upcard=card_field(), knock_limit=serializers.IntegerField(help_text="Points (R4.4).")),
    "upcard_taken": _event("upcard_taken", "The upcard was taken (R5).", card=card_field()),
    "upcard_passed": _event("upcard_passed", "The upcard was passed (R5)."),
    "drew_stock": _event("drew_stock", "A card was drawn from the stock (R6.1); ``card`` only for the drawer "
                         "while the round is on.", card=card_field(required=False)),
    "drew_discard": _event("drew_discard", "The top of the discard pile was taken (R6.1).", card=card_field()),
    "discarded": _event("discarded", "A card was discarded (R6.2).", card=card_field()),
    "knocked": _event("knocked", "A knock (R7).", card=card_field(), gin=serializers.BooleanField(),
                      deadwood=serializers.IntegerField(help_text="The knocker's deadwood (points).")),
    "round_ended": _event("round_ended", "The round ended (R7-R9).", seat=False, result=RoundResultSerializer()),
    "match_ended": _event("match_ended", "The match ended (R10).", seat=False,
                          winner=serializers.IntegerField(allow_null=True),
                          scores=serializers.ListField(child=serializers.IntegerField())),
}
assert tuple(GAME_EVENT_VARIANTS) == settings.OKGIN_GAME_EVENT_TYPES
# What an action caused (the engine's events): ``oneOf`` with a discriminator on ``type``.
GAME_EVENT_SCHEMA = PolymorphicProxySerializer(component_name="GameEvent", serializers=GAME_EVENT_VARIANTS,
                                               resource_type_field_name="type")


@extend_schema_field(GAME_EVENT_SCHEMA)
class GameEventField(serializers.JSONField):
    """Output only: an engine event (``GameEvent``); ``card`` of a ``drew_stock`` is only shown to
    the drawer while the round is on."""


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
    history = serializers.ListField(child=GameEventField())
    legal_actions = serializers.ListField(child=ActionField())
    last_result = RoundResultSerializer(allow_null=True)
    winner = serializers.IntegerField(allow_null=True)


class TimeBankSerializer(serializers.Serializer):
    initial = serializers.IntegerField(help_text="Seconds in each player's bank at the start.")
    increment = serializers.IntegerField(help_text="Seconds added to the bank after each of your turns.")
    max = serializers.IntegerField(help_text="The bank's cap in seconds.")


class RematchSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=[c for c in RematchStatus.choices if c[0]], allow_null=True,
                                     help_text="null: no offer yet.")
    offered_by = serializers.IntegerField(allow_null=True, help_text="The seat that offered.")
    game_id = serializers.IntegerField(allow_null=True, help_text="The rematch, once accepted.")


class GameSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=GameKind.choices)
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField()
    variant = serializers.ChoiceField(choices=VARIANTS)
    rules = RulesSerializer()
    seats = serializers.ListField(child=SeatSerializer(allow_null=True), min_length=2, max_length=2,
                                  help_text="Seats 0 and 1; an open challenge's empty seat is null.")
    your_seat = serializers.IntegerField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    round_number = serializers.IntegerField()
    dealer = serializers.IntegerField(allow_null=True)
    to_act = serializers.IntegerField(allow_null=True)
    is_your_turn = serializers.BooleanField()
    winner_seat = serializers.IntegerField(allow_null=True)
    end_reason = serializers.ChoiceField(choices=EndReason.choices, allow_null=True)
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
    paused_until = serializers.DateTimeField(
        allow_null=True, help_text="A seated player is on vacation: no clock runs until then at the latest "
        "(sooner if the vacation is turned off). null: not paused.")
    turn_time_left = serializers.IntegerField(
        allow_null=True, help_text="While paused: seconds left on the current turn's clock when it restarts.")
    time_bank = TimeBankSerializer(allow_null=True, help_text="The time bank (null: move_time_limit or no limit).")
    time_banks = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True,
        help_text="Seconds in each seat's bank; for the seat to act, what it had when the turn began.")
    invitation_expires_at = serializers.DateTimeField(allow_null=True)
    rated = serializers.BooleanField(help_text="The result changes both players' ratings.")
    rematch = RematchSerializer(help_text="The rematch offer of a finished match.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class GameDetailSerializer(GameSummarySerializer):
    view = PlayerViewSerializer(allow_null=True)
    last_round_result = RoundResultSerializer(allow_null=True)
    deck_commitment = serializers.CharField(
        allow_null=True, help_text="The current round's commitment: SHA-256 (hex) of its deck order and "
        "secret salt, revealed in the round's history when it is over (null before the first deal).")
    preset_deck = serializers.BooleanField(allow_null=True, help_text="The current round's deck was chosen by staff.")
    server_time = serializers.DateTimeField(
        help_text="The server's clock when this answer was made: count down to turn_deadline from it."
    )
    time_banks_left = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True,
        help_text="Seconds in each seat's time bank at server_time (the seat to act: what is left of this turn).")


class ActionSubmitOutputSerializer(serializers.Serializer):
    game = GameDetailSerializer()
    events = serializers.ListField(child=GameEventField(), help_text="What this action caused, redacted for you.")


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    upcard = card_field(help_text="The round's first upcard.")
    knock_limit = serializers.IntegerField()
    in_play = serializers.BooleanField()
    outcome = serializers.ChoiceField(choices=RoundOutcome.choices, allow_null=True)
    knocker_seat = serializers.IntegerField(allow_null=True)
    winner_seat = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField(allow_null=True)
    result = RoundResultSerializer(allow_null=True)
    commitment = serializers.CharField(allow_null=True, help_text="SHA-256 (hex) of deck and salt, from the deal.")
    preset_deck = serializers.BooleanField(help_text="The deck was chosen by staff, not shuffled.")
    deck = serializers.ListField(child=card_field(), allow_null=True,
                                 help_text="The deal order (R4), once the round is no longer in play.")
    salt = serializers.CharField(allow_null=True, help_text="The secret salt (64 hex), once the round is over.")
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class VerifyRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    preset_deck = serializers.BooleanField()
    commitment = serializers.CharField(allow_null=True)
    commitment_ok = serializers.BooleanField(allow_null=True)
    replay_ok = serializers.BooleanField()
    problems = serializers.ListField(child=serializers.CharField())


class VerifySerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    verified = serializers.BooleanField(help_text="Every round no longer in play passed both checks.")
    rounds_checked = serializers.IntegerField()
    rounds = VerifyRoundSerializer(many=True)


class MoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    round = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = ActionField()
    events = serializers.ListField(child=GameEventField())
    auto_played = serializers.BooleanField(help_text="Played by the AI for a player who ran out of time.")
    created_at = serializers.DateTimeField()


class ExportMoveSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    round = serializers.IntegerField()
    seat = serializers.IntegerField()
    action = ActionField()


class DeckProofSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    commitment = serializers.CharField(allow_null=True)
    salt = serializers.CharField(allow_null=True)
    preset_deck = serializers.BooleanField()


class ExportSerializer(serializers.Serializer):
    format = serializers.CharField()
    id = serializers.IntegerField()
    variant = serializers.ChoiceField(choices=VARIANTS)
    rules = RulesSerializer()
    first_dealer = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())
    decks = serializers.ListField(child=serializers.ListField(child=card_field()))
    moves = ExportMoveSerializer(many=True)
    rounds = RoundResultSerializer(many=True)
    deck_proofs = DeckProofSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    winner_seat = serializers.IntegerField(allow_null=True)
    end_reason = serializers.ChoiceField(choices=EndReason.choices)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class RatingPointSerializer(serializers.Serializer):
    game_id = serializers.IntegerField()
    rating = serializers.FloatField(help_text="After this match.")
    rd = serializers.FloatField()
    at = serializers.DateTimeField()


class RatingSerializer(serializers.Serializer):
    variant = serializers.CharField()
    rating = serializers.FloatField(help_text="Glicko-2 rating (starts at 1500).")
    rd = serializers.FloatField(help_text="Rating deviation, widened by the time since the last rated match.")
    volatility = serializers.FloatField()
    games = serializers.IntegerField(help_text="Rated matches played (an AI level: benchmark matches).")
    history = RatingPointSerializer(many=True, help_text="The latest rated matches, newest first (at most 50).")
    published = serializers.BooleanField(help_text="True for an AI level's fixed rating measured by benchmark "
                                                   "(games: the benchmark matches; no history), false for a person's.")


class LeaderboardEntrySerializer(serializers.Serializer):
    name = serializers.CharField()
    rating = serializers.FloatField()
    rd = serializers.FloatField()
    games = serializers.IntegerField()
    last_rated_at = serializers.DateTimeField()


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
    ratings = RatingSerializer(many=True, help_text="One per variant with rated matches (an AI level: its "
                                                    "published ratings, docs/ratings.md#the-ai-levels).")


class ReviewProgressSerializer(serializers.Serializer):
    decisions_done = serializers.IntegerField(help_text="Decisions reviewed so far.")
    decisions_total = serializers.IntegerField(allow_null=True, help_text="Decisions to review (null until the "
                                                                         "task has started).")


class ReviewedDecisionSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    seq = serializers.IntegerField(help_text="The move's number in the match (moves/ and export/).")
    phase = serializers.ChoiceField(choices=["upcard", "draw", "discard"])
    hand = serializers.ListField(child=card_field(), help_text="Your cards before the move.")
    upcard = card_field(allow_null=True, help_text="The top of the discard pile before the move.")
    action = ActionField(help_text="What you played.")
    best_action = ActionField(help_text="The evaluator's preferred action (the same when you played it).")
    expected_loss = serializers.FloatField(help_text="Points your action is expected to lose against the "
                                                     "preferred one in this round (>= 0).")
    standard_error = serializers.FloatField(help_text="Standard error of expected_loss (points).")
    mistake = serializers.BooleanField(help_text="expected_loss is above mistake_threshold.")
    samples = serializers.IntegerField(help_text="Determinizations (sampled opponent hands and stock orders).")
    candidates = serializers.IntegerField(help_text="Actions compared (1: nothing to search, e.g. gin).")


class ReviewRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    decisions = serializers.IntegerField()
    mistakes = serializers.IntegerField()
    expected_loss = serializers.FloatField(help_text="Points, summed over the round's decisions.")
    costliest = ReviewedDecisionSerializer(many=True, help_text="At most three: the largest expected losses "
                                                                "above 0, largest first.")


class GameReviewSerializer(serializers.Serializer):
    """A review of your decisions in a finished match (docs/ai.md#game-review)."""

    game_id = serializers.IntegerField()
    seat = serializers.IntegerField()
    player = serializers.CharField()
    status = serializers.ChoiceField(choices=["queued", "running", "done"],
                                     help_text="200 answers are done; 202 answers queued or running.")
    iterations = serializers.IntegerField(help_text="The evaluator's playouts per decision.")
    progress = ReviewProgressSerializer()
    mistake_threshold = serializers.FloatField(help_text="Points: a decision losing more is a mistake.")
    mistakes = serializers.IntegerField(allow_null=True, help_text="Null until done.")
    expected_loss = serializers.FloatField(allow_null=True, help_text="Points over the match; null until done.")
    rounds = ReviewRoundSerializer(many=True, help_text="Per round (empty until done).")
    decisions = ReviewedDecisionSerializer(many=True, help_text="Every reviewed decision in order (empty until "
                                                                "done).")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
