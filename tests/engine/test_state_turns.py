"""Normal turns: draw (R6.1), discard (R6.2), the drawn upcard (R6.3)."""
import pytest

from games.engine import (Card, Discard, DrawDiscard, DrawStock, IllegalAction, Knock, PassUpcard, RuleSet,
                          TakeUpcard, apply, legal_actions)

from .support import C, play, start

ND = "2C 3C 4C 5D 5H 5S 9C 9D 9H 8S"   # seat 1
DL = "6H 7H 8H JS JD JC JH 5C 8D AC"   # seat 0


def after_first_turn(rules=None):
    """Both pass; seat 1 draws QS and discards it; seat 0 to draw. Stock top is then 10D."""
    state = start(ND, DL, "KD", "QS 10D 2S", rules=rules)
    return play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Discard(Card.parse("QS"))))


@pytest.mark.rule("R6.1")
def test_r6_1_draw_top_of_stock():
    """R6.1: drawing from the stock takes its top card; the card is not public."""
    state = after_first_turn()
    state2, events = apply(state, 0, DrawStock())
    assert Card.parse("10D") in state2.round.hands[0]
    assert state2.round.stock == state.round.stock[1:]
    assert state2.round.known[0] == frozenset()
    assert state2.phase == "discard" and state2.to_act == 0


@pytest.mark.rule("R6.1")
def test_r6_1_draw_top_of_discard_pile_becomes_known():
    """R6.1: drawing from the discard pile takes its top; the opponent now knows the card."""
    state = after_first_turn()
    assert state.round.discard_pile == C("KD QS")
    state2, events = apply(state, 0, DrawDiscard())
    assert Card.parse("QS") in state2.round.hands[0]
    assert state2.round.discard_pile == C("KD")
    assert state2.round.known[0] == {Card.parse("QS")}
    assert events[0].to_dict() == {"type": "drew_discard", "seat": 0, "card": "QS"}


@pytest.mark.rule("R6.2")
def test_r6_2_discard_ends_the_turn():
    """R6.2: the discard goes face up on the pile; the other player is to draw."""
    state = play(after_first_turn(), (0, DrawStock()))
    state2, events = apply(state, 0, Discard(Card.parse("8D")))
    assert state2.round.discard_pile[-1] == Card.parse("8D")
    assert Card.parse("8D") not in state2.round.hands[0] and len(state2.round.hands[0]) == 10
    assert state2.phase == "draw" and state2.to_act == 1
    assert events[0].to_dict() == {"type": "discarded", "seat": 0, "card": "8D"}


@pytest.mark.rule("R6.2")
def test_r6_2_cannot_discard_a_card_not_in_hand():
    state = play(after_first_turn(), (0, DrawStock()))
    for card in ("2S", "8S", "QS"):
        with pytest.raises(IllegalAction) as info:
            apply(state, 0, Discard(Card.parse(card)))
        assert (info.value.code, info.value.rule) == ("card_not_in_hand", "R6.2")
        assert card in str(info.value)


@pytest.mark.rule("R6.1", "R6.2")
def test_r6_1_r6_2_draw_then_discard_order_enforced():
    """R6.1, R6.2: discarding before drawing, or drawing twice, is a wrong_phase error."""
    state = after_first_turn()
    with pytest.raises(IllegalAction) as info:
        apply(state, 0, Discard(Card.parse("8D")))
    assert (info.value.code, info.value.rule) == ("wrong_phase", "R6.1")
    state = play(state, (0, DrawStock()))
    for action in (DrawStock(), DrawDiscard(), TakeUpcard(), PassUpcard()):
        with pytest.raises(IllegalAction) as info:
            apply(state, 0, action)
        assert (info.value.code, info.value.rule) == ("wrong_phase", "R6.2")


@pytest.mark.rule("R6.3")
def test_r6_3_card_taken_from_discard_pile_may_not_be_discarded():
    """R6.3 (default on): QS just taken from the discard pile may not be discarded, nor be the
    discard of a knock; any other card may."""
    state = play(after_first_turn(), (0, DrawDiscard()))
    with pytest.raises(IllegalAction) as info:
        apply(state, 0, Discard(Card.parse("QS")))
    assert (info.value.code, info.value.rule) == ("discard_taken_card", "R6.3")
    with pytest.raises(IllegalAction) as info:
        apply(state, 0, Knock(Card.parse("QS")))
    assert info.value.code == "discard_taken_card"
    acts = legal_actions(state)
    assert Discard(Card.parse("QS")) not in acts and Discard(Card.parse("8D")) in acts
    assert len([a for a in acts if isinstance(a, Discard)]) == 10


@pytest.mark.rule("R6.3")
def test_r6_3_option_off_allows_discarding_the_taken_card():
    """R6.3 is an option: with forbid_discarding_drawn_upcard=False the card may go straight back."""
    state = play(after_first_turn(RuleSet(forbid_discarding_drawn_upcard=False)), (0, DrawDiscard()))
    assert Discard(Card.parse("QS")) in legal_actions(state)
    state, _ = apply(state, 0, Discard(Card.parse("QS")))
    assert state.round.discard_pile[-1] == Card.parse("QS")
    assert state.round.known[0] == frozenset()


@pytest.mark.rule("R6.3")
def test_r6_3_forbidden_card_is_only_for_the_same_turn():
    """R6.3: the next turn, the card taken earlier may be discarded."""
    state = play(after_first_turn(), (0, DrawDiscard()), (0, Discard(Card.parse("8D"))),
                 (1, DrawStock()), (1, Discard(Card.parse("10D"))), (0, DrawStock()))
    assert Discard(Card.parse("QS")) in legal_actions(state)
    state, _ = apply(state, 0, Discard(Card.parse("QS")))
    assert state.round.known[0] == frozenset()
