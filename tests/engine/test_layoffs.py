"""Lay-offs (R7.6) and the defender's best outcome, worked out by hand; no lay-offs after gin (R9.4)."""
import pytest

from games.engine import Card, DrawStock, Knock, PassUpcard, best_defence

from .support import C, play, start


def laid(defence):
    return sorted(c.code for c, _ in defence.lay_offs)


def assert_valid_order(knocker_melds, defence):
    """Each lay-off, in the order given, fits the meld as grown so far (R7.6)."""
    grown = [list(m) for m in knocker_melds]
    for card, k in defence.lay_offs:
        meld = grown[k]
        if len({c.rank for c in meld}) == 1:
            assert len(meld) == 3 and card.rank == meld[0].rank
        else:
            ranks = [c.rank for c in meld]
            assert card.suit == meld[0].suit and card.rank in (min(ranks) - 1, max(ranks) + 1)
        meld.append(card)


@pytest.mark.rule("R7.6")
def test_r7_6_run_extended_at_both_ends_in_a_chain():
    """R7.6: onto 5-6-7 of hearts the defender lays 8H, then 9H, then 4H. Their other cards
    KC QD JS 2C 3D 9S 6C hold no meld: 10+10+10+2+3+9+6 = 50 left of 71."""
    knocker = [C("5H 6H 7H")]
    defender = C("4H 8H 9H KC QD JS 2C 3D 9S 6C")
    d = best_defence(knocker, defender)
    assert laid(d) == ["4H", "8H", "9H"]
    assert d.deadwood_count == 50
    assert sorted(c.code for c in d.deadwood) == sorted("KC QD JS 2C 3D 9S 6C".split())
    assert_valid_order(knocker, d)
    assert d.melds == ()


@pytest.mark.rule("R7.6")
def test_r7_6_gap_stops_the_chain():
    """R7.6: 8H fits 5-6-7H, 10H does not (9H missing), 3H does not (4H missing)."""
    knocker = [C("5H 6H 7H")]
    defender = C("3H 8H 10H KC QD JS 2C 3D 9S 6C")
    d = best_defence(knocker, defender)
    assert laid(d) == ["8H"]
    assert d.deadwood_count == 3 + 10 + 10 + 10 + 10 + 2 + 3 + 9 + 6


@pytest.mark.rule("R7.6")
def test_r7_6_fourth_card_onto_a_set():
    """R7.6: KS goes onto KC KD KH; nothing goes onto a set of four."""
    d = best_defence([C("KC KD KH")], C("KS 2C 4D 6H 8S 10C QD AH 3S 5C"))
    assert laid(d) == ["KS"]
    assert d.deadwood_count == 2 + 4 + 6 + 8 + 10 + 10 + 1 + 3 + 5
    d4 = best_defence([C("QC QD QH QS")], C("KS 2C 4D 6H 8S 10C JD AH 3S 5C"))
    assert d4.lay_offs == ()


@pytest.mark.rule("R7.6")
def test_r7_6_breaking_own_meld_to_lay_off_is_better():
    """R7.6: the defender's 8C 8D 8S 8H could be a set of four, leaving 9H dead (9). Keeping
    8C 8D 8S as a set and laying off 8H then 9H onto 5-6-7H leaves nothing of those: better.
    Other cards 2C 4D KS JC QD: 2+4+10+10+10 = 36."""
    knocker = [C("5H 6H 7H")]
    defender = C("8C 8D 8S 8H 9H 2C 4D KS JC QD")
    d = best_defence(knocker, defender)
    assert laid(d) == ["8H", "9H"]
    assert [sorted(c.code for c in m) for m in d.melds] == [["8C", "8D", "8S"]]
    assert d.deadwood_count == 36
    assert_valid_order(knocker, d)


@pytest.mark.rule("R7.6")
def test_r7_6_defender_keeps_own_meld_when_better():
    """R7.6: 8C 8D 8H set vs laying off 8H, 9H: the set leaves 9H (9), laying off leaves 8C 8D (16)."""
    knocker = [C("5H 6H 7H")]
    d = best_defence(knocker, C("8C 8D 8H 9H 2C 4D KS JC QD AS"))
    assert laid(d) == []
    assert d.deadwood_count == 9 + 2 + 4 + 10 + 10 + 10 + 1


@pytest.mark.rule("R7.6")
def test_worked_example_both_lay_off_onto_the_knockers_run():
    """RULES.md worked example (R7.6): knocker 7-8-9H, K-K-K, 2-3-4C, deadwood 5D; the opponent's
    unmatched 10H and 6H both extend the run. The opponent's ten: 10H 6H QS QD JC 3S 5S 2D AS 4D
    (no meld of their own): deadwood 10+6+10+10+10+3+5+2+1+4 = 61 before, 61-16 = 45 after."""
    knocker = [C("7H 8H 9H"), C("KC KD KS"), C("2C 3C 4C")]
    defender = C("10H 6H QS QD JC 3S 5S 2D AS 4D")
    before = sum(c.value for c in defender)
    assert before == 61
    d = best_defence(knocker, defender)
    assert laid(d) == ["10H", "6H"]
    assert all(k == 0 for _, k in d.lay_offs)
    assert d.deadwood_count == 45
    assert_valid_order(knocker, d)


@pytest.mark.rule("R7.6")
def test_r7_6_lay_offs_onto_several_melds_and_set_or_run_choice():
    """R7.6: 7H fits the run 4-5-6H and the set 7C 7D 7S; either way it is laid off, and 8H chains
    only if 7H went to the run: so both go: 7H then 8H onto the run."""
    knocker = [C("4H 5H 6H"), C("7C 7D 7S")]
    d = best_defence(knocker, C("7H 8H KC QC JD 2S 3D AC 9S 10D"))
    assert laid(d) == ["7H", "8H"]
    assert_valid_order(knocker, d)
    assert d.deadwood_count == 10 + 10 + 10 + 2 + 3 + 1 + 9 + 10


@pytest.mark.rule("R9.4")
def test_r9_4_no_lay_offs_after_gin():
    """R9.4: against gin the defender cannot lay off: 8H stays deadwood."""
    knocker = [C("5H 6H 7H")]
    defender = C("4H 8H 9H KC QD JS 2C 3D 9S 6C")
    d = best_defence(knocker, defender, allow_lay_offs=False)
    assert d.lay_offs == ()
    assert d.deadwood_count == 71


@pytest.mark.rule("R7.6", "R2.2")
def test_r7_6_ace_low_run_cannot_be_extended_below_ace_or_past_king():
    """R7.6, R2.2: nothing goes below A-2-3 or above J-Q-K (no wrap)."""
    d = best_defence([C("AS 2S 3S"), C("JD QD KD")], C("KS AD 4S 10D 2C 6H 8C 9H 5C 7D"))
    assert laid(d) == ["10D", "4S"]
    assert Card.parse("KS") in d.deadwood and Card.parse("AD") in d.deadwood


@pytest.mark.rule("R7.6")
def test_r7_6_chain_extending_a_run_downwards():
    """R7.6: onto 7-8-9 of hearts the defender lays 6H, and only then 5H (5H alone does not touch
    the run). 6H 5H are no meld of their own; the other cards KC QD JS 2C 3D 9S 8C AD hold none
    either: 10+10+10+2+3+9+8+1 = 53 left of 64."""
    knocker = [C("7H 8H 9H")]
    defender = C("5H 6H KC QD JS 2C 3D 9S 8C AD")
    assert sum(c.value for c in defender) == 64
    d = best_defence(knocker, defender)
    assert [(c.code, k) for c, k in d.lay_offs] == [("6H", 0), ("5H", 0)]
    assert d.deadwood_count == 53 and d.melds == ()
    # Without 6H the chain cannot start: 5H stays deadwood (R7.6 extends at either end only).
    d = best_defence(knocker, C("5H 4S KC QD JS 2C 3D 9S 8C AD"))
    assert d.lay_offs == () and d.deadwood_count == 5 + 4 + 53


@pytest.mark.rule("R7.6", "R9.1", "R9.2")
def test_r7_6_downward_chain_in_a_scored_round():
    """R7.6, R9.1, R9.2 in a played round. Dealer seat 0; seat 1 (non-dealer) holds 7-8-9H, KC KD KS,
    2-3-4C and 5D; seat 0 holds 6H 5H QS QD JC 3S 8S 2D AS 4D (no meld: 59). Upcard 10S (knock
    limit 10, R4.4). Both pass, seat 1 draws QC and knocks discarding it: deadwood 5D = 5. Seat 0
    lays off 6H then 5H onto the hearts run: 59 - 11 = 48. Seat 1 scores 48 - 5 = 43."""
    state = start("7H 8H 9H KC KD KS 2C 3C 4C 5D", "6H 5H QS QD JC 3S 8S 2D AS 4D", "10S", "QC")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Knock(Card.parse("QC"))))
    res = state.results[-1]
    assert (res.outcome, res.knocker, res.winner, res.points) == ("knock", 1, 1, 43)
    assert [(c.code, sorted(x.code for x in res.knocker_melds[k])) for c, k in res.lay_offs] == [
        ("6H", ["7H", "8H", "9H"]), ("5H", ["7H", "8H", "9H"])]
    assert res.deadwood == (48, 5)  # seat 0's after laying off, seat 1's
    assert sorted(c.code for c in res.defender_deadwood) == sorted("QS QD JC 3S 8S 2D AS 4D".split())
    assert state.scores == (0, 43)
