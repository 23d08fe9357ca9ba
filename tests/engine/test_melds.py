"""Melds, deadwood, best arrangement and best knock (R2, R7.2), with values worked out by hand."""
import pytest

from games.engine import (Card, InvalidMeld, best_arrangement, best_knock, can_knock, is_run, is_set,
                          meld_kind, min_deadwood, validate_meld)

from .support import C


def codes(cards):
    return sorted(c.code for c in cards)


def meld_codes(arr):
    return sorted(sorted(c.code for c in m) for m in arr.melds)


@pytest.mark.parametrize("text", ["7C 7D 7H", "7C 7D 7H 7S", "KS KH KD"])
def test_r2_1_sets_of_three_or_four(text):
    """R2.1: 3 or 4 cards of the same rank form a set."""
    assert meld_kind(C(text)) == "set" and is_set(C(text))
    assert validate_meld(C(text)) == "set"


@pytest.mark.parametrize("text", ["7C 7D", "7C 7D 8H", "7C", "7C 7C 7D"])
def test_r2_1_not_sets(text):
    """R2.1: two cards, mixed ranks or a repeated card are not a set."""
    assert not is_set(C(text))
    with pytest.raises(InvalidMeld) as info:
        validate_meld(C(text))
    assert info.value.code == "invalid_meld"


@pytest.mark.parametrize("text", ["AS 2S 3S", "3S AS 2S", "9H 10H JH QH KH", "JD QD KD",
                                  "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"])
def test_r2_2_runs(text):
    """R2.2: 3+ consecutive cards of one suit, ace low (A-2-3 is a run), any order given."""
    assert meld_kind(C(text)) == "run" and is_run(C(text))


@pytest.mark.parametrize("text", ["QS KS AS", "KS AS 2S", "QH KH AH 2H", "AS 2S", "AS 2S 4S", "AS 2H 3S",
                                  "5D 6D 6D", "5D 6D 7D 9D"])
def test_r2_2_not_runs_no_wrap_around(text):
    """R2.2, R1.3: Q-K-A and K-A-2 are not runs (no wrap); gaps, two cards, mixed suits are not."""
    assert meld_kind(C(text)) is None
    with pytest.raises(InvalidMeld):
        validate_meld(C(text))


def test_worked_example_best_arrangement_a234_spades():
    """RULES.md worked example (R2.4): AS 2S 3S 4S 4H 4D 9C 9H KC QD: best is run A-2-3 of spades plus
    set 4S 4H 4D, deadwood 9+9+10+10 = 38; the longer run A-2-3-4 leaves 4H 4D too: 38+4+4 = 46."""
    hand = C("AS 2S 3S 4S 4H 4D 9C 9H KC QD")
    arr = best_arrangement(hand)
    assert meld_codes(arr) == [["2S", "3S", "AS"], ["4D", "4H", "4S"]]
    assert codes(arr.deadwood) == ["9C", "9H", "KC", "QD"]
    assert arr.deadwood_count == 38 == min_deadwood(hand)
    # the alternative the example mentions, counted by hand
    alternative = [c for c in hand if c.code not in {"AS", "2S", "3S", "4S"}]
    assert sum(c.value for c in alternative) == 46


def test_r2_3_four_of_a_kind_split_between_set_and_run():
    """R2.3: 7S can sit in the run 5-6-7S while 7C 7D 7H stay a set: deadwood K Q J 9 = 39;
    the set of four would leave 5S 6S as well: 50."""
    hand = C("7C 7D 7H 7S 5S 6S KC QD JH 9C")
    arr = best_arrangement(hand)
    assert meld_codes(arr) == [["5S", "6S", "7S"], ["7C", "7D", "7H"]]
    assert arr.deadwood_count == 39


def test_r2_4_card_that_fits_a_set_or_a_run_goes_where_it_saves_most():
    """R2.4: 7H in the set 7H 7C 7D leaves 5H 6H (11); in the run 5-6-7H it leaves 7C 7D (14).
    With K Q 9 2 3 also dead: 11+34 = 45."""
    hand = C("5H 6H 7H 7C 7D KS QC 9D 2C 3D")
    arr = best_arrangement(hand)
    assert meld_codes(arr) == [["7C", "7D", "7H"]]
    assert arr.deadwood_count == 45


def test_r2_4_long_run_broken_to_make_a_set():
    """R2.4: 4H-5H-6H-7H plus 7C 7D: the run 4-5-6 and the set of sevens meld everything."""
    hand = C("4H 5H 6H 7H 7C 7D KS QC 9D 2C")
    arr = best_arrangement(hand)
    assert meld_codes(arr) == [["4H", "5H", "6H"], ["7C", "7D", "7H"]]
    assert arr.deadwood_count == 10 + 10 + 9 + 2


def test_r2_2_ace_low_runs_and_no_wrap_in_arrangements():
    """R2.2: QH KH AH 2H holds no run: deadwood 10+10+1+2 = 23; add JH and J-Q-K is a run: 1+2 = 3."""
    assert min_deadwood(C("QH KH AH 2H")) == 23
    assert min_deadwood(C("JH QH KH AH 2H")) == 3
    assert min_deadwood(C("AH 2H 3H KH")) == 10
    assert min_deadwood(C("KC AC 2C QD KD AD")) == 10 + 1 + 2 + 10 + 10 + 1


def test_r2_4_gin_hand_and_all_deadwood_hand():
    """R2.4: a fully melded hand has deadwood 0; a hand with no meld counts every card."""
    assert min_deadwood(C("AS 2S 3S 4S 4H 4D 4C 9C 9H 9D")) == 0
    hand = C("AC 3D 5H 7S 9C JD KH 2S 4C 6D")
    assert min_deadwood(hand) == 1 + 3 + 5 + 7 + 9 + 10 + 10 + 2 + 4 + 6
    assert best_arrangement(hand).melds == ()


def test_best_arrangement_json():
    arr = best_arrangement(C("AS 2S 3S KD"))
    assert arr.to_dict() == {"melds": [["AS", "2S", "3S"]], "deadwood": ["KD"], "deadwood_count": 10}


def test_r7_2_best_knock_discards_the_costliest_deadwood():
    """R7.2: 2-3-4C, 5D 5H 5S, 9C 9D 9H melded, KS and 2D loose: discard KS, 2 left."""
    hand = C("2C 3C 4C 5D 5H 5S 9C 9D 9H KS 2D")
    option = best_knock(hand)
    assert option.discard == Card.parse("KS")
    assert option.deadwood_count == 2
    assert can_knock(hand, 2) and not can_knock(hand, 1)


def test_r6_3_best_knock_respects_the_forbidden_card():
    """R6.3: when KS was just taken from the discard pile it may not be the knock's discard: the best
    is then to discard 2D and keep KS as deadwood: 10."""
    hand = C("2C 3C 4C 5D 5H 5S 9C 9D 9H KS 2D")
    option = best_knock(hand, forbidden=Card.parse("KS"))
    assert option.discard == Card.parse("2D")
    assert option.deadwood_count == 10
    assert not can_knock(hand, 9, forbidden=Card.parse("KS"))
    assert can_knock(hand, 10, forbidden=Card.parse("KS"))


def test_r7_7_best_knock_finds_gin_by_breaking_a_long_run():
    """R7.7: 11 cards all melded with a four-card run: discarding its end card leaves gin."""
    hand = C("AS 2S 3S 4S 7H 7D 7C 9C 10C JC QC")
    option = best_knock(hand)
    assert option.deadwood_count == 0
    assert option.discard in C("AS 4S 9C QC")


def test_best_knock_of_hand_with_no_melds():
    """R7.2: no melds: discard a ten-count card; the rest is all deadwood."""
    hand = C("AC 3D 5H 7S 9C JD KH 2S 4C 6D 8H")
    option = best_knock(hand)
    assert option.discard.value == 10
    assert option.deadwood_count == sum(c.value for c in hand) - 10
