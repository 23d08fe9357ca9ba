"""The strong level's model of the opponent's hidden hand (issue 5): what the seat records of the
opponent's turns, and which sampled hands explain them. Cases worked out by hand; no database."""
from __future__ import annotations

import random

import pytest

from games.engine import (Discard, DrawDiscard, DrawStock, RuleSet, TakeUpcard, apply, deal, min_deadwood,
                          new_match, player_view, shuffled_deck)
from games.engine.ai import SimplePolicy, StrongPolicy
from games.engine.ai.knowledge import Knowledge, read_knowledge
from games.engine.ai.playout import SimRules
from games.engine.ai.strong import plausible
from games.engine.cards import Card, cards_mask

from ..support import C, play, start


def mask(codes: str) -> int:
    return cards_mask([Card.parse(c) for c in codes.split()])


def idx(code: str) -> int:
    return Card.parse(code).index


def knowledge(turns, known: str = "") -> Knowledge:
    """A Knowledge with only what :func:`plausible` reads: the opponent's turns and known cards."""
    return Knowledge(own=0, dead=0, opp_known=mask(known) if known else 0, unseen=0, opp_hidden=10,
                     stock_size=20, weights=(1.0,) * 52, opp_threw=(), opp_declined=(),
                     opp_turns=tuple(turns))


def rules(knock_limit: int = 10, forbid: bool = True) -> SimRules:
    return SimRules(knock_limit=knock_limit, gin_bonus=25, undercut_bonus=25, multiplier=1, forbid=forbid)


def round_positions(rules_set: RuleSet, rounds: int, rng: random.Random, make_policies):
    """Every decision of ``rounds`` rounds between ``make_policies()`` (a pair, made per round):
    yields ``(state, seat, view)`` before the seat to act plays its policy's choice."""
    for _ in range(rounds):
        state = new_match(rules_set, rng.randrange(2))
        state, _ = deal(state, shuffled_deck(rng))
        pols = make_policies()
        while state.round is not None:
            seat = state.to_act
            view = player_view(state, seat)
            yield state, seat, view
            state, _ = apply(state, seat, pols[seat].choose(view))


def test_the_opponents_turns_are_read_from_the_view():
    # Seat 0 deals; seat 1 (non-dealer) takes the 5C upcard (R5.1) and throws KD, seat 0 draws 8D
    # and throws KS, seat 1 draws 2D from the stock and throws QC.
    state = start("2C 3C 4C 7H 7S 7D 9S JH KD QC", "AS 2S 3S 4H 6H 8H 10C JC QH KS", "5C", "8D 2D 9D",
                  dealer_seat=0)
    state = play(state, (1, TakeUpcard()), (1, Discard(C("KD")[0])), (0, DrawStock()),
                 (0, Discard(C("KS")[0])), (1, DrawStock()), (1, Discard(C("QC")[0])))
    k0 = read_knowledge(player_view(state, 0))
    assert k0.opp_turns == ((idx("5C"), idx("KD")), (None, idx("QC")))
    assert k0.opp_known == mask("5C")
    k1 = read_knowledge(player_view(state, 1))
    assert k1.opp_turns == ((None, idx("KS")),)
    # Seat 1's real hand explains both of its turns (it played them as the baseline would): now
    # 2C-5C, 7H 7S 7D, 9S JH 2D (deadwood 21 > knock limit 5); before discarding QC it held QC
    # and JH (both 10): QC is the higher rank. The turn before: KD, the highest unmelded card.
    real = mask("2C 3C 4C 5C 7H 7S 7D 9S JH 2D")
    assert state.round.knock_limit == 5
    assert plausible(real, k0, rules(knock_limit=5), depth=2)
    # Holding KH unmelded instead of 2D, the opponent would have thrown KH, not QC.
    assert not plausible(mask("2C 3C 4C 5C 7H 7S 7D 9S JH KH"), k0, rules(knock_limit=5))
    # Seat 0 draws 9D from the stock and throws it; seat 1 takes it from the discard pile (R6.1)
    # and throws JH: a turn with a taken card that is not the upcard.
    state = play(state, (0, DrawStock()), (0, Discard(C("9D")[0])), (1, DrawDiscard()),
                 (1, Discard(C("JH")[0])))
    k0 = read_knowledge(player_view(state, 0))
    assert k0.opp_turns == ((idx("5C"), idx("KD")), (None, idx("QC")), (idx("9D"), idx("JH")))
    assert k0.opp_known == mask("5C 9D")
    assert read_knowledge(player_view(state, 1)).opp_turns == ((None, idx("KS")), (None, idx("9D")))


def test_a_discard_must_be_the_least_deadwood_discard():
    # Discarded 9H. With 8D 6C 7S unmelded beside it, 9H is the highest deadwood card: after it,
    # 8 + 6 + 7 = 21 points of deadwood, no knock at 10.
    k = knowledge([(None, idx("9H"))])
    assert plausible(mask("AC 2C 3C 4C 5H 5D 5S 8D 6C 7S"), k, rules())
    # An unmelded JD would have been thrown before the 9H.
    assert not plausible(mask("AC 2C 3C 4C 5H 5D 5S 8D 6C JD"), k, rules())
    # High cards in melds are fine; but then only 9H was deadwood: after throwing it the hand was
    # gin, so a player that knocks when it can would have knocked (R7.2).
    gin = mask("AC 2C 3C 4C 5H 5D 5S JD QD KD")
    assert not plausible(gin, k, rules())
    assert plausible(gin, k, rules(), knock_check=False)


def test_the_card_just_taken_may_not_be_the_discard():
    # Took 9H from the discard pile, threw 8D: with R6.3 the 9H could not be thrown, so 8D (the
    # highest of 8D 6C 7S) was the best allowed discard; without R6.3 the 9H would have gone.
    k = knowledge([(idx("9H"), idx("8D"))], known="9H")
    hand = mask("AC 2C 3C 4C 5H 5D 5S 9H 6C 7S")
    assert plausible(hand, k, rules(forbid=True))
    assert not plausible(hand, k, rules(forbid=False))


def test_the_turn_before_the_last():
    # Threw 4D, then (drawing from the stock) KH. Knock limit 1.
    k = knowledge([(None, idx("4D")), (None, idx("KH"))])
    # 9S unmelded now: throwing KH was right (9 points left), but a turn earlier the hand held
    # either 9S or KH (whichever card was drawn last, the other was there), both above 4D.
    h = mask("AC 2C 3C 5H 5D 5S 7C 8C 9C 9S")
    assert plausible(h, k, rules(knock_limit=1), depth=1)
    assert not plausible(h, k, rules(knock_limit=1), depth=2)
    # 2D unmelded instead: KH was the drawn card; before it the hand was this one with 4D, whose
    # least-deadwood discard is 4D (2 points left, above the limit of 1).
    h2 = mask("AC 2C 3C 5H 5D 5S 7C 8C 9C 2D")
    assert plausible(h2, k, rules(knock_limit=1), depth=2)


def test_the_turn_before_a_take():
    # Threw 4D, then took 9C from the discard pile (so the card drawn last is known) and threw KH.
    # Now 7C-8C-9C is a run and 9S is the only other deadwood: KH was right (9 left > limit 1).
    # But the turn before, without 9C, the hand held KH, 9S, 7C and 8C unmelded: not 4D's turn.
    k = knowledge([(None, idx("4D")), (idx("9C"), idx("KH"))], known="9C")
    h = mask("AC 2C 3C 5H 5D 5S 7C 8C 9C 9S")
    assert plausible(h, k, rules(knock_limit=1), depth=1)
    assert not plausible(h, k, rules(knock_limit=1), depth=2)
    # Threw 6H, then took 2H and threw 4S (R6.3: not the 2H). The turn before: sets of 5s, runs
    # 7C-9C and JD-KD, and 4S 6H unmelded: 6H was the least-deadwood discard, 4 points left.
    k = knowledge([(None, idx("6H")), (idx("2H"), idx("4S"))], known="2H")
    h = mask("5H 5D 5S 7C 8C 9C JD QD KD 2H")
    assert plausible(h, k, rules(knock_limit=1), depth=2)
    # With a knock limit of 4 the turn before would have ended in a knock (4 points), so that
    # hand is ruled out; and now, 2 points after 4S: ruled out by the last turn already.
    assert not plausible(h, k, rules(knock_limit=4), depth=1)
    # A knock passed up on the turn before only: took 9H (not melding) and threw 2S, 9 points
    # left (> 5); the turn before, throwing 6H left only 2S (2 points <= 5): it would have knocked.
    k = knowledge([(None, idx("6H")), (idx("9H"), idx("2S"))], known="9H")
    h = mask("5H 5D 5S 7C 8C 9C JD QD KD 9H")
    assert plausible(h, k, rules(knock_limit=5), depth=2, knock_check=False)
    assert plausible(h, k, rules(knock_limit=5), depth=1)
    assert not plausible(h, k, rules(knock_limit=5), depth=2)


def test_r6_3_on_the_turn_before():
    # Took 9H and threw 8D, then took 8H and threw 7C. Now 7H-8H-9H is a run and 6C is the only
    # other deadwood: 7C was right (6 left > limit 5). The turn before, without 8H, the hand held
    # 7H 9H 6C 7C 8D unmelded: 9H, the highest, had just been taken, so under R6.3 8D was the
    # best allowed discard (20 left); without R6.3 the 9H would have gone.
    k = knowledge([(idx("9H"), idx("8D")), (idx("8H"), idx("7C"))], known="9H 8H")
    h = mask("AC 2C 3C 5H 5D 5S 7H 8H 9H 6C")
    assert plausible(h, k, rules(knock_limit=5, forbid=True), depth=2)
    assert plausible(h, k, rules(knock_limit=5, forbid=False), depth=1)
    assert not plausible(h, k, rules(knock_limit=5, forbid=False), depth=2)


def test_a_card_taken_earlier_was_not_drawn_from_the_stock():
    # Took 7H (still held), then took 9H and threw 8H, then drew from the stock and threw 9H.
    # Last turn: 9H is the highest of 7H 2D 4D 6C 9H (19 points left): fine. The 9H was already
    # in the hand before the last draw, so the card drawn was one of the nine hidden cards; with
    # any of them gone, the hand that threw 8H held 7H 8H 9H, a run that 8H would not be thrown
    # from. Only "the 9H was drawn from the stock" (impossible) would explain it.
    k = knowledge([(idx("7H"), idx("KD")), (idx("9H"), idx("8H")), (None, idx("9H"))], known="7H")
    opp = mask("AC 2C 3C 4S 5S 6S 7H 2D 4D 6C")
    assert plausible(opp, k, rules(), depth=1)
    assert not plausible(opp, k, rules(), depth=2)


def test_no_turn_yet_rules_nothing_out():
    assert plausible(mask("KS KH QS QH JS JH 9S 9H 8S 8H"), knowledge([]), rules(), depth=2)


@pytest.mark.parametrize("variant", ["oklahoma", "classic"])
def test_the_real_hand_of_a_baseline_opponent_is_never_ruled_out(variant):
    # Against an opponent that plays the baseline (least-deadwood discards, knocks when it can),
    # the model must never exclude the hand it really holds: checked at every decision of
    # simple-vs-simple rounds, for both seats.
    checked = 0
    for state, seat, view in round_positions(RuleSet(variant=variant), 40, random.Random(5),
                                             lambda: [SimplePolicy(seed=1), SimplePolicy(seed=2)]):
        k = read_knowledge(view)
        r = rules(view.knock_limit, view.rules.forbid_discarding_drawn_upcard)
        real = cards_mask(state.round.hands[1 - seat])
        assert plausible(real, k, r, depth=2), (view.history, k.opp_turns)
        checked += bool(k.opp_turns)
    assert checked > 300


def test_search_samples_only_plausible_hands_when_it_can():
    # With the filter on, a determinization's opponent hand explains the opponent's last turns:
    # up to filter_tries more hands are drawn, then a plausible hand found earlier in the same
    # search is used again; only while none has been found may an implausible one be returned.
    # Without the filter far fewer sampled hands are plausible. The stock is always the rest of
    # the unseen cards.
    seen = {True: 0, False: 0}
    good = {True: 0, False: 0}
    for state, seat, view in round_positions(RuleSet(), 10, random.Random(9),
                                             lambda: [SimplePolicy(seed=3), SimplePolicy(seed=4)]):
        k = read_knowledge(view)
        if not (k.opp_turns and view.phase == "discard"):
            continue
        r = rules(view.knock_limit, True)
        unseen = [c for c in range(52) if k.unseen >> c & 1]
        for on in (True, False):
            p = StrongPolicy(seed=1, filter_tries=20 if on else 0, opponent_model="filter")
            pool: list[int] = []
            for i in range(5):
                was_empty = not pool
                opp, stock = p._sample(k, r, random.Random(i), unseen, pool)
                ok = plausible(opp, k, r, depth=2)
                if on:
                    assert ok or was_empty
                seen[on] += 1
                good[on] += ok
                hidden = [c for c in range(52) if opp >> c & 1 and not k.opp_known >> c & 1]
                assert len(hidden) == k.opp_hidden
                assert sorted(stock + hidden) == unseen
    assert seen[True] > 100
    # Measured with these seeds: 572/695 (82%) with the filter, 133/695 (19%) without.
    assert good[True] / seen[True] > 0.75
    assert good[False] / seen[False] < 0.3


def oracle_discard_ok(hand, took, discard, limit: int, forbid: bool, knock_check: bool) -> bool:
    """From the rules, on Card objects: is ``discard`` the card of the 11-card ``hand`` leaving the
    least deadwood (R2.4; ties to the higher value, rank, index), not ``took`` under R6.3, and
    (``knock_check``) with more than ``limit`` points left?"""
    options = [c for c in hand if not (forbid and c == took)]
    left = {c: min_deadwood([x for x in hand if x != c]) for c in options}
    least = min(left.values())
    chosen = max((c for c in options if left[c] == least), key=lambda c: (c.value, c.rank, c.index))
    return chosen == discard and (not knock_check or least > limit)


def oracle_plausible(opp, turns, limit: int, forbid: bool, knock_check: bool, depth: int) -> bool:
    """An independent, slow statement of the filter: the last turn's discard from the hand plus
    it; then, for the turn before, some card that may have been drawn last (the card taken, or a
    card not taken from the discard pile on an earlier turn) whose removal explains that discard."""
    if not turns:
        return True
    took, d = turns[-1]
    hand = set(opp) | {d}
    if not oracle_discard_ok(hand, took, d, limit, forbid, knock_check):
        return False
    if depth == 1 or len(turns) == 1:
        return True
    took2, d2 = turns[-2]
    taken_before = {t for t, _ in turns[:-1] if t is not None}
    drawn = [took] if took is not None else [c for c in hand if c not in taken_before]
    return any(oracle_discard_ok((hand - {x}) | {d2}, took2, d2, limit, forbid, knock_check) for x in drawn)


@pytest.mark.parametrize("forbid", [True, False])
def test_the_filter_agrees_with_a_slow_statement_of_it(forbid):
    # Positions from rounds between the baseline and a random player (so the turns include odd
    # discards and takes); sampled hidden hands and the real hand, checked at both depths, with
    # and without the knock check. Both answers must come up often.
    from games.engine.ai import RandomPolicy
    from games.engine.ai.knowledge import mask_indices, sample_hidden
    from games.engine.cards import mask_cards

    rng = random.Random(17 + forbid)
    answers = {True: 0, False: 0}
    rule_set = RuleSet(forbid_discarding_drawn_upcard=forbid)
    for state, seat, view in round_positions(rule_set, 12, rng,
                                             lambda: [SimplePolicy(seed=1), RandomPolicy(seed=rng.randrange(1000))]):
        k = read_knowledge(view)
        if not (k.opp_turns and rng.random() < 0.5):
            continue
        opps = [cards_mask(state.round.hands[1 - seat])]
        opps += [sample_hidden(k, rng, mask_indices(k.unseen))[0] for _ in range(3)]
        turns = [(None if t is None else Card.from_index(t), Card.from_index(d)) for t, d in k.opp_turns]
        for opp in opps:
            depth, kc = rng.choice([1, 2]), rng.random() < 0.5
            got = plausible(opp, k, rules(view.knock_limit, forbid), knock_check=kc, depth=depth)
            want = oracle_plausible(mask_cards(opp), turns, view.knock_limit, forbid, kc, depth)
            assert got == want, (k.opp_turns, mask_cards(opp), depth, kc)
            answers[got] += 1
    assert answers[True] >= 30 and answers[False] >= 30, answers
