"""The deal (R4) and the first dealer (R3.1)."""
import pytest

from games.engine import (FULL_DECK, CardParseError, IllegalAction, PassUpcard, RuleSet, TakeUpcard, deal,
                          legal_actions, new_match)

from .support import C, deck_for

ND = "2C 3C 4C 5D 5H 5S 9C 9D 9H 8S"
DL = "6H 7H 8H JS JD JC JH 5C 8D AC"


@pytest.mark.rule("R3.1")
def test_r3_1_first_dealer_is_the_callers_choice():
    """R3.1: the caller picks the first dealer at random; the engine records it."""
    for seat in (0, 1):
        state = new_match(RuleSet(), seat)
        assert state.dealer == seat and state.phase == "deal" and state.to_act is None
        assert state.scores == (0, 0) and state.round is None


@pytest.mark.parametrize("dealer", [0, 1])
@pytest.mark.rule("R4.1", "R4.3", "R4.2")
def test_r4_1_to_r4_3_deal_from_an_explicit_order(dealer):
    """R4.1, R4.2, R4.3: 10 cards each (non-dealer first), the 21st is the upcard, 31 in the stock."""
    deck = deck_for(ND, DL, "KD", "QS")
    state, events = deal(new_match(RuleSet(), dealer), deck)
    r = state.round
    assert r.hands[1 - dealer] == tuple(sorted(C(ND)))
    assert r.hands[dealer] == tuple(sorted(C(DL)))
    assert r.discard_pile == C("KD") and r.first_upcard == C("KD")[0]
    assert len(r.stock) == 31 and r.stock[0] == C("QS")[0]
    assert r.stock == C(" ".join(deck[21:]))
    assert sorted(r.hands[0] + r.hands[1] + r.stock + r.discard_pile) == list(FULL_DECK)
    assert state.round_number == 1 and r.number == 1 and r.dealer == dealer
    assert [e.type for e in events] == ["round_dealt"]
    assert events[0].to_dict() == {"type": "round_dealt", "seat": None, "round": 1, "dealer": dealer,
                                   "upcard": "KD", "knock_limit": 10}


@pytest.mark.parametrize("upcard,limit", [("6D", 6), ("AD", 1), ("KD", 10), ("10S", 10), ("QS", 10)])
@pytest.mark.rule("R4.4")
def test_r4_4_round_knock_limit_from_the_first_upcard(upcard, limit):
    """R4.4: Oklahoma: the first upcard's value is the round's knock limit."""
    state, _ = deal(new_match(), deck_for(ND, DL, upcard))
    assert state.round.knock_limit == limit


@pytest.mark.rule("R4.4")
def test_r4_4_classic_round_limit_is_ten():
    """R4.4: classic: 10 even with an ace upcard."""
    state, _ = deal(new_match(RuleSet(variant="classic")), deck_for(ND, DL, "AD"))
    assert state.round.knock_limit == 10


def test_r4_deal_only_when_waiting_for_a_deal():
    """R4: a second deal while a round is in play is a wrong_phase error."""
    state, _ = deal(new_match(), deck_for(ND, DL, "KD"))
    with pytest.raises(IllegalAction) as info:
        deal(state, deck_for(ND, DL, "KD"))
    assert info.value.code == "wrong_phase"


def test_r4_deal_rejects_a_bad_deck():
    with pytest.raises(CardParseError) as info:
        deal(new_match(), deck_for(ND, DL, "KD")[:51])
    assert info.value.code == "bad_deck"


@pytest.mark.rule("R5.1")
def test_r5_1_after_the_deal_the_non_dealer_acts_first():
    """R5.1: the non-dealer decides first on the upcard."""
    state, _ = deal(new_match(RuleSet(), 1), deck_for(ND, DL, "KD"))
    assert state.phase == "upcard" and state.to_act == 0
    assert legal_actions(state) == [TakeUpcard(), PassUpcard()]
    assert legal_actions(state, 1) == []
