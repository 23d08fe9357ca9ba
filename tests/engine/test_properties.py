"""Property tests (hypothesis): random legal play to the end of rounds and matches, invariants after
every action, replay, exact legal-action listing, and the meld search against an independent brute
force (``support.brute_*``, which shares no code with ``games/engine/melds.py``).

Profiles: the default keeps the whole engine suite well under two minutes on two cores;
``HYPOTHESIS_PROFILE=ci`` derandomizes, ``HYPOTHESIS_PROFILE=thorough`` runs ten times the examples.
"""
import pytest
import itertools
import json
import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (FULL_DECK, Card, DrawDiscard, DrawStock, EngineError, Knock, MatchState,
                          NotYourTurn, PassUpcard, RuleSet, TakeUpcard, apply, best_arrangement, best_defence,
                          best_knock, deal, legal_actions, min_deadwood, new_match, replay, shuffled_deck)
from games.engine.actions import Discard
from games.engine.melds import mask_knock_deadwoods, validate_meld

from .support import all_cards_accounted, brute_best_knock, brute_defence, brute_is_meld, brute_min_deadwood, choose

settings.register_profile("ci", derandomize=True)
settings.register_profile("thorough", max_examples=1000)
if os.environ.get("HYPOTHESIS_PROFILE") in ("ci", "thorough"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


def scaled(n: int) -> settings:
    """This module's settings: no deadline (timing is for benchmarks), and ``n`` examples scaled by
    the active profile's max_examples (100 by default, 1000 under ``thorough``)."""
    return settings(max_examples=max(1, n * settings.default.max_examples // 100), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


RULE_SETS = st.sampled_from([
    RuleSet(),
    RuleSet(variant="classic"),
    RuleSet(spade_doubles=True, ace_requires_gin=True),
    RuleSet(forbid_discarding_drawn_upcard=False, gin_bonus=20, target_score=60),
    RuleSet(variant="classic", knock_limit=5, undercut_bonus=20),
])


def check_invariants(state: MatchState, previous: MatchState) -> None:
    all_cards_accounted(state)
    # scores never decrease, and only the round's winner gains
    assert state.scores[0] >= previous.scores[0] and state.scores[1] >= previous.scores[1]
    if state.phase in ("deal", "match_over"):
        assert state.to_act is None
        assert legal_actions(state) == []
    else:
        # exactly one player may act
        seat = state.to_act
        assert seat in (0, 1)
        assert legal_actions(state, seat) and legal_actions(state, 1 - seat) == []
        r = state.round
        assert len(r.hands[seat]) == (11 if r.phase == "discard" else 10)
        assert len(r.hands[1 - seat]) == 10
    if state.winner is not None:
        assert state.scores[state.winner] >= state.rules.target_score
        assert state.scores[1 - state.winner] < state.rules.target_score


def play_match(seed: int, rules: RuleSet, max_rounds: int | None = None):
    """Play a whole match (or ``max_rounds`` rounds) with the biased random policy, checking the
    invariants after every step; return (state, first_dealer, decks, moves)."""
    rng = random.Random(seed)
    first = seed % 2
    state = new_match(rules, first)
    decks, moves = [], []
    while state.phase != "match_over":
        if state.phase == "deal":
            if max_rounds is not None and len(decks) == max_rounds:
                break
            deck = shuffled_deck(rng)
            decks.append(deck)
            new, _ = deal(state, deck)
        else:
            seat, action = choose(state, rng)
            moves.append((seat, action))
            before = state.to_dict()
            new, events = apply(state, seat, action)
            assert state.to_dict() == before  # apply never mutates
            assert events
        check_invariants(new, state)
        state = new
        assert len(moves) < 20000, "match does not end"
    return state, first, decks, moves


@scaled(40)
@given(seed=st.integers(0, 2**32 - 1), rules=RULE_SETS)
@pytest.mark.rule("R10.1")
def test_random_matches_play_to_the_end_and_replay(seed, rules):
    """R3-R10: random legal play to the end of a match never raises; 52 cards are accounted for,
    exactly one seat may act, scores never decrease after every action; the match has a winner
    at or over the target (R10.1); replay from (rules, decks, moves) gives the same state."""
    state, first, decks, moves = play_match(seed, rules)
    assert state.phase == "match_over" and state.winner in (0, 1)
    again = replay(rules, first, decks, moves)
    assert again == state
    assert MatchState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    # scoring consistency: each result's points went to its winner
    totals = [0, 0]
    for res in state.results:
        if res.winner is not None:
            totals[res.winner] += res.points
        assert res.scores_after == tuple(totals)
    assert tuple(totals) == state.scores


@scaled(150)
@given(seed=st.integers(0, 2**32 - 1), rules=RULE_SETS)
@pytest.mark.rule("R9.2", "R9.4", "R8.1", "R3.3", "R3.2")
def test_random_rounds_end_and_score_by_the_rules(seed, rules):
    """R8, R9: a round ends by a knock or the wall; the points match R9.2-R9.4 from the counts."""
    state, first, decks, moves = play_match(seed, rules, max_rounds=1)
    res = state.results[-1] if state.results else None
    assert res is not None and state.round is None
    if res.outcome == "wall":
        assert res.points == 0 and state.dealer == first  # R8.1, R3.3
        return
    k, d = res.knocker, 1 - res.knocker
    kd, dd = res.deadwood[k], res.deadwood[d]
    assert kd <= res.knock_limit
    mult = res.multiplier
    if kd == 0:
        assert res.outcome == "gin" and res.winner == k and res.lay_offs == ()
        assert res.points == (dd + rules.gin_bonus) * mult
    elif kd < dd:
        assert res.outcome == "knock" and res.winner == k and res.points == (dd - kd) * mult
    else:
        assert res.outcome == "undercut" and res.winner == d
        assert res.points == (kd - dd + rules.undercut_bonus) * mult
    assert state.dealer == res.winner  # R3.2
    # the defender's count is their best over melds and lay-offs, checked by brute force
    if kd > 0:
        assert dd == brute_defence(res.knocker_melds, res.hands[d])
    else:
        assert dd == brute_min_deadwood(res.hands[d])
    assert kd == sum(c.value for c in res.knocker_deadwood)
    for meld in res.knocker_melds:
        validate_meld(meld)


CANDIDATES = ([TakeUpcard(), PassUpcard(), DrawStock(), DrawDiscard()]
              + [Discard(c) for c in FULL_DECK] + [Knock(c) for c in FULL_DECK])


@scaled(40)
@given(seed=st.integers(0, 2**32 - 1), rules=RULE_SETS)
def test_legal_actions_are_exactly_the_accepted_actions(seed, rules):
    """Every action legal_actions lists is accepted by apply(); every action without melds it does not
    list (all action types, a discard and a knock of every card) is rejected with an EngineError;
    the seat not to act is refused with not_your_turn."""
    rng = random.Random(seed)
    state = new_match(rules, seed % 2)
    state, _ = deal(state, shuffled_deck(rng))
    while state.round is not None:
        seat = state.to_act
        listed = set(legal_actions(state))
        for action in CANDIDATES:
            if action in listed:
                apply(state, seat, action)
            else:
                try:
                    apply(state, seat, action)
                except EngineError:
                    pass
                else:
                    raise AssertionError(f"{action} accepted but not listed in {state.phase}")
            try:
                apply(state, 1 - seat, action)
            except NotYourTurn:
                pass
            else:
                raise AssertionError("the seat not to act was allowed to act")
        state, _ = apply(state, *choose(state, rng))


# ---------------------------------------------------------------------------------------------
# Meld search against brute force

def hands(n):
    """Random n-card hands, often from a dense window (4-6 ranks, all suits) so melds abound."""
    dense = st.integers(1, 9).flatmap(
        lambda lo: st.integers(4, 6).flatmap(
            lambda width: st.permutations([c for c in FULL_DECK if lo <= c.rank < lo + width]).map(
                lambda p: tuple(p[:n]))))
    suited = st.permutations([c for c in FULL_DECK if c.suit in "HS" or c.rank in (1, 2, 12, 13)]).map(
        lambda p: tuple(p[:n]))
    anywhere = st.permutations(FULL_DECK).map(lambda p: tuple(p[:n]))
    return st.one_of(dense, suited, anywhere)


@scaled(300)
@given(hand=hands(10))
@pytest.mark.rule("R2.3", "R2.4")
def test_best_arrangement_of_10_cards_equals_brute_force(hand):
    """R2.3, R2.4: the best arrangement's deadwood is the brute-force minimum; its melds are valid,
    disjoint, from the hand, and its deadwood is the rest."""
    arr = best_arrangement(hand)
    assert arr.deadwood_count == brute_min_deadwood(hand) == min_deadwood(hand)
    used = [c for m in arr.melds for c in m]
    assert len(used) == len(set(used))
    assert all(brute_is_meld(m) for m in arr.melds)
    assert sorted(used + list(arr.deadwood)) == sorted(hand)
    assert arr.deadwood_count == sum(c.value for c in arr.deadwood)


@scaled(150)
@given(hand=hands(11))
def test_best_arrangement_of_11_cards_equals_brute_force(hand):
    assert best_arrangement(hand).deadwood_count == brute_min_deadwood(hand)


@scaled(120)
@given(hand=hands(11), forbid=st.integers(0, 11))
@pytest.mark.rule("R7.2", "R6.3")
def test_best_knock_equals_brute_force_over_discards(hand, forbid):
    """R7.2, R6.3: the best knock's deadwood equals the brute-force minimum over every allowed
    discard; the per-discard counts behind legal knocks equal brute force for each discard."""
    forbidden = hand[forbid] if forbid < 11 else None
    option = best_knock(hand, forbidden=forbidden)
    assert option.discard is not forbidden and option.discard in hand
    assert option.deadwood_count == brute_best_knock(hand, forbidden)
    assert option.deadwood_count == brute_min_deadwood([c for c in hand if c is not option.discard])
    mask = sum(c.bit for c in hand)
    per_discard = mask_knock_deadwoods(mask, forbidden.bit if forbidden else 0)
    expected = {d.index: brute_min_deadwood([c for c in hand if c is not d]) for d in hand if d is not forbidden}
    assert per_discard == expected


def defence_cases():
    """A knocker's 1-3 disjoint melds and a defender's 6-9 cards, from a dense part of the deck."""
    def build(args):
        pool, n_melds, n_def = args
        pool = list(pool)
        melds = []
        for size in (3, 4, 3):
            if len(melds) == n_melds:
                break
            options = [m for m in itertools.combinations(pool, size) if brute_is_meld(m)]
            if not options:
                break
            m = options[len(pool) * 7 % len(options)]
            melds.append(m)
            pool = [c for c in pool if c not in m]
        return tuple(melds), tuple(pool[:n_def])

    dense = st.integers(1, 8).flatmap(lambda lo: st.permutations(
        [c for c in FULL_DECK if lo <= c.rank < lo + 6]))
    return st.tuples(dense, st.integers(1, 3), st.integers(6, 9)).map(build)


@scaled(120)
@given(case=defence_cases())
@pytest.mark.rule("R7.6", "R9.4")
def test_best_defence_equals_brute_force_over_lay_off_sequences(case):
    """R7.6: the defender's best count over own melds plus lay-offs (chains, fourth card on a set,
    breaking own melds) equals the brute force over every sequence of single lay-offs."""
    knocker_melds, defender = case
    d = best_defence(knocker_melds, defender)
    assert d.deadwood_count == brute_defence(knocker_melds, defender)
    assert d.deadwood_count == sum(c.value for c in d.deadwood)
    laid = [c for c, _ in d.lay_offs]
    melded = [c for m in d.melds for c in m]
    assert sorted(laid + melded + list(d.deadwood)) == sorted(defender)
    no_lay = best_defence(knocker_melds, defender, allow_lay_offs=False)  # R9.4
    assert no_lay.lay_offs == () and no_lay.deadwood_count == brute_min_deadwood(defender)


def test_card_helpers_cover_the_deck():
    assert {Card.from_index(i) for i in range(52)} == set(FULL_DECK)
