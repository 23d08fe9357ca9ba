"""games.serializers.action_submission: the action POST's body is validated as
ActionSubmitInputSerializer validates it, whether it takes the usual body without the serializer
(issue 14) or hands the body to the serializer."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from games.engine import MalformedAction
from okgin_project.errors import ServiceError
from games.serializers import (ACTION_TYPES, ActionSubmitInputSerializer, _action_submission_usual,
                               action_submission)

CODES = [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "CDHS"]
NEAR_CODES = ["as", "TH", " AS", "AS ", "AS\n", "1S", "11H", "", "AX", "10", "ZZZ", "QS\n"]
card = st.one_of(st.sampled_from(CODES), st.sampled_from(NEAR_CODES), st.integers(-2, 60), st.none(),
                 st.lists(st.sampled_from(CODES), max_size=2))
melds = st.one_of(st.none(), st.lists(st.lists(card, max_size=4), max_size=3), card,
                  st.lists(st.sampled_from(CODES), max_size=3), st.dictionaries(st.text(max_size=3), card, max_size=2))
kind = st.one_of(st.sampled_from(ACTION_TYPES), st.sampled_from(["Pass", "draw", "", "knock "]), st.integers(0, 3),
                 st.none(), st.lists(st.sampled_from(ACTION_TYPES), max_size=1))
action = st.one_of(
    st.fixed_dictionaries({"type": kind}, optional={"card": card, "melds": melds}),
    st.fixed_dictionaries({"type": kind}, optional={"card": card, "extra": st.integers(0, 1), "seat": st.just(0)}),
    st.lists(kind, max_size=2), st.none(), st.text(max_size=5),
)
version = st.one_of(st.integers(-3, 10**4), st.sampled_from([2**63 - 1, 2**63, 10**4400, True, False, 1.0, 2.5]),
                    st.sampled_from(["1", None, [], {}]))
usual = st.fixed_dictionaries({"version": st.integers(0, 2**63 - 1), "action": st.fixed_dictionaries(
    {"type": st.sampled_from(ACTION_TYPES)},
    optional={"card": st.sampled_from(CODES), "melds": st.one_of(st.none(), st.lists(st.lists(st.sampled_from(CODES))))})})
body = st.one_of(
    usual,
    st.fixed_dictionaries({"version": version, "action": action}),
    st.fixed_dictionaries({"version": version}, optional={"action": action, "extra": st.integers(0, 1)}),
    st.lists(st.integers(0, 2), max_size=2), st.none(), st.text(max_size=4), st.integers(0, 5),
)


REFUSALS = (ValidationError, MalformedAction, ServiceError)


def _refusal(exc):
    """A refusal as the API answers it: its class, code and detail (or message)."""
    return type(exc), getattr(exc, "code", None), str(getattr(exc, "detail", exc))


def _by_serializer(data):
    """What the serializer makes of ``data``: ``(version, action)`` as the view builds them, or
    the refusal (``_refusal``)."""
    checked = ActionSubmitInputSerializer(data=data)
    try:
        checked.is_valid(raise_exception=True)
    except REFUSALS as exc:
        return _refusal(exc)
    raw = checked.validated_data["action"]
    return checked.validated_data["version"], {k: raw[k] for k in ("type", "card", "melds") if k in raw}


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body)
def test_every_body_gets_the_serializers_answer(data):
    """Taken or refused as the serializer takes or refuses it, with the same values or error."""
    expected = _by_serializer(data)
    usual = _action_submission_usual(data)
    if usual is not None:
        assert usual == expected  # the usual body is one the serializer takes, as sent
    try:
        got = action_submission(data)
    except REFUSALS as exc:
        got = _refusal(exc)
    assert got == expected


@pytest.mark.parametrize("data", [
    {"version": 0, "action": {"type": "pass"}},
    {"version": 17, "action": {"type": "draw_stock"}},
    {"version": 3, "action": {"type": "discard", "card": "10H"}},
    {"version": 9, "action": {"type": "knock", "card": "KS"}},
    {"version": 9, "action": {"type": "knock", "card": "KS", "melds": None}},
    {"version": 9, "action": {"type": "knock", "card": "KS", "melds": [["AS", "2S", "3S"], ["7D", "7C", "7H"]]}},
])
def test_the_usual_bodies_are_taken_without_the_serializer(data):
    """What clients send (the legal actions as listed, a knock with or without melds) is taken by
    the fast path: the same values as the serializer's, melds copied."""
    usual = _action_submission_usual(data)
    assert usual == (data["version"], data["action"]) == _by_serializer(data)
    if data["action"].get("melds"):
        assert usual[1]["melds"] is not data["action"]["melds"]


@pytest.mark.parametrize("data", [
    {"version": 0, "action": {"type": "pass"}, "extra": 1},  # unknown top-level field
    {"version": True, "action": {"type": "pass"}},  # a boolean is not a JSON integer
    {"version": -1, "action": {"type": "pass"}},
    {"version": 2**63, "action": {"type": "pass"}},  # beyond the usual range: the serializer decides
    {"version": 0, "action": {"type": "discard", "card": "TH"}},  # not the schema's spelling (R1.2)
    {"version": 0, "action": {"type": "discard", "card": "AS\n"}},
    {"version": 0, "action": {"type": "knock", "card": "AS", "melds": [["AS", "as"]]}},
    {"version": 0, "action": {"type": "pass", "seat": 0}},  # unknown action field
    {"version": 0, "action": {"type": ["pass"]}},
])
def test_other_bodies_go_through_the_serializer(data):
    assert _action_submission_usual(data) is None
