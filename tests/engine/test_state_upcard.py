"""The first turn: the upcard protocol (R5.1-R5.4)."""
import pytest

from games.engine import (Card, Discard, DrawDiscard, DrawStock, IllegalAction, Knock, NotYourTurn,
                          PassUpcard, TakeUpcard, apply, legal_actions)

from .support import C, play, start

ND = "2C 3C 4C 5D 5H 5S 9C 9D 9H 8S"   # seat 1 (dealer is seat 0)
DL = "6H 7H 8H JS JD JC JH 5C 8D AC"   # seat 0


def fresh(upcard="KD", stock_top="QS"):
    return start(ND, DL, upcard, stock_top)


@pytest.mark.rule("R5.1")
def test_r5_1_non_dealer_decides_first_dealer_may_not():
    """R5.1: the dealer (seat 0) cannot act before the non-dealer (seat 1)."""
    state = fresh()
    assert state.to_act == 1
    with pytest.raises(NotYourTurn) as info:
        apply(state, 0, TakeUpcard())
    assert info.value.code == "not_your_turn"


@pytest.mark.rule("R5.1", "R5.3")
def test_r5_1_non_dealer_takes_the_upcard():
    """R5.1, R5.3: taking puts the upcard in hand; the taker must then discard or knock."""
    state, events = apply(fresh(), 1, TakeUpcard())
    r = state.round
    assert Card.parse("KD") in r.hands[1] and len(r.hands[1]) == 11
    assert r.discard_pile == () and r.phase == "discard" and r.to_act == 1
    assert r.taken_from_discard == Card.parse("KD")
    assert r.known[1] == {Card.parse("KD")}
    assert [e.to_dict() for e in events] == [{"type": "upcard_taken", "seat": 1, "card": "KD"}]


@pytest.mark.rule("R5.2")
def test_r5_2_after_non_dealer_passes_dealer_may_take():
    """R5.2: after the non-dealer passes, the dealer may take the upcard."""
    state, events = apply(fresh(), 1, PassUpcard())
    assert state.to_act == 0 and state.phase == "upcard"
    assert legal_actions(state) == [TakeUpcard(), PassUpcard()]
    assert events[0].to_dict() == {"type": "upcard_passed", "seat": 1}
    state, _ = apply(state, 0, TakeUpcard())
    assert Card.parse("KD") in state.round.hands[0] and state.to_act == 0 and state.phase == "discard"


@pytest.mark.rule("R5.3")
def test_r5_3_taker_discards_then_the_other_player_takes_a_normal_turn():
    """R5.3: the dealer takes the upcard and discards; then the non-dealer draws normally."""
    state = play(fresh(), (1, PassUpcard()), (0, TakeUpcard()), (0, Discard(Card.parse("AC"))))
    assert state.phase == "draw" and state.to_act == 1
    assert state.round.discard_pile == C("AC")
    assert legal_actions(state) == [DrawStock(), DrawDiscard()]
    state = play(state, (1, DrawDiscard()))
    assert Card.parse("AC") in state.round.hands[1]


@pytest.mark.rule("R5.3")
def test_r5_3_non_dealer_takes_discards_then_dealer_draws():
    """R5.3: the non-dealer takes and discards; the dealer's normal turn follows."""
    state = play(fresh(), (1, TakeUpcard()), (1, Discard(Card.parse("8S"))))
    assert state.phase == "draw" and state.to_act == 0
    assert state.round.discard_pile == C("8S")
    assert len(state.round.stock) == 31


@pytest.mark.rule("R5.3", "R6.3")
def test_r5_3_r6_3_taker_may_not_discard_the_upcard_itself():
    """R5.3, R6.3: the card just taken from the discard pile may not go back the same turn."""
    state = play(fresh(), (1, TakeUpcard()))
    with pytest.raises(IllegalAction) as info:
        apply(state, 1, Discard(Card.parse("KD")))
    assert info.value.code == "discard_taken_card" and info.value.rule == "R6.3"
    assert Discard(Card.parse("KD")) not in legal_actions(state)


@pytest.mark.rule("R5.3", "R7.1", "R6.3")
def test_r5_3_r7_1_taker_may_knock_on_the_first_turn():
    """R5.3, R7.1: the non-dealer takes KD and knocks at once, discarding 8S; KD (which may not be
    discarded this turn, R6.3) is the only deadwood: 10 <= the limit 10."""
    state = play(fresh(), (1, TakeUpcard()))
    assert Knock(Card.parse("8S")) in legal_actions(state)
    state, events = apply(state, 1, Knock(Card.parse("8S")))
    assert events[0].to_dict() == {"type": "knocked", "seat": 1, "card": "8S", "gin": False, "deadwood": 10}
    assert state.results[-1].deadwood[1] == 10


@pytest.mark.rule("R5.4")
def test_r5_4_both_pass_non_dealer_must_draw_from_the_stock():
    """R5.4: after both pass, the non-dealer begins by drawing from the stock; the upcard may not be
    taken then (upcard_unavailable)."""
    state = play(fresh(), (1, PassUpcard()), (0, PassUpcard()))
    assert state.phase == "draw" and state.to_act == 1
    assert state.round.upcard_refused
    assert legal_actions(state) == [DrawStock()]
    for action in (DrawDiscard(), TakeUpcard()):
        with pytest.raises(IllegalAction) as info:
            apply(state, 1, action)
        assert info.value.code in ("upcard_unavailable", "wrong_phase")
    with pytest.raises(IllegalAction) as info:
        apply(state, 1, DrawDiscard())
    assert (info.value.code, info.value.rule) == ("upcard_unavailable", "R5.4")
    state, events = apply(state, 1, DrawStock())
    assert Card.parse("QS") in state.round.hands[1] and len(state.round.stock) == 30
    assert events[0].to_dict() == {"type": "drew_stock", "seat": 1, "card": "QS"}
    assert not state.round.upcard_refused


@pytest.mark.rule("R5.4")
def test_r5_4_after_the_first_draw_play_goes_on_normally():
    """R5.4: once the non-dealer has drawn and discarded, the dealer may take the discard pile's top."""
    state = play(fresh(), (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Discard(Card.parse("QS"))))
    assert state.to_act == 0 and legal_actions(state) == [DrawStock(), DrawDiscard()]
    state = play(state, (0, DrawDiscard()))
    assert Card.parse("QS") in state.round.hands[0]
    assert state.round.discard_pile == C("KD")


@pytest.mark.rule("R5.1")
def test_r5_upcard_phase_only_takes_or_passes():
    """R5.1: on the first turn drawing or discarding is a wrong_phase error."""
    state = fresh()
    for action in (DrawStock(), DrawDiscard(), Discard(Card.parse("8S")), Knock(Card.parse("8S"))):
        with pytest.raises(IllegalAction) as info:
            apply(state, 1, action)
        assert info.value.code == "wrong_phase"


@pytest.mark.rule("R6.3", "R7.2")
def test_legal_knocks_leave_out_only_the_card_taken_from_the_discard_pile():
    dealer = "AH 3H 7D 8S 10S JC QH KD 4S 2D"  # seat 0: no meld, none of the cards below
    # Seat 1 (non-dealer) holds 2C 3C 4C, 5D 5H 5S, 9C 9D 9H and 3D; upcard 6D: knock limit 6 (R4.4).
    # Taking 6D: a knock discarding 3D leaves 6D = 6 <= 6; discarding 6D would leave 3D = 3 but 6D
    # was just taken (R6.3); any other discard breaks a meld (14 or more). Knocks: 3D only.
    state = play(start("2C 3C 4C 5D 5H 5S 9C 9D 9H 3D", dealer, "6D", "AC"), (1, TakeUpcard()))
    assert [a.card.code for a in legal_actions(state) if isinstance(a, Knock)] == ["3D"]
    # Both pass and seat 1 draws AC (nothing forbidden): discarding AC leaves 3D = 3, 4C leaves
    # AC 2C 3C and 3D = 3, 3D leaves the run AC-4C (gin, 0). Knocks: AC, 4C, 3D (by card index).
    state = play(start("2C 3C 4C 5D 5H 5S 9C 9D 9H 3D", dealer, "6D", "AC"), (1, PassUpcard()), (0, PassUpcard()),
                 (1, DrawStock()))
    assert [a.card.code for a in legal_actions(state) if isinstance(a, Knock)] == ["AC", "4C", "3D"]
