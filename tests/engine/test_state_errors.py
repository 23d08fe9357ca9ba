"""Every engine error: its class, stable code and rule; a rejected action changes nothing."""
import json

import pytest

from games.engine import (BadArgument, Card, CardParseError, Discard, DrawDiscard, DrawStock, EngineError, Event,
                          IllegalAction, InvalidMeld, Knock, KnockOverLimit, MalformedAction, MatchState,
                          NotYourTurn, PassUpcard, RoundResult, RoundState, RuleSet, RuleSetError, TakeUpcard,
                          action_from_dict, apply, replay)

from .support import C, play, start

MELDED = "2C 3C 4C 5D 5H 5S 9C 9D 9H"
DEF65 = "AH 3H 7D 8S 10S JC QH KD 4S 2D"


def fresh():
    return start(f"{MELDED} 7S", DEF65, "6D", "KH")


def drawn():
    return play(fresh(), (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))


def rejected(state, seat, action, cls, code, rule):
    before = json.dumps(state.to_dict())
    with pytest.raises(cls) as info:
        apply(state, seat, action)
    err = info.value
    assert isinstance(err, EngineError) and isinstance(err, ValueError)
    assert (err.code, err.rule) == (code, rule)
    assert err.to_dict() == {"code": code, "message": str(err), "rule": rule}
    assert json.dumps(state.to_dict()) == before  # nothing written
    return err


def test_not_your_turn():
    rejected(fresh(), 0, PassUpcard(), NotYourTurn, "not_your_turn", "R6")
    rejected(drawn(), 0, Discard(Card.parse("KD")), NotYourTurn, "not_your_turn", "R6")


def test_wrong_phase():
    rejected(fresh(), 1, DrawStock(), IllegalAction, "wrong_phase", "R5.1")
    state = play(fresh(), (1, TakeUpcard()), (1, Discard(Card.parse("7S"))))
    rejected(state, 0, Discard(Card.parse("KD")), IllegalAction, "wrong_phase", "R6.1")
    rejected(drawn(), 1, DrawStock(), IllegalAction, "wrong_phase", "R6.2")


def test_wrong_phase_between_rounds():
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Knock(Card.parse("KH"))))
    assert state.phase == "deal"
    rejected(state, 0, DrawStock(), IllegalAction, "wrong_phase", "R4")


def test_card_not_in_hand():
    err = rejected(drawn(), 1, Discard(Card.parse("AD")), IllegalAction, "card_not_in_hand", "R6.2")
    assert "AD" in err.message
    rejected(drawn(), 1, Knock(Card.parse("AD")), IllegalAction, "card_not_in_hand", "R6.2")


def test_discard_taken_card():
    state = play(fresh(), (1, TakeUpcard()))
    err = rejected(state, 1, Discard(Card.parse("6D")), IllegalAction, "discard_taken_card", "R6.3")
    assert err.message == "6D was just taken from the discard pile and may not be discarded this turn"
    err = rejected(state, 1, Knock(Card.parse("6D")), IllegalAction, "discard_taken_card", "R6.3")
    assert err.message == "6D was just taken from the discard pile and may not be discarded on a knock this turn"


@pytest.mark.parametrize("cls,what", [(Event, "an event"), (RoundState, "a round"), (RoundResult, "a round result"),
                                      (MatchState, "a match state")])
def test_from_dict_names_the_form_it_could_not_read(cls, what):
    # {} lacks the first key each form reads ("type", "number", "rules"...): a KeyError, reported as
    # a BadArgument that names the form.
    with pytest.raises(BadArgument) as info:
        cls.from_dict({})
    assert str(info.value).startswith(f"not the JSON form of {what}: KeyError: ")


def test_from_dict_lets_a_rules_error_through():
    # A stored state whose rules are wrong is a rules error (bad_rules), not a malformed form.
    data = fresh().to_dict()
    data["rules"] = {**data["rules"], "knock_after_dinner": True}
    with pytest.raises(RuleSetError) as info:
        MatchState.from_dict(data)
    assert type(info.value) is RuleSetError and str(info.value) == "unknown rule option(s): knock_after_dinner"


@pytest.mark.parametrize("args", [(3, 0, {}), ("discarded", 2, {}), ("discarded", 0, []), ("discarded", None, "6D")])
def test_event_refuses_a_bad_type_seat_or_data(args):
    with pytest.raises(BadArgument) as info:
        Event(*args)
    assert str(info.value) == ("an event is a type (text), a seat (0, 1 or None) and a dict of data, got "
                               + ", ".join(repr(a) for a in args))


@pytest.mark.parametrize("move", [(0,), 5, (0, PassUpcard(), 1), [0]])
def test_replay_refuses_a_move_that_is_not_a_seat_action_pair(move):
    # Refused before any deck is needed, so no deck order is given.
    with pytest.raises(BadArgument) as info:
        replay(RuleSet(), 0, [], [move])
    assert str(info.value) == f"a move is a (seat, action) pair, got {move!r}"


def test_knock_over_limit():
    rejected(drawn(), 1, Knock(Card.parse("KH")), KnockOverLimit, "knock_over_limit", "R7.2")


def test_invalid_meld():
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    rejected(state, 1, Knock(Card.parse("KH"), (C("2C 3C 5D"),)), InvalidMeld, "invalid_meld", "R2")
    rejected(state, 1, Knock(Card.parse("KH"), (C("2C 3C 4C"), C("5H 5S 5D 4C"))),
             InvalidMeld, "invalid_meld", "R2")
    rejected(state, 1, Knock(Card.parse("KH"), (C("2C 3C 4C"), C("2C 3C 4C"))), InvalidMeld, "invalid_meld", "R2.3")
    rejected(state, 1, Knock(Card.parse("KH"), (C("9C 9D 9H 9S"),)), InvalidMeld, "invalid_meld", "R7.4")


def test_upcard_unavailable():
    state = play(fresh(), (1, PassUpcard()), (0, PassUpcard()))
    rejected(state, 1, DrawDiscard(), IllegalAction, "upcard_unavailable", "R5.4")


def test_match_over():
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH", scores=(0, 99))
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Knock(Card.parse("KH"))))
    err = rejected(state, 0, PassUpcard(), IllegalAction, "match_over", "R10.1")
    assert err.message == "the match is over"


@pytest.mark.parametrize("data", [
    None, [], "pass", {"type": "fold"}, {}, {"type": 3}, {"type": "discard"}, {"type": "discard", "card": "ZZ"},
    {"type": "discard", "card": 7}, {"type": "pass", "card": "AS"}, {"type": "discard", "card": "AS", "x": 1},
    {"type": "knock", "card": "AS", "melds": "AS 2S 3S"}, {"type": "knock", "card": "AS", "melds": [["AS", "QQ"]]},
    {"type": "knock", "card": "AS", "melds": ["AS"]},
])
def test_malformed_action_json(data):
    with pytest.raises(MalformedAction) as info:
        action_from_dict(data)
    assert info.value.code == "malformed_action"
    if isinstance(data, dict):
        # through apply too, before any rule is looked at
        state = fresh()
        with pytest.raises(MalformedAction):
            apply(state, 1, data)


def test_malformed_card_in_action_names_the_input():
    with pytest.raises(MalformedAction) as info:
        action_from_dict({"type": "discard", "card": "11H"})
    assert "'11H'" in str(info.value)


@pytest.mark.parametrize("action", ["pass", None, 42, ("discard", "AS"), Card.parse("AS")])
def test_apply_rejects_a_non_action_as_malformed(action):
    """apply() accepts an action value or its JSON dict; anything else is a malformed_action, not a
    crash (AttributeError) deep in the rules."""
    rejected(fresh(), 1, action, MalformedAction, "malformed_action", None)


def test_card_parse_error_is_an_engine_error():
    with pytest.raises(EngineError) as info:
        Card.parse("ZZ")
    assert isinstance(info.value, CardParseError) and info.value.code == "bad_card"


@pytest.mark.parametrize("seat", [True, False, 2, -1, "0", None])
@pytest.mark.rule("R1.1")
def test_apply_rejects_a_seat_that_is_not_0_or_1(seat):
    """Seats are the ints 0 and 1 (R1.1); ``True`` is not seat 1."""
    rejected(fresh(), seat, {"type": "pass"}, MalformedAction, "malformed_action", None)
