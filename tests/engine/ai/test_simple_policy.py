"""The ``simple`` level on hand-built views: the OpenSpiel simple_gin_rummy_bot baseline (issue 5).

Every expected action is worked out by hand from the rules (R2, R4.4, R5, R6, R7) in the comments.
"""
from __future__ import annotations

from games.engine import (Discard, DrawDiscard, DrawStock, Knock, PassUpcard, TakeUpcard, player_view)
from games.engine.ai import SimplePolicy
from tests.engine.support import C, play, start

# dealer_seat=0 throughout: seat 1 is the non-dealer and acts first (R5.1).
OTHER = "2H 3H JS 5S 6S 8C 9S 10D JD 3S"  # the dealer's hand


def view1(state):
    return player_view(state, 1)


def test_takes_upcard_that_completes_a_run():
    # 7H 8H in hand, upcard 9H: 7-8-9 of hearts is a run (R2.2) -> take it (R5.1).
    s = start("7H 8H AC 4C 6C JC QC KD QD 5D", OTHER, "9H")
    assert SimplePolicy().choose(view1(s)) == TakeUpcard()


def test_takes_upcard_that_joins_a_set():
    # 5C 5D in hand, upcard 5H: a set of three fives (R2.1).
    s = start("5C 5D AC 7C 9D JC QC KD QD 7H", OTHER, "5H")
    assert SimplePolicy().choose(view1(s)) == TakeUpcard()


def test_passes_upcard_that_melds_with_nothing():
    # Upcard KS: no other king, no QS/JS in hand; deadwood stays far above the limit of 10.
    s = start("7H 8H AC 4C 6C JC QC KD QD 5D", OTHER, "KS")
    assert SimplePolicy().choose(view1(s)) == PassUpcard()


def test_takes_upcard_that_allows_an_immediate_knock():
    # Three runs (A-2-3 C, 4-5-6 D, 7-8-9 H) plus QC: deadwood 10. Upcard KS (limit 10, R4.4) melds
    # with nothing, but after taking it the hand may discard QC (KS itself is barred, R6.3) and
    # knock with 0 deadwood -> the baseline takes it.
    s = start("AC 2C 3C 4D 5D 6D 7H 8H 9H QC", OTHER, "KS")
    assert SimplePolicy().choose(view1(s)) == TakeUpcard()
    # Same hand but JC QC in place of 9H QC: 7H 8H break up, deadwood 35 -> no knock -> pass.
    s = start("AC 2C 3C 4D 5D 6D 7H 8H JC QC", OTHER, "KS")
    assert SimplePolicy().choose(view1(s)) == PassUpcard()


def test_draws_discard_only_when_it_melds():
    # Both pass the upcard (R5.4); seat 1 draws 2S from the stock and discards QD; the dealer (seat 0)
    # then chooses between the stock and QD. Dealer hand holds QC QH: QD makes a set -> draw_discard.
    s = start("AC 4C 6C 7C 9D JC KD 2D 5D 7H", "QC QH 2H 3H 4D 5S 6S 8C 9C 10D", "KS", "2S")
    s = play(s, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Discard(C("KD")[0])))
    # KD on top: the dealer holds no king, and 10D with KD is no run (JD, QD missing) -> stock.
    assert SimplePolicy().choose(player_view(s, 0)) == DrawStock()
    s = start("AC 4C 6C 7C 9D JC QD 2D 5D 7H", "QC QH 2H 3H 4D 5S 6S 8C 9C 10D", "KS", "2S")
    s = play(s, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Discard(C("QD")[0])))
    assert SimplePolicy().choose(player_view(s, 0)) == DrawDiscard()


def test_discards_highest_value_among_least_deadwood_discards():
    # Both pass; seat 1 draws 2S and holds 11 cards. Melds: 9-10-J of hearts. Deadwood:
    # AC 4C 6C 2D 5D KD QC 2S. Throwing KD or QC leaves the least deadwood (30 points either way);
    # both are worth 10, the king outranks the queen -> discard KD.
    s = start("9H 10H JH AC 4C 6C 2D 5D KD QC", OTHER, "7S", "2S")
    s = play(s, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    v = view1(s)
    assert len(v.hand) == 11
    assert SimplePolicy().choose(v) == Discard(C("KD")[0])


def test_never_discards_a_melded_high_card():
    # Set of kings KS KH KD and the run 5-6-7 of hearts; after drawing 4S the deadwood is
    s = start("KS KH KD 5H 6H 7H 9C 2D 3C AD", OTHER, "8S", "4S")
    s = play(s, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    # 9C 2D 3C AD 4S (19 points). Discarding 9C leaves 10 > limit 8 (no knock): the kings stay.
    assert SimplePolicy().choose(view1(s)) == Discard(C("9C")[0])


def test_knocks_as_soon_as_legal_with_the_least_deadwood_discard():
    # Three runs plus QC, upcard KS (limit 10); both pass; seat 1 draws 2S: discarding QC leaves
    # 2 points (knock allowed, R7.2); discarding 2S leaves 10 (also allowed) -> knock throwing QC.
    s = start("AC 2C 3C 4D 5D 6D 7H 8H 9H QC", OTHER, "KS", "2S")
    s = play(s, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    assert SimplePolicy().choose(view1(s)) == Knock(C("QC")[0])


def test_does_not_discard_the_card_just_taken():
    # Seat 1 takes upcard QH (it joins QC QD); QH may not be discarded this turn (R6.3).
    s = start("QC QD AC 4C 6C 7C 9D JC KD 5D", OTHER, "QH")
    s = play(s, (1, TakeUpcard()))
    a = SimplePolicy().choose(view1(s))
    assert a == Discard(C("KD")[0])  # deadwood AC 4C 6C 7C 9D JC KD 5D: K is the highest
