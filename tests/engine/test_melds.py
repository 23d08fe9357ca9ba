"""Melds, deadwood, best arrangement and best knock (R2, R7.2), with values worked out by hand."""
import pytest

from games.engine import (BadArgument, Card, InvalidMeld, best_arrangement, best_defence, best_knock, can_knock,
                          cards_mask, is_run, is_set, knock_arrangement, meld_kind, min_deadwood, validate_meld)
from games.engine.melds import FULL_MASK, mask_layoff_exposure

from .support import C


def codes(cards):
    return sorted(c.code for c in cards)


def meld_codes(arr):
    return sorted(sorted(c.code for c in m) for m in arr.melds)


@pytest.mark.parametrize("text", ["7C 7D 7H", "7C 7D 7H 7S", "KS KH KD"])
@pytest.mark.rule("R2.1")
def test_r2_1_sets_of_three_or_four(text):
    """R2.1: 3 or 4 cards of the same rank form a set."""
    assert meld_kind(C(text)) == "set" and is_set(C(text))
    assert validate_meld(C(text)) == "set"


@pytest.mark.parametrize("text", ["7C 7D", "7C 7D 8H", "7C", "7C 7C 7D"])
@pytest.mark.rule("R2.1")
def test_r2_1_not_sets(text):
    """R2.1: two cards, mixed ranks or a repeated card are not a set."""
    assert not is_set(C(text))
    with pytest.raises(InvalidMeld) as info:
        validate_meld(C(text))
    assert info.value.code == "invalid_meld"


@pytest.mark.parametrize("text", ["AS 2S 3S", "3S AS 2S", "9H 10H JH QH KH", "JD QD KD",
                                  "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"])
@pytest.mark.rule("R2.2")
def test_r2_2_runs(text):
    """R2.2: 3+ consecutive cards of one suit, ace low (A-2-3 is a run), any order given."""
    assert meld_kind(C(text)) == "run" and is_run(C(text))


@pytest.mark.parametrize("text", ["QS KS AS", "KS AS 2S", "QH KH AH 2H", "AS 2S", "AS 2S 4S", "AS 2H 3S",
                                  "5D 6D 6D", "5D 6D 7D 9D"])
@pytest.mark.rule("R2.2", "R1.3")
def test_r2_2_not_runs_no_wrap_around(text):
    """R2.2, R1.3: Q-K-A and K-A-2 are not runs (no wrap); gaps, two cards, mixed suits are not."""
    assert meld_kind(C(text)) is None
    with pytest.raises(InvalidMeld):
        validate_meld(C(text))


@pytest.mark.rule("R2.4")
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


@pytest.mark.rule("R2.3")
def test_r2_3_four_of_a_kind_split_between_set_and_run():
    """R2.3: 7S can sit in the run 5-6-7S while 7C 7D 7H stay a set: deadwood K Q J 9 = 39;
    the set of four would leave 5S 6S as well: 50."""
    hand = C("7C 7D 7H 7S 5S 6S KC QD JH 9C")
    arr = best_arrangement(hand)
    assert meld_codes(arr) == [["5S", "6S", "7S"], ["7C", "7D", "7H"]]
    assert arr.deadwood_count == 39


@pytest.mark.rule("R2.4")
def test_r2_4_card_that_fits_a_set_or_a_run_goes_where_it_saves_most():
    """R2.4: 7H in the set 7H 7C 7D leaves 5H 6H (11); in the run 5-6-7H it leaves 7C 7D (14).
    With K Q 9 2 3 also dead: 11+34 = 45."""
    hand = C("5H 6H 7H 7C 7D KS QC 9D 2C 3D")
    arr = best_arrangement(hand)
    assert meld_codes(arr) == [["7C", "7D", "7H"]]
    assert arr.deadwood_count == 45


@pytest.mark.rule("R2.4")
def test_r2_4_long_run_broken_to_make_a_set():
    """R2.4: 4H-5H-6H-7H plus 7C 7D: the run 4-5-6 and the set of sevens meld everything."""
    hand = C("4H 5H 6H 7H 7C 7D KS QC 9D 2C")
    arr = best_arrangement(hand)
    assert meld_codes(arr) == [["4H", "5H", "6H"], ["7C", "7D", "7H"]]
    assert arr.deadwood_count == 10 + 10 + 9 + 2


@pytest.mark.rule("R2.2")
def test_r2_2_ace_low_runs_and_no_wrap_in_arrangements():
    """R2.2: QH KH AH 2H holds no run: deadwood 10+10+1+2 = 23; add JH and J-Q-K is a run: 1+2 = 3."""
    assert min_deadwood(C("QH KH AH 2H")) == 23
    assert min_deadwood(C("JH QH KH AH 2H")) == 3
    assert min_deadwood(C("AH 2H 3H KH")) == 10
    assert min_deadwood(C("KC AC 2C QD KD AD")) == 10 + 1 + 2 + 10 + 10 + 1


@pytest.mark.rule("R2.4")
def test_r2_4_gin_hand_and_all_deadwood_hand():
    """R2.4: a fully melded hand has deadwood 0; a hand with no meld counts every card."""
    assert min_deadwood(C("AS 2S 3S 4S 4H 4D 4C 9C 9H 9D")) == 0
    hand = C("AC 3D 5H 7S 9C JD KH 2S 4C 6D")
    assert min_deadwood(hand) == 1 + 3 + 5 + 7 + 9 + 10 + 10 + 2 + 4 + 6
    assert best_arrangement(hand).melds == ()


def test_best_arrangement_json():
    arr = best_arrangement(C("AS 2S 3S KD"))
    assert arr.to_dict() == {"melds": [["AS", "2S", "3S"]], "deadwood": ["KD"], "deadwood_count": 10}


@pytest.mark.rule("R7.2")
def test_r7_2_best_knock_discards_the_costliest_deadwood():
    """R7.2: 2-3-4C, 5D 5H 5S, 9C 9D 9H melded, KS and 2D loose: discard KS, 2 left."""
    hand = C("2C 3C 4C 5D 5H 5S 9C 9D 9H KS 2D")
    option = best_knock(hand)
    assert option.discard == Card.parse("KS")
    assert option.deadwood_count == 2
    assert can_knock(hand, 2) and not can_knock(hand, 1)


@pytest.mark.rule("R6.3")
def test_r6_3_best_knock_respects_the_forbidden_card():
    """R6.3: when KS was just taken from the discard pile it may not be the knock's discard: the best
    is then to discard 2D and keep KS as deadwood: 10."""
    hand = C("2C 3C 4C 5D 5H 5S 9C 9D 9H KS 2D")
    option = best_knock(hand, forbidden=Card.parse("KS"))
    assert option.discard == Card.parse("2D")
    assert option.deadwood_count == 10
    assert not can_knock(hand, 9, forbidden=Card.parse("KS"))
    assert can_knock(hand, 10, forbidden=Card.parse("KS"))


@pytest.mark.rule("R7.7")
def test_r7_7_best_knock_finds_gin_by_breaking_a_long_run():
    """R7.7: 11 cards all melded with a four-card run: discarding its end card leaves gin."""
    hand = C("AS 2S 3S 4S 7H 7D 7C 9C 10C JC QC")
    option = best_knock(hand)
    assert option.deadwood_count == 0
    assert option.discard in C("AS 4S 9C QC")


@pytest.mark.rule("R7.2")
def test_best_knock_of_hand_with_no_melds():
    """R7.2: no melds: discard a ten-count card; the rest is all deadwood."""
    hand = C("AC 3D 5H 7S 9C JD KH 2S 4C 6D 8H")
    option = best_knock(hand)
    assert option.discard.value == 10
    assert option.deadwood_count == sum(c.value for c in hand) - 10


# Killing surviving mutants (docs/mutation.md): values worked out by hand.

@pytest.mark.rule("R7.2")
@pytest.mark.parametrize("loose", ["AC", "2C"])
def test_r7_2_best_knock_may_discard_the_lowest_cards(loose):
    """R7.2: AC (index 0) or 2C (index 1) is the only card outside the melds 2-3-4H, 5-6-7S and
    9C 9D 9S 9H: discarding it leaves gin (0). Discarding one of the 9s instead leaves it as deadwood."""
    hand = C(f"{loose} 2H 3H 4H 5S 6S 7S 9C 9D 9S 9H")
    option = best_knock(hand)
    assert option.discard == Card.parse(loose) and option.deadwood_count == 0
    assert can_knock(hand, 0) is True
    # Forbidding that discard (R6.3) leaves the next best: a 9 out, the loose card counts.
    forbidden = best_knock(hand, forbidden=Card.parse(loose))
    assert forbidden.discard.rank == 9 and forbidden.deadwood_count == Card.parse(loose).value
    assert can_knock(hand, 0, forbidden=Card.parse(loose)) is False


def test_engine_boundary_messages_quote_the_bad_argument():
    hand = C("AC 2H 3H 4H 5S 6S 7S 9C 9D 9S 9H")
    with pytest.raises(BadArgument, match="forbidden must be a Card or None, got 'AC'"):
        best_knock(hand, forbidden="AC")
    for limit in (True, "10", 1.5):
        with pytest.raises(BadArgument, match=f"knock_limit must be a whole number of points, got {limit!r}"):
            can_knock(hand, limit)


def _mask(text):
    return cards_mask(C(text))


@pytest.mark.rule("R7.6")
def test_r7_6_layoff_exposure_of_runs_and_a_set_by_hand():
    """The expected lay-offs onto the knocker's melds (RULES.md, note to R7.4), each unseen card
    held with chance 1/2. Set 9C 9D 9S: its 9H, 1/2. Run 5-6-7H: up 8H 1/2, 9H 1/4 (needs 8H too),
    10H 1/8, JH 1/16, QH 1/32, KH 1/64; down 4H 1/2, 3H 1/4, 2H 1/8, AH 1/16. 9H fits both: it
    counts once, with the larger chance 1/2. Run J-Q-K of spades: nothing above the king, down
    10S 1/2, 9S is in the set (not live), so the run stops there.
    Cards: 1/2 + (1/2+1/8+1/16+1/32+1/64) + (1/2+1/4+1/8+1/16) + 1/2 = 2.671875 (the 9H counted
    once). Points: 9/2 + (8/2 + 10/8 + 10/16 + 10/32 + 10/64) + (4/2 + 3/4 + 2/8 + 1/16) + 10/2
    = 4.5 + 6.34375 + 3.0625 + 5 = 18.90625."""
    melds = [_mask("9C 9D 9S"), _mask("5H 6H 7H"), _mask("JS QS KS")]
    hand = melds[0] | melds[1] | melds[2]
    live = FULL_MASK & ~hand
    assert mask_layoff_exposure(melds, live, 0, 0.5) == (2.671875, 18.90625)
    # Known cards count surely: the defender took 8H, so 9H along the run is as likely as the set's.
    cards, points = mask_layoff_exposure([_mask("5H 6H 7H")], live, _mask("8H"), 0.5)
    assert (cards, points) == (1 + 0.5 + 0.25 + 0.125 + 0.0625 + 0.03125 + 0.5 + 0.25 + 0.125 + 0.0625,
                               8 + 4.5 + 2.5 + 1.25 + 0.625 + 0.3125 + 2 + 0.75 + 0.25 + 0.0625)


def test_engine_boundary_names_the_argument_and_limits_a_hand_to_11_cards():
    twelve = C("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC")
    for call in (lambda: best_knock(twelve), lambda: can_knock(twelve, 10), lambda: knock_arrangement(twelve)):
        with pytest.raises(BadArgument, match="^a hand may hold at most 11 cards, got 12$"):
            call()
    ten = C("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C")
    with pytest.raises(BadArgument, match="^out_of_play must hold Card values"):
        knock_arrangement(ten, out_of_play=["KD"])
    with pytest.raises(BadArgument, match="^defender_known must hold Card values"):
        knock_arrangement(ten, defender_known=["KD"])
    with pytest.raises(BadArgument, match="forbidden must be a Card or None, got 'KD'"):
        can_knock(ten, 10, forbidden="KD")


@pytest.mark.rule("R7.6")
def test_r7_6_lay_offs_run_up_to_the_king():
    """R7.6: onto 9-10-J of spades the defender lays QS, then KS (the top of the suit, R1.3: no
    wrap to the ace). Their other cards AD 3C 5H 7D 8C 2H 4D 6C: 1+3+5+7+8+2+4+6 = 36."""
    d = best_defence([C("9S 10S JS")], C("QS KS AD 3C 5H 7D 8C 2H 4D 6C"))
    assert [(c.code, k) for c, k in d.lay_offs] == [("QS", 0), ("KS", 0)]
    assert d.deadwood_count == 36


def test_layoff_exposure_of_a_set_whose_fourth_card_the_defender_took():
    """The defender was seen taking 9H: the set 9C 9D 9S is exposed to it surely (1 card, 9
    points), whatever the chance of unseen cards."""
    hand = _mask("9C 9D 9S")
    assert mask_layoff_exposure([hand], FULL_MASK & ~hand, _mask("9H"), 0.25) == (1.0, 9.0)
    assert mask_layoff_exposure([hand], FULL_MASK & ~hand, 0, 0.25) == (0.25, 2.25)
