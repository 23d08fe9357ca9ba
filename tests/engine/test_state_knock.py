"""Knocking (R7), the knock limit in play (R4.4) and scoring a round (R9), worked out by hand.

Dealer is seat 0, the non-dealer (seat 1) is the knocker unless said otherwise. The knocker's melds
2-3-4C, 5D 5H 5S, 9C 9D 9H accept lay-offs AC, 5C (on the run or the set) and 9S only.
"""
import pytest

from games.engine import (Card, Discard, DrawStock, IllegalAction, InvalidMeld, Knock, KnockOverLimit,
                          PassUpcard, RuleSet, TakeUpcard, apply, legal_actions)

from .support import C, play, start

MELDED = "2C 3C 4C 5D 5H 5S 9C 9D 9H"
DEF65 = "AH 3H 7D 8S 10S JC QH KD 4S 2D"  # no meld, nothing to lay off: 65


def knocker_to_discard(extra, defender=DEF65, upcard="6D", stock_top="KH", rules=None):
    """Both pass the upcard; the non-dealer draws ``stock_top`` and must now discard or knock."""
    state = start(f"{MELDED} {extra}", defender, upcard, stock_top, rules=rules)
    return play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))


def knock(state, card, melds=None):
    if melds is not None:
        melds = tuple(C(m) for m in melds)
    return apply(state, 1, Knock(Card.parse(card), melds))


@pytest.mark.rule("R4.4", "R7.2")
def test_worked_example_upcard_6_deadwood_7_may_not_knock():
    """RULES.md worked example (R4.4, R7.2): Oklahoma, upcard 6: with 7 deadwood (7S after
    discarding KH) the knock is refused; no knock is listed."""
    state = knocker_to_discard("7S")
    assert state.round.knock_limit == 6
    assert not [a for a in legal_actions(state) if isinstance(a, Knock)]
    with pytest.raises(KnockOverLimit) as info:
        knock(state, "KH")
    assert (info.value.code, info.value.rule) == ("knock_over_limit", "R7.2")
    assert "6" in str(info.value) and "7" in str(info.value)


@pytest.mark.rule("R9.2", "R4.4", "R7.2")
def test_worked_example_upcard_6_deadwood_6_may_knock_r9_2():
    """RULES.md worked example (R4.4, R7.2) and R9.2: with 6 deadwood (6S) the knock stands; the
    defender's 65 (no meld, no lay-off) minus 6: the knocker scores 59."""
    state = knocker_to_discard("6S")
    assert legal_actions(state)[-1] == Knock(Card.parse("KH"))
    state, events = knock(state, "KH")
    res = state.results[-1]
    assert (res.outcome, res.knocker, res.winner, res.points) == ("knock", 1, 1, 59)
    assert res.deadwood == (65, 6)
    assert state.scores == (0, 59)
    assert [e.type for e in events] == ["knocked", "round_ended"]
    assert events[1].data["result"] == res.to_dict()


@pytest.mark.rule("R4.4")
def test_worked_example_upcard_ace_limit_1():
    """RULES.md worked example (R4.4): Oklahoma, upcard ace: knock limit 1. AS loose (1) may knock,
    2S loose (2) may not. Score: 65 - 1 = 64."""
    state = knocker_to_discard("AS", upcard="AD")
    assert state.round.knock_limit == 1
    state, _ = knock(state, "KH")
    assert state.results[-1].points == 64
    state = knocker_to_discard("2S", upcard="AD")
    with pytest.raises(KnockOverLimit):
        knock(state, "KH")


@pytest.mark.rule("R4.4")
def test_ace_requires_gin_option_refuses_a_one_point_knock():
    """House rule ace_requires_gin (R4.4 option): with an ace upcard only gin may knock."""
    state = knocker_to_discard("AS", upcard="AD", rules=RuleSet(ace_requires_gin=True))
    assert state.round.knock_limit == 0
    assert not [a for a in legal_actions(state) if isinstance(a, Knock)]
    with pytest.raises(KnockOverLimit):
        knock(state, "KH")


@pytest.mark.rule("R4.4")
def test_r4_4_classic_limit_ten_whatever_the_upcard():
    """R4.4: classic: with upcard 3S a knock on 10 deadwood stands (Oklahoma would allow 3)."""
    state = knocker_to_discard("QS", upcard="3S", rules=RuleSet(variant="classic"))
    state, _ = knock(state, "KH")
    assert state.results[-1].deadwood[1] == 10
    state = knocker_to_discard("QS", upcard="3S")
    with pytest.raises(KnockOverLimit):
        knock(state, "KH")


@pytest.mark.rule("R7.3")
def test_r7_3_knocking_is_never_compulsory():
    """R7.3: with a legal knock, a plain discard is also accepted and play goes on."""
    state = knocker_to_discard("6S")
    assert Knock(Card.parse("KH")) in legal_actions(state)
    state, _ = apply(state, 1, Discard(Card.parse("KH")))
    assert state.phase == "draw" and state.to_act == 0 and state.results == ()


@pytest.mark.rule("R7.4", "R7.5")
def test_r7_4_r7_5_both_hands_laid_out_in_the_result():
    """R7.4, R7.5: the knocker's ten cards in melds and deadwood, the opponent's likewise."""
    state, _ = knock(knocker_to_discard("6S"), "KH")
    res = state.results[-1]
    assert sorted(sorted(c.code for c in m) for m in res.knocker_melds) == [
        ["2C", "3C", "4C"], ["5D", "5H", "5S"], ["9C", "9D", "9H"]]
    assert res.knocker_deadwood == C("6S") and res.discard == Card.parse("KH")
    assert res.defender_melds == () and sorted(res.defender_deadwood) == sorted(C(DEF65))
    assert sorted(res.hands[1]) == sorted(C(f"{MELDED} 6S")) and sorted(res.hands[0]) == sorted(C(DEF65))


@pytest.mark.rule("R7.4")
def test_r7_4_knocker_may_lay_out_chosen_melds():
    """R7.4: the knocker's own melds are used as given."""
    state, _ = knock(knocker_to_discard("6S"), "KH", ["9C 9D 9H", "2C 3C 4C", "5D 5H 5S"])
    res = state.results[-1]
    assert res.knocker_melds == (C("9C 9D 9H"), C("2C 3C 4C"), C("5D 5H 5S"))
    assert res.points == 59


@pytest.mark.rule("R7.4", "R7.2")
def test_r7_4_chosen_melds_over_the_limit_are_refused_with_a_hint():
    """R7.4, R7.2: leaving 9C 9D 9H unmelded counts 27 + 6 = 33 > 6, though 6 was possible."""
    with pytest.raises(KnockOverLimit) as info:
        knock(knocker_to_discard("6S"), "KH", ["2C 3C 4C", "5D 5H 5S"])
    assert "33" in str(info.value) and "best arrangement has 6" in str(info.value)


@pytest.mark.parametrize("melds,rule", [
    (["2C 3C 5D"], "R2"),                                  # not a meld
    (["2C 3C 4C", "2C 3C 4C"], "R2.3"),                    # a card in two melds
    (["5D 5H 5S KH"], "R2"),                               # KH is the discard, and not a 5
    (["9C 9D 9H 9S"], "R2"),                               # 9S is not in the hand: set of 4 fine, card missing
])
@pytest.mark.rule("R2.3", "R7.4")
def test_r2_invalid_knock_melds_are_refused(melds, rule):
    """R2, R2.3, R7.4: melds attached to a knock must be valid, disjoint and from the ten kept."""
    state = knocker_to_discard("6S")
    with pytest.raises(InvalidMeld) as info:
        knock(state, "KH", melds)
    assert info.value.code == "invalid_meld"
    assert info.value.rule in (rule, "R7.4")


@pytest.mark.rule("R7.4")
def test_r7_4_meld_with_the_discarded_card_is_refused():
    """R7.4: the discard is not among the ten cards laid out."""
    state = knocker_to_discard("KS", upcard="JD", stock_top="QC")
    with pytest.raises(InvalidMeld) as info:
        knock(state, "9C", ["9D 9H 9C"])
    assert info.value.rule == "R7.4"


@pytest.mark.rule("R9.3", "R7.6", "R9.1")
def test_worked_example_undercut_equal_counts_scores_ten():
    """RULES.md worked example (R9.3, R7.6, R9.1): knocker 8 (8S), opponent 8 after laying off AC
    and 5C onto 2-3-4C (or 5C onto the fives): 8D is left. Undercut: 0 + 10 = 10 to the opponent."""
    state = start(f"{MELDED} 8S", "6H 7H 8H JS JD JC JH 5C 8D AC", "KD", "QS")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    state, _ = knock(state, "QS")
    res = state.results[-1]
    assert (res.outcome, res.winner, res.points) == ("undercut", 0, 10)
    assert res.deadwood == (8, 8)
    assert sorted(c.code for c, _ in res.lay_offs) == ["5C", "AC"]
    assert res.defender_deadwood == C("8D")
    assert state.scores == (10, 0)


@pytest.mark.rule("R9.3")
def test_r9_3_undercut_knocker_higher():
    """R9.3: knocker 8, opponent 3 after lay-offs (3D left): 8 - 3 + 10 = 15 to the opponent."""
    state = start(f"{MELDED} 8S", "6H 7H 8H JS JD JC JH 5C 3D AC", "KD", "QS")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    state, _ = knock(state, "QS")
    res = state.results[-1]
    assert (res.outcome, res.winner, res.points, res.deadwood) == ("undercut", 0, 15, (3, 8))


@pytest.mark.rule("R9.3")
def test_r9_3_undercut_bonus_option():
    state = start(f"{MELDED} 8S", "6H 7H 8H JS JD JC JH 5C 3D AC", "KD", "QS",
                  rules=RuleSet(undercut_bonus=20))
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    state, _ = knock(state, "QS")
    assert state.results[-1].points == 25


GIN = "AS 2S 3S 4S 5D 5H 5C 9C 9D 9H"


def gin_round(defender, upcard, rules=None):
    state = start(GIN, defender, upcard, "QS", rules=rules)
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    return knock(state, "QS")


@pytest.mark.rule("R7.7", "R9.4")
def test_worked_example_gin_against_23_scores_48():
    """RULES.md worked example (R7.7, R9.4): gin against 23 (5S 8D KD; 5S could extend A-4S or the
    fives but no lay-off is allowed against gin): 23 + 25 = 48."""
    state, events = gin_round("6H 7H 8H JS JD JC JH 5S 8D KD", "10S")
    res = state.results[-1]
    assert (res.outcome, res.winner, res.points) == ("gin", 1, 48)
    assert res.lay_offs == () and res.deadwood == (23, 0)
    assert events[0].data["gin"] is True


@pytest.mark.rule("R9.4")
def test_worked_example_gin_against_zero_scores_25():
    """RULES.md worked example (R9.4): gin against a fully melded hand: 0 + 25; the opponent scores
    nothing even with a zero count."""
    state, _ = gin_round("6H 7H 8H JS JD JC JH 10D 10C 10H", "KS")
    res = state.results[-1]
    assert (res.outcome, res.winner, res.points, res.deadwood) == ("gin", 1, 25, (0, 0))
    assert state.scores == (0, 25)


@pytest.mark.rule("R9.4")
def test_r9_4_gin_bonus_option():
    state, _ = gin_round("6H 7H 8H JS JD JC JH 5S 8D KD", "10S", RuleSet(gin_bonus=20))
    assert state.results[-1].points == 43


def test_spade_doubles_option_doubles_the_round():
    """House rule spade_doubles: a spade first upcard doubles the round: (23 + 25) * 2 = 96."""
    state, _ = gin_round("6H 7H 8H JS JD JC JH 5S 8D KD", "10S", RuleSet(spade_doubles=True))
    res = state.results[-1]
    assert (res.points, res.multiplier) == (96, 2)
    state, _ = gin_round("6H 7H 8H JS JD JC JH 5S 8D KD", "10S")
    assert state.results[-1].multiplier == 1


@pytest.mark.rule("R7.6", "R9.1", "R9.2")
def test_r7_6_lay_offs_in_play_lower_the_opponents_count():
    """R7.6, R9.1, R9.2: knocker 6 (6S); the opponent's 3H 7D QH 2D JC QS AC 5C 9S 4H hold no
    meld: 3+7+10+2+10+10+1+5+9+4 = 61; AC, 5C and 9S lay off (15): 46; the knocker scores 40."""
    state = knocker_to_discard("6S", defender="3H 7D QH 2D JC QS AC 5C 9S 4H", stock_top="KH")
    state, _ = knock(state, "KH")
    res = state.results[-1]
    assert sorted(c.code for c, _ in res.lay_offs) == ["5C", "9S", "AC"]
    assert res.deadwood == (46, 6) and res.points == 40


@pytest.mark.rule("R7.1", "R5.2", "R6.3")
def test_r7_1_dealer_may_knock_on_first_turn_after_taking_upcard():
    """R7.1, R5.2: the dealer takes the upcard KH after a pass and knocks at once, discarding 6S:
    KH (which may not be discarded, R6.3) is left: 10 <= 10."""
    state = start(DEF65, f"{MELDED} 6S", "KH", "QS")
    state = play(state, (1, PassUpcard()), (0, TakeUpcard()))
    state, _ = apply(state, 0, Knock(Card.parse("6S")))
    res = state.results[-1]
    assert (res.knocker, res.outcome, res.deadwood[0]) == (0, "knock", 10)


@pytest.mark.rule("R7.2")
def test_knock_listing_names_every_allowed_discard():
    """R7.2: legal knocks are one per discard whose best remaining deadwood is within the limit:
    discarding KH leaves 6 (<= 6); discarding 6S leaves 10 (> 6); breaking a meld is worse."""
    state = knocker_to_discard("6S")
    knocks = [a for a in legal_actions(state) if isinstance(a, Knock)]
    assert knocks == [Knock(Card.parse("KH"))]
    # with limit 10 (upcard JD) both KH and 6S may be discarded on a knock
    state = knocker_to_discard("6S", upcard="JD", stock_top="KH")
    knocks = sorted(a.card.code for a in legal_actions(state) if isinstance(a, Knock))
    assert knocks == ["6S", "KH"]


def test_wrong_melds_type_rejected_before_anything_changes():
    state = knocker_to_discard("6S")
    before = state.to_dict()
    with pytest.raises(IllegalAction):
        knock(state, "KH", ["2C 3C 5D"])
    assert state.to_dict() == before
