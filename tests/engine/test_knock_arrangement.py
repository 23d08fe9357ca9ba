"""The knock's default arrangement (RULES.md, note to R7.4): among the least-deadwood arrangements,
the one whose melds would take the fewest expected lay-offs (R7.6) from cards the defender may hold,
as far as the knocker knows (a card it took from the discard pile surely, an unseen card with an
equal chance); ties by points. Every figure below is worked out by hand."""
import pytest

from games.engine import (Card, DrawStock, Discard, Knock, PassUpcard, RuleSet, TakeUpcard, apply, best_arrangement,
                          knock_arrangement)

from .support import C, play, start

GRID = "AS 5S 6S 7S 5C 6C 7C 5D 6D 7D"  # three runs or three sets of 5, 6, 7; AS deadwood (1)
SETS = {C("5C 5D 5S"), C("6C 6D 6S"), C("7C 7D 7S")}
RUNS = {C("5C 6C 7C"), C("5D 6D 7D"), C("5S 6S 7S")}


def melds_of(arrangement):
    return set(arrangement.melds)


def test_issue_16_example_r7_4_knocks_with_three_sets():
    """Issue 16: knocker (non-dealer) AS 5-6-7 of spades, clubs and diamonds; upcard KH, both pass,
    it draws QC and knocks discarding it. Defender 3S 4S 8S 4C 8C 4D 8D 5H 6H 7H.
    Three runs would take lay-offs 3S 4S 8S 4C 8C 4D 8D (every run end chained), three sets only
    5H 6H 7H (the fourth 5, 6 and 7). The engine lays three sets: the defender melds 4S 4C 4D,
    8S 8C 8D and 5-6-7 of hearts (or lays the hearts off), 3S (3) left; the knocker scores
    3 - 1 = 2 (R9.2). (Three runs: 3S laid off too, deadwood 0, undercut 1 - 0 + 10 = 11, R9.3.)"""
    state = start(GRID, "3S 4S 8S 4C 8C 4D 8D 5H 6H 7H", "KH", "QC")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    state, _ = apply(state, 1, Knock(Card.parse("QC")))
    res = state.results[-1]
    assert set(res.knocker_melds) == SETS
    assert res.knocker_deadwood == C("AS")
    assert (res.outcome, res.winner, res.points) == ("knock", 1, 2)
    assert res.deadwood == (3, 1)
    # the same hand laid as three runs, explicitly, is the undercut of the issue
    state = start(GRID, "3S 4S 8S 4C 8C 4D 8D 5H 6H 7H", "KH", "QC")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    state, _ = apply(state, 1, Knock(Card.parse("QC"), tuple(sorted(RUNS))))
    res = state.results[-1]
    assert (res.outcome, res.winner, res.points) == ("undercut", 0, 11)
    assert len(res.lay_offs) == 7


def test_the_first_least_deadwood_arrangement_was_the_runs():
    """Without the note's rule the hand is laid as three runs: the choice is really made."""
    assert melds_of(best_arrangement(C(GRID))) == RUNS


@pytest.mark.parametrize("dead,expected", [
    ("QC KH", SETS),                           # runs reach many live cards, sets 5H 6H 7H (3 cards)
    ("QC KH 4S 8S 4C 8C 4D 8D", RUNS),         # every run end is dead: runs take 0 lay-offs, sets 3
    ("QC KH 4S 8S 4C 8C 3D 9D 5H 6H", SETS),   # runs 4D and 8D (3D, 9D dead end the chains), sets 7H
])
def test_fewest_live_cards_that_could_be_laid_off(dead, expected):
    assert melds_of(knock_arrangement(C(GRID), out_of_play=C(dead))) == expected


def test_a_card_the_defender_took_counts_as_held():
    """Same dead cards as above (runs reach 4D and 8D, sets only 7H), but the defender took 7H from
    the discard pile and kept it: a sure lay-off (1) against 2 unseen cards, each in its hand with
    chance 9/31 (52 - 10 own - 10 out of play - 7H = 31 unseen, 9 of its cards unknown): 0.58 < 1,
    three runs."""
    dead = C("QC KH 4S 8S 4C 8C 3D 9D 5H 6H")
    assert melds_of(knock_arrangement(C(GRID), out_of_play=dead, defender_known=C("7H"))) == RUNS
    assert melds_of(knock_arrangement(C(GRID), out_of_play=dead)) == SETS


@pytest.mark.parametrize("dead,expected", [
    ("QC KH 4S 8S 4C 8C 3D 8D 5H 6H", RUNS),   # one card each: runs 4D (4 points) < sets 7H (7)
    ("QC KH 4S 8S 4C 8C 4D 9D 6H 7H", SETS),   # one card each: sets 5H (5) < runs 8D (8)
])
def test_ties_on_cards_go_to_the_fewest_points(dead, expected):
    assert melds_of(knock_arrangement(C(GRID), out_of_play=C(dead))) == expected


def test_through_apply_a_card_the_defender_took_is_known():
    """Classic (limit 10). Knocker (non-dealer, seat 1) 2S 2D 2H AH 3H 9C 10C JC QC KC: 4 deadwood
    either as the set of 2s (leaving AH 3H) or the run A-2-3 of hearts (leaving 2S 2D). Upcard 2C:
    the knocker passes, the dealer takes 2C and discards 5H (R5.2); the knocker draws KD and knocks
    discarding it. The set of 2s would surely take 2C (the defender holds it, R7.6); the heart run
    reaches only 4H (5H is dead), unseen; the club run is in both (it reaches 2C only through
    3C..8C, all unseen). So the heart run: the defender's 4S 4D 4C and 8S 8D 8H leave
    2C 3C JS QD = 25, nothing lays off (4H and 8C not held): 25 - 4 = 21 (R9.2). (The set would
    have taken 2C: 23 - 4 = 19.)"""
    state = start("2S 2D 2H AH 3H 9C 10C JC QC KC", "5H 4S 4D 8S 8D 8H 3C 4C JS QD", "2C", "KD",
                  rules=RuleSet(variant="classic"))
    state = play(state, (1, PassUpcard()), (0, TakeUpcard()), (0, Discard(Card.parse("5H"))), (1, DrawStock()))
    state, _ = apply(state, 1, Knock(Card.parse("KD")))
    res = state.results[-1]
    assert C("AH 2H 3H") in res.knocker_melds and res.knocker_deadwood == C("2D 2S")
    assert (res.outcome, res.points, res.lay_offs) == ("knock", 21, ())
