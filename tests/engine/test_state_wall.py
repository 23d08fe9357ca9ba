"""The wall (R8): a drawn round when the stock is down to two cards; the same dealer deals (R3.3)."""
import pytest

from games.engine import DrawStock, IllegalAction, Knock, PassUpcard, RuleSet, apply, deal, legal_actions

from .support import deck_for, play, start

KNOCKER = "2C 3C 4C 5D 5H 5S 9C 9D 9H AS"   # seat 1, the non-dealer: could knock on 1 any turn
OTHER = "AH 3H 7D 8S 10S JC QH KD 4S 2D"    # seat 0, the dealer


def to_draw(n, upcard="JD", rules=None):
    """Both pass, then each player draws from the stock and discards the drawn card, until ``n``
    stock draws have been made; the n-th drawer is left to discard."""
    state = play(start(KNOCKER, OTHER, upcard, rules=rules), (1, PassUpcard()), (0, PassUpcard()))
    for i in range(n):
        seat = state.to_act
        state, events = apply(state, seat, DrawStock())
        if i < n - 1:
            drawn = events[0].data["card"]
            state, _ = apply(state, seat, {"type": "discard", "card": drawn})
            assert state.round is not None, f"round ended early after draw {i + 1}"
    return state


@pytest.mark.rule("R8.1", "R3.3")
def test_r8_1_discard_leaving_two_in_the_stock_is_a_drawn_round():
    """R8.1: the 29th stock draw leaves 2 cards; discarding without knocking ends the round drawn:
    nobody scores; R3.3: the same dealer (seat 0) deals again."""
    state = to_draw(29)
    assert len(state.round.stock) == 2 and state.to_act == 1
    drawn = state.round.history[-1].data["card"]
    state, events = apply(state, 1, {"type": "discard", "card": drawn})
    assert [e.type for e in events] == ["discarded", "round_ended"]
    res = state.results[-1]
    assert (res.outcome, res.winner, res.knocker, res.points) == ("wall", None, None, 0)
    assert state.scores == (0, 0) and state.round is None and state.phase == "deal"
    assert state.dealer == 0
    assert res.deadwood == (65, 1)
    state, _ = deal(state, deck_for(KNOCKER, OTHER, "JD"))
    assert state.round.dealer == 0 and state.round.number == 2 and state.to_act == 1


@pytest.mark.rule("R8.1")
@pytest.mark.parametrize("spade_doubles, multiplier", [(True, 2), (False, 1)])
def test_a_wall_round_reports_the_rounds_multiplier_and_scores_nothing(spade_doubles, multiplier):
    """Spade doubles with a spade first upcard (JS): the round's multiplier is 2 whether it ends
    in a knock or at the wall; the wall's result says so (it said 1) and still scores 0 (R8.1)."""
    state = to_draw(29, "JS", RuleSet(spade_doubles=spade_doubles))
    drawn = state.round.history[-1].data["card"]
    state, _ = apply(state, 1, {"type": "discard", "card": drawn})
    res = state.results[-1]
    assert (res.outcome, res.points, res.multiplier) == ("wall", 0, multiplier)
    assert state.scores == (0, 0)


@pytest.mark.rule("R8.1")
def test_r8_1_three_cards_left_is_not_yet_the_wall():
    """R8.1: after the 28th draw three cards remain; the discard does not end the round."""
    state = to_draw(28)
    assert len(state.round.stock) == 3
    drawn = state.round.history[-1].data["card"]
    state, _ = apply(state, state.to_act, {"type": "discard", "card": drawn})
    assert state.round is not None and state.phase == "draw" and len(state.round.stock) == 3


@pytest.mark.rule("R8.2")
def test_r8_2_player_whose_draw_leaves_two_may_still_knock():
    """R8.2: the 29th drawer (stock now 2) may knock: AS = 1 <= 10; the opponent's 65 - 1 = 64."""
    state = to_draw(29)
    drawn = state.round.history[-1].data["card"]
    knock = {"type": "knock", "card": drawn, "melds": None}
    assert any(isinstance(a, Knock) for a in legal_actions(state))
    state, _ = apply(state, 1, knock)
    res = state.results[-1]
    assert (res.outcome, res.winner, res.points) == ("knock", 1, 64)


@pytest.mark.rule("R8.1")
def test_r8_no_draw_past_the_wall():
    """R8.1: after the drawn round there is nothing left to draw until the next deal."""
    state = to_draw(29)
    drawn = state.round.history[-1].data["card"]
    state, _ = apply(state, 1, {"type": "discard", "card": drawn})
    with pytest.raises(IllegalAction) as info:
        apply(state, 0, DrawStock())
    assert info.value.code == "wrong_phase"
    assert legal_actions(state) == []
