"""The strong level's adaptive opponent model (issue 16): the style estimated from a match (knock
threshold, discard and take habits), worked out by hand; the likelihood of the opponent's turns
under it; that it learns only from what the seat may know; and that the search never rules a
hand out. No database, no clock: iteration budgets only."""
from __future__ import annotations

import random

import pytest

from games.engine import (Discard, DrawStock, Knock, PassUpcard, RuleSet, apply, deal, new_match,
                          player_view, shuffled_deck)
from games.engine.ai import SimplePolicy, StrongPolicy
from games.engine.ai.knowledge import Knowledge, mask_indices, read_knowledge, sample_hidden
from games.engine.ai.opponent import (EPSILON, OpponentModel, Style, greedy_prior, threshold_prior,
                                      turn_likelihood)
from games.engine.ai.playout import SimRules, min_deadwood, play_out
from games.engine.ai.simple import baseline_rounds
from games.engine.cards import Card, cards_mask
from games.engine.state import RoundResult

from ..support import C, play, start


def mask(codes: str) -> int:
    return cards_mask([Card.parse(c) for c in codes.split()])


def idx(code: str) -> int:
    return Card.parse(code).index


def result(number: int, knocker: int | None, opp_hand: str, limit: int = 10) -> RoundResult:
    """A finished round seen by seat 0: seat 1 (the opponent) ended with ``opp_hand``; only the
    fields the model reads matter (number, knocker, hands, knock limit)."""
    own = C("KS KH KD QS QH QD JS JH JD 10S")
    return RoundResult(number=number, dealer=0, outcome="knock", knocker=knocker, winner=knocker, points=1,
                       hands=(own, C(opp_hand)), discard=None, knocker_melds=(), knocker_deadwood=(),
                       defender_melds=(), defender_deadwood=(), lay_offs=(), deadwood=(0, 0),
                       knock_limit=limit, multiplier=1, scores_after=(0, 0))


def rules(knock_limit: int = 10, forbid: bool = True) -> SimRules:
    return SimRules(knock_limit=knock_limit, gin_bonus=25, undercut_bonus=25, multiplier=1, forbid=forbid)


def knowledge(turns, passed=()) -> Knowledge:
    return Knowledge(own=0, dead=0, opp_known=0, unseen=0, opp_hidden=10, stock_size=20, weights=(1.0,) * 52,
                     opp_threw=(), opp_declined=(), opp_turns=tuple(turns), opp_turn_passed=tuple(passed))


# Ten-card hands by least deadwood (R2.4): AS-3S run, three 4s, 6C-8C run, and one loose card.
KNOCK_9 = "AS 2S 3S 4H 4D 4C 6C 7C 8C 9H"       # 9H: 9 points
KNOCK_10 = "AS 2S 3S 4H 4D 4C 6C 7C 8C KH"      # KH: 10
GIN = "AS 2S 3S 4H 4D 4C 6C 7C 8C 9C"           # 6C-9C: 0
HELD_7 = "AS 2S 3S 4H 4D 4C 6C 7C 8C 7H"        # 7H: 7
HELD_4 = "AS 2S 3S 5H 5D 5C 6C 7C 8C 4H"        # three 5s and 6C-8C, or 5C-8C: 4H, 4 points


def test_the_prior_is_the_baseline_with_room_for_other_styles():
    s = OpponentModel().style()
    assert s.threshold_probs == pytest.approx((0.05,) * 10 + (0.5,))
    assert s.threshold == 10  # the cumulative probability is 0.5 at T = 9 and exceeds it at T = 10
    assert (s.greedy, s.take_meld, s.take_loose) == pytest.approx((0.8, 0.8, 0.2))
    # May knock at 10 and does not: only T < 10 (mass 0.5) declines for sure-ish:
    # 0.5 * 0.95 + 0.5 * 0.05 = 0.5. At 5 points: T = 0..4 (0.25) decline at 0.95, the rest at 0.05.
    assert s.p_decline(10) == pytest.approx(0.5)
    assert s.p_decline(5) == pytest.approx(0.25 * 0.95 + 0.75 * 0.05)


def test_a_stronger_baseline_prior_takes_more_declined_knocks_to_make_a_waiting_opponent():
    # Prior 0.9 on T = 10, 0.01 on each of T = 0..9. One declined knock at 7 points (T < 7 has
    # 0.95, T >= 7 has 0.05): T = 0..6: 0.01 * 0.95 = 0.0095 each (0.0665); T = 7..9: 0.0005 each;
    # T = 10: 0.045; total 0.113. Cumulative 0.0841 per T up to 6 (0.5885 at T = 6 > 0.5, and
    # 0.5044 at T = 5 already): median 5. Under the default prior (0.5) the same evidence gives
    # T = 0..6: 0.0475 each (0.3325), T = 7..9: 0.0025, T = 10: 0.025; total 0.365; median 3
    # (cumulative 0.5205 at T = 3).
    assert threshold_prior(0.9) == pytest.approx((0.01,) * 10 + (0.9,))
    m = OpponentModel()
    m.learn_round(result(1, 0, HELD_7), 0)
    strong_prior, default = m.style(0.9), m.style()
    assert strong_prior.threshold_probs[10] == pytest.approx(0.045 / 0.113)
    assert strong_prior.threshold == 5
    assert default.threshold_probs[10] == pytest.approx(0.025 / 0.365)
    assert default.threshold == 3
    # Nothing learned: the prior itself; 0.2 on T = 10 puts the median at T = 6 (0.08 each, 0.56).
    assert OpponentModel().style(0.2).threshold == 6
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError):
            threshold_prior(bad)


def test_the_strong_policy_searches_under_its_knock_prior():
    # Before any evidence the style a decision searches under is the prior itself: 0.2 on T = 10
    # gives T = 6 (a waiting opponent), the default 0.5 gives T = 10 (the baseline).
    states = played_round()
    s = next(s for s in states if s.round is not None and s.round.to_act == 0
             and len(player_view(s, 0).legal_actions) > 1)
    for knock_prior, probs, threshold in ((0.2, (0.08,) * 10 + (0.2,), 6), (0.5, (0.05,) * 10 + (0.5,), 10)):
        p = StrongPolicy(seed=1, time_budget=None, max_iterations=4, knock_prior=knock_prior)
        p.choose(player_view(s, 0))
        assert p._style.threshold_probs == pytest.approx(probs)
        assert p._style.threshold == threshold



def test_the_greedy_prior_is_worth_five_discards():
    # Mean 0.8: 4 least-deadwood discards and 1 other; 0.9: 4.5 and 0.5. After the round of
    # played_round (one known discard, the least-deadwood one): (4 + 1) / (5 + 1) = 5/6 under the
    # default, (4.5 + 1) / (5 + 1) = 11/12 under 0.9.
    assert greedy_prior() == (4.0, 1.0)
    assert greedy_prior(0.9) == pytest.approx((4.5, 0.5))
    states = played_round()
    m = OpponentModel()
    m.learn_round(states[-1].results[-1], 0, player_view(states[-2], 0).history)
    assert m.greedy == [1, 1]
    assert m.style().greedy == pytest.approx(5 / 6)
    assert m.style(greedy=0.9).greedy == pytest.approx(11 / 12)
    # A discard that is not the least-deadwood one then weighs (1 - g) / 10 / (g + (1 - g) / 10):
    # under the 0.9 prior with nothing learned, 0.01 / 0.91 (0.02 / 0.82 under the default).
    k = knowledge([(None, idx("5D"))], passed=[None])
    hand = mask("2C 3C 4C 7H 7D 7C 9S 9H JD KS")
    assert turn_likelihood(hand, k, OpponentModel().style(greedy=0.9), rules()) == pytest.approx(0.01 / 0.91)
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError):
            greedy_prior(bad)
        with pytest.raises(ValueError):
            OpponentModel().style(greedy=bad)


def test_the_strong_policy_searches_under_its_greedy_prior():
    # Before any evidence the style a decision searches under has the prior's mean itself.
    states = played_round()
    s = next(s for s in states if s.round is not None and s.round.to_act == 0
             and len(player_view(s, 0).legal_actions) > 1)
    for greedy in (0.95, 0.8):
        p = StrongPolicy(seed=1, time_budget=None, max_iterations=4, greedy_prior=greedy)
        p.choose(player_view(s, 0))
        assert p._style.greedy == pytest.approx(greedy)


def test_two_knocks_at_9_and_10_make_the_threshold_10():
    # Prior x likelihoods (knock at d: T >= d has 0.95, T < d 0.05):
    #   T = 10: 0.5 * 0.95 * 0.95 = 0.45125; T = 9: 0.05 * 0.95 * 0.05 = 0.002375;
    #   T = 0..8: 0.05 * 0.05 * 0.05 = 0.000125 each (9 of them: 0.001125); total 0.45475.
    m = OpponentModel()
    m.learn_round(result(1, 1, KNOCK_9), 0)
    m.learn_round(result(2, 1, KNOCK_10), 0)
    assert m.knocked_at == [9, 10] and m.declined_at == []
    s = m.style()
    assert s.threshold_probs[10] == pytest.approx(0.45125 / 0.45475)
    assert s.threshold_probs[9] == pytest.approx(0.002375 / 0.45475)
    assert s.threshold_probs[0] == pytest.approx(0.000125 / 0.45475)
    assert s.threshold == 10
    m.learn_round(result(2, 1, GIN), 0)  # the same round number again: learned once only
    assert m.knocked_at == [9, 10]


def test_declined_knocks_then_gin_make_a_gin_hunter():
    # The opponent held 7 then 4 points of deadwood when seat 0 knocked (it could have knocked
    # itself, R7.2, and did not: T < 7, T < 4), then went gin (T >= 0: no information).
    #   T = 0..3: 0.05 * 0.95 * 0.95 = 0.045125 each; T = 4..6: 0.05 * 0.95 * 0.05 = 0.002375;
    #   T = 7..9: 0.05 * 0.05 * 0.05 = 0.000125; T = 10: 0.5 * 0.05 * 0.05 = 0.00125 (all x 0.95
    #   for the gin); total 0.18925. Median: 0.2384, 0.4769, 0.7153 at T = 2.
    m = OpponentModel()
    m.learn_round(result(1, 0, HELD_7), 0)
    m.learn_round(result(2, 0, HELD_4), 0)
    m.learn_round(result(3, 1, GIN), 0)
    assert m.declined_at == [7, 4] and m.knocked_at == [0]
    s = m.style()
    assert s.threshold_probs[0] == pytest.approx(0.045125 / 0.18925)
    assert s.threshold_probs[10] == pytest.approx(0.00125 / 0.18925)
    assert s.threshold == 2
    # A wall or a knock where it held more than the knock limit teaches nothing on the threshold.
    m2 = OpponentModel()
    m2.learn_round(result(1, None, "KS KH 9D 8D 2C 3H 5S 6H JC QC"), 0)
    m2.learn_round(result(2, 0, HELD_7, limit=5), 0)
    assert m2.declined_at == [] and m2.style().threshold == 10


def played_round():
    """Seat 0 deals and knocks; seat 1 (the opponent) lets the QC upcard pass twice (passing, then
    drawing 7C from the stock with QC on top), throws KH and keeps 2C 3C 4C / 7H 7D 7C + AD 2H 3D 4D:
    10 points, a knock it could have made (limit 10 from the QC upcard, R4.4) and did not.
    Seat 0 draws 10H and knocks with it (10 points), discarding KD."""
    state = start("2C 3C 4C 7H 7D AD 2H 3D 4D KH", "AS 2S 3S 4S 5S 6S 7S 8S 9S KD", "QC", "7C 10H",
                  dealer_seat=0)
    states = [state]
    for seat, action in ((1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, Discard(C("KH")[0])),
                         (0, DrawStock()), (0, Knock(C("KD")[0]))):
        state = play(state, (seat, action))
        states.append(state)
    return states


def test_a_revealed_round_with_its_moves_teaches_discards_declines_and_passes():
    states = played_round()
    end = states[-1]
    r = end.results[-1]
    assert r.knocker == 0 and r.knock_limit == 10
    history = player_view(states[-2], 0).history  # what seat 0 saw before knocking
    m = OpponentModel()
    m.learn_round(r, 0, history)
    # Its last discard KH from its eleven cards was its least-deadwood discard (10 left), and it
    # could have knocked with 10: declined at 10. QC let pass twice, joining no meld of its hand.
    assert m.greedy == [1, 1]
    assert m.declined_at == [10]
    assert m.takes == {"meld": [0, 0], "loose": [0, 2]}
    s = m.style()
    assert s.greedy == pytest.approx(5 / 6)                 # Beta(4, 1) + 1 of 1
    assert s.take_loose == pytest.approx(1 / 7)             # Beta(1, 4) + 0 of 2
    assert s.take_meld == pytest.approx(0.8)
    # T < 10: T = 0..9 get 0.05 * 0.95 = 0.0475 each, T = 10 0.5 * 0.05 = 0.025; total 0.5. The
    # cumulative 0.095 per T reaches one half at T = 5 (0.57).
    assert s.threshold_probs[10] == pytest.approx(0.025 / 0.5)
    assert s.threshold == 5


def test_the_policy_learns_only_from_its_views():
    # The policy's model is fed by its views alone: the same evidence as learning from the
    # revealed round (public, R9) and the moves its last view of that round showed; during a
    # round nothing of it is learned, and hiding other cards behind the same views changes nothing.
    states = played_round()
    p = StrongPolicy(seed=1, time_budget=None, max_iterations=4)
    for s in states[:-1]:
        if s.round is not None and s.round.to_act == 0:
            p.choose(player_view(s, 0))
    assert p.model.rounds == set() and p.model.declined_at == []  # nothing before the round ends
    end = states[-1]
    end_view = player_view(end, 0)
    p.model.observe(end_view)  # e.g. the first decision of the next round shows last_result
    ref = OpponentModel()
    ref.learn_round(end.results[-1], 0, player_view(states[-2], 0).history)
    assert (p.model.knocked_at, p.model.declined_at, p.model.greedy, p.model.takes) == \
        (ref.knocked_at, ref.declined_at, ref.greedy, ref.takes)
    # A fresh model with only the result (the service's case for earlier rounds) learns the
    # decline from the revealed hand (10 points) and nothing about discards or takes.
    only = OpponentModel()
    only.observe(end_view)
    assert only.declined_at == [10] and only.greedy == [0, 0] and only.takes["loose"] == [0, 0]
    service = OpponentModel()  # what games.ai_play does with the match state's finished rounds
    service.learn_results(end.results, 0)
    assert (service.knocked_at, service.declined_at, service.rounds) == ([], [10], {1})


def test_the_model_in_play_reads_only_public_information():
    # Over whole matches against the baseline, before each of its decisions the strong seat's
    # evidence equals what the finished rounds' results (public once revealed) and the moves of
    # those rounds as its own views showed them give; the opponent's hidden cards of the current
    # round never enter.
    rng = random.Random(3)
    checked_rounds = 0
    for _ in range(1):
        state = new_match(RuleSet(), rng.randrange(2))
        strong = StrongPolicy(seed=2, time_budget=None, max_iterations=3)
        simple = SimplePolicy(seed=1)
        seen_history: dict[int, tuple] = {}
        rounds = 0
        while state.winner is None and rounds < 4:
            if state.phase == "deal":
                state, _ = deal(state, shuffled_deck(rng))
                rounds += 1
                continue
            seat = state.to_act
            view = player_view(state, seat)
            if seat == 0:
                action = strong.choose(view)
                seen_history[state.round.number] = view.history
                ref = OpponentModel()
                for r in state.results:
                    ref.learn_round(r, 0, seen_history.get(r.number),
                                    forbid=view.rules.forbid_discarding_drawn_upcard)
                assert (strong.model.knocked_at, strong.model.declined_at, strong.model.greedy,
                        strong.model.takes) == (ref.knocked_at, ref.declined_at, ref.greedy, ref.takes)
                checked_rounds = max(checked_rounds, len(state.results))
            else:
                action = simple.choose(view)
            state, _ = apply(state, seat, action)
    assert checked_rounds >= 2


def test_turn_likelihood_worked_out():
    # One turn: drew from the stock with a card on top, threw a card, under the prior
    # (greedy 0.8, the rest spread: (1 - 0.8) / 10 = 0.02 per other card).
    s = Style()
    hand10 = mask("2C 3C 4C 7H 7D 7C 9S 9H JD QS")  # 2C-4C, three 7s; 9S 9H JD QS loose
    # KS thrown: the least-deadwood discard (the highest loose card), 38 points left: no knock.
    k = knowledge([(None, idx("KS"))], passed=[None])
    assert turn_likelihood(hand10, k, s, rules()) == pytest.approx(1.0)
    # 5D thrown while KS was in hand: not its least-deadwood discard: 0.02 / (0.8 + 0.02).
    k = knowledge([(None, idx("5D"))], passed=[None])
    assert turn_likelihood(mask("2C 3C 4C 7H 7D 7C 9S 9H JD KS"), k, s, rules()) == pytest.approx(0.02 / 0.82)
    # Letting 8C pass (it joins no meld: no 8, no 6C or 9C) is a loose pass:
    # (1 - 0.2) / max(1 - 0.2, 1 - 0.8) = 1; letting 5C pass (it joins 2C-4C) is 0.2 / 0.8 = 0.25.
    k = knowledge([(None, idx("KS"))], passed=[idx("8C")])
    assert turn_likelihood(hand10, k, s, rules()) == pytest.approx(1.0)
    k = knowledge([(None, idx("KS"))], passed=[idx("5C")])
    assert turn_likelihood(hand10, k, s, rules()) == pytest.approx(0.25)
    # A knock passed up: after throwing KS the hand holds 1 point (AD; 7H 7D 7C and 5S 6S 7S),
    # limit 10: p_decline(1) under the prior = P(T = 0) 0.05 * 0.95 + P(T >= 1) 0.95 * 0.05.
    low = mask("2C 3C 4C 7H 7D 7C 5S 6S 7S AD")
    k = knowledge([(None, idx("KS"))], passed=[None])
    assert turn_likelihood(low, k, s, rules()) == pytest.approx(0.05 * 0.95 + 0.95 * EPSILON)
    # Against a gin hunter's estimate (all on T = 0) waiting is what it does: 0.95.
    hunter = Style(threshold_probs=(1.0,) + (0.0,) * 10)
    assert turn_likelihood(low, k, hunter, rules()) == pytest.approx(1 - EPSILON)
    # Everything wrong at once is unlikely but never ruled out.
    k = knowledge([(None, idx("5D"))], passed=[idx("8C")])
    assert turn_likelihood(mask("2C 3C 4C 7H 7D 7C 5S 6S AD KS"), k, Style(), rules()) > 0


def test_turn_likelihood_of_older_turns_worked_out():
    # Three stock draws, oldest first: it threw 2D, then KH, then KS, and holds the hand below.
    # Last turn: KS is its least-deadwood discard from hand + KS (the highest loose card): 1.
    # The turn before: the card drawn last may have been KS itself, so it held hand + KH and threw
    # KH, again its least-deadwood discard: 1. Depth 2 (the default) therefore gives 1.0.
    # The oldest turn: whatever two cards were drawn since, at least four loose cards of 9 or 10
    # points (9S 9H JD QS KH KS, less two) were held with 2D, which joins no meld: throwing 2D was
    # not its least-deadwood discard, 0.02 / 0.82 under the prior, whatever the draws were.
    hand10 = mask("2C 3C 4C 7H 7D 7C 9S 9H JD QS")
    k = knowledge([(None, idx("2D")), (None, idx("KH")), (None, idx("KS"))], passed=[None] * 3)
    s = Style()
    assert turn_likelihood(hand10, k, s, rules(), depth=1) == pytest.approx(1.0)
    assert turn_likelihood(hand10, k, s, rules()) == pytest.approx(1.0)
    assert turn_likelihood(hand10, k, s, rules(), depth=3) == pytest.approx(0.02 / 0.82)
    assert turn_likelihood(hand10, k, s, rules(), depth=6) == pytest.approx(0.02 / 0.82)
    # The shortcut: below an upper bound already reached, the turns before are not scored.
    assert turn_likelihood(hand10, k, s, rules(), depth=3, below=1.0) == pytest.approx(1.0)
    # A take from the discard pile on the oldest turn (9D, which joined 9S 9H then: a melding
    # take, factor 1). Every turn leaves 26 points or more (no knock passed up); the later two
    # are explained by drawing KS and KH and throwing them at once; throwing 2D on the oldest is
    # not its least-deadwood discard (QS is): 0.02 / 0.82. (That 9D is never a later stock draw
    # does not change this case; the next test is the one that shows it.)
    k = knowledge([(idx("9D"), idx("2D")), (None, idx("KH")), (None, idx("KS"))], passed=[None] * 3)
    held = mask("2C 3C 4C 9S 9H 9D JD QS 8H 6D")  # 2C-4C, three 9s; JD QS 8H 6D loose: 34
    assert turn_likelihood(held, k, s, rules(), depth=2) == pytest.approx(1.0)
    assert turn_likelihood(held, k, s, rules(), depth=3) == pytest.approx(0.02 / 0.82)
    with pytest.raises(ValueError):
        turn_likelihood(held, k, s, rules(), depth=3, beam=0)


def test_a_card_taken_earlier_is_never_explained_as_a_later_draw():
    # It took QH on its oldest turn and threw QD, then drew twice from the stock and threw QC,
    # then 10D. Its hand now (none of these cards melds; no knock is ever open to it):
    hand10 = mask("5D 7S 5H AH 3S 6H 7D 8S JH QH")
    k = knowledge([(idx("QH"), idx("QD")), (None, idx("QC")), (None, idx("10D"))], passed=[None] * 3)
    # QH was in its hand at both later turns, the highest of its loose cards (a queen, and of
    # the queens the highest card by index: hearts above diamonds and clubs). So throwing QC and
    # then 10D were not its least-deadwood discards: 0.02 / 0.82 each, whatever it drew. The
    # oldest turn is best explained by drawing QC and 10D since (each thrown at once): it held
    # its hand now less 10D plus QD, where QD is its least-deadwood discard (QH may not be thrown,
    # R6.3): 1; and QH joined no meld then, a loose take: 0.2 / 0.8.
    assert turn_likelihood(hand10, k, Style(), rules(), depth=3) == pytest.approx(
        (0.02 / 0.82) ** 2 * 0.25)
    # Were QH allowed as one of the later draws, both later turns would look well played (about
    # 164 times likelier): the reconstruction must not do that.


def test_play_out_uses_the_opponents_threshold():
    # The opponent (seat 1 of the playout) passes KH (no meld, no knock), draws JC (9C-JC run) and
    # throws KD, keeping AD: 1 point. The baseline knocks with it against seat 0's 3D: seat 0
    # loses 3 - 1 = 2 (3D lays off on nothing). With a threshold of 0 it does not knock, and with
    # 2 cards left in the stock after its discard the round is a wall (R8): 0.
    me = mask("AS 2S 3S 4S 5S 6S 7S 8S 9S 3D")
    opp = mask("2C 3C 4C 7H 7D 7C 9C 10C AD KD")
    stock = [idx("5D"), idx("QH"), idx("JC")]  # the top is last
    pile = [idx("KH")]
    assert play_out([me, opp], list(stock), list(pile), 1, "draw", 0, rules(10)) == -2
    hunter = SimRules(10, 25, 25, 1, True, opp_threshold=0)
    assert play_out([me, opp], list(stock), list(pile), 1, "draw", 0, hunter) == 0


def test_the_search_samples_likely_hands_more_often_and_never_rules_one_out():
    # In simple-vs-simple rounds the real hand of the (baseline) opponent is never given
    # likelihood 0, and the adaptive sampler's hands explain its turns better than plain draws.
    rng = random.Random(9)
    p = StrongPolicy(seed=1, time_budget=None, max_iterations=4)
    plain = drawn = 0.0
    n = 0
    for state, seat, view in baseline_rounds(rng, 3):
        k = read_knowledge(view)
        if k.opp_turns and view.phase == "discard":
            r = rules(view.knock_limit, True)
            real = cards_mask(state.round.hands[1 - seat])
            assert turn_likelihood(real, k, Style(), r) > 0
            unseen = mask_indices(k.unseen)
            for i in range(3):
                opp, stock = p._sample(k, r, random.Random(i), unseen, [])
                assert len(stock) + bin(opp & ~k.opp_known).count("1") == len(unseen)
                drawn += turn_likelihood(opp, k, Style(), r)
                plain += turn_likelihood(sample_hidden(k, random.Random(100 + i), unseen)[0], k, Style(), r)
                n += 1
    assert n > 15
    # Measured with these seeds: mean likelihood 0.77 for the sampler's hands (0.62 with
    # evolve_baseline 0), 0.31 for plain weighted draws, over 108 samples each.
    assert drawn / n > 1.5 * plain / n


def test_replayed_draws_against_a_baseline_opponent_bring_samples_closer_to_its_real_hands():
    # evolve_baseline replays a share of a baseline opponent's stock draws on each drawn hand
    # (it never passes up a knock, so evolve alone does nothing against it). Over simple-vs-simple
    # rounds the samples' least deadwood comes down towards the real hands' and the samples hold
    # more of the real hidden cards; the determinization stays consistent with the view.
    rng = random.Random(11)
    plain = StrongPolicy(seed=1, time_budget=None, max_iterations=4, evolve_baseline=0.0)
    replay = StrongPolicy(seed=1, time_budget=None, max_iterations=4)  # the default: 0.25
    real_dw = 0
    sums = {"plain": [0, 0.0], "replay": [0, 0.0]}  # least deadwood, real cards held
    n = 0
    for state, seat, view in baseline_rounds(rng, 6):
        k = read_knowledge(view)
        if view.phase == "discard" and sum(1 for t, _ in k.opp_turns if t is None) >= 2:
            r = rules(view.knock_limit, True)
            real = cards_mask(state.round.hands[1 - seat])
            unseen = mask_indices(k.unseen)
            for name, p in (("plain", plain), ("replay", replay)):
                p._style = p.style_estimate()
                assert not p._opponent_waits(r)  # the prior: a baseline opponent
                for i in range(4):
                    opp, stock = p._sample(k, r, random.Random(i), unseen, [])
                    assert opp & k.opp_known == k.opp_known and bin(opp).count("1") == 10
                    assert sorted(stock + mask_indices(opp & ~k.opp_known)) == unseen
                    sums[name][0] += min_deadwood(opp)
                    sums[name][1] += bin(opp & real & ~k.opp_known).count("1")
            real_dw += 4 * min_deadwood(real)
            n += 4
    assert n > 100
    # Measured with these seeds (332 samples): the real hands' least deadwood 28.4 points on
    # average, plain samples 30.6, with replays 26.8; real hidden cards held 4.04 against 4.22.
    assert abs(sums["replay"][0] - real_dw) < abs(sums["plain"][0] - real_dw)
    assert sums["replay"][1] > sums["plain"][1]


def test_evolve_hand_keeps_the_cards_and_never_raises_the_deadwood():
    # Each replayed draw takes a stock card into the hand and throws the least-deadwood discard
    # (R2.4) back: the hand stays ten cards, the cards the seat knows it holds stay, no card is
    # lost or made up, and the least deadwood never goes up.
    from games.engine.ai.strong import evolve_hand
    rng = random.Random(5)
    for trial in range(40):
        deck = list(range(52))
        rng.shuffle(deck)
        hand = sum(1 << i for i in deck[:10])
        keep = (1 << deck[0]) | (1 << deck[1])
        stock = deck[10:40]
        before = min_deadwood_of(hand)
        new, pool = evolve_hand(hand, stock, keep, trial % 12, random.Random(trial))
        assert bin(new).count("1") == 10 and new & keep == keep
        assert sorted(pool + mask_indices(new)) == sorted(stock + mask_indices(hand))
        assert min_deadwood_of(new) <= before
    same, pool = evolve_hand(hand, stock, keep, 0, random.Random(1))
    assert same == hand and pool == stock


def min_deadwood_of(hand: int) -> int:
    from games.engine.ai.playout import min_deadwood
    return min_deadwood(hand)


def test_samples_are_evolved_only_for_an_opponent_that_passes_up_knocks():
    # ``evolve``: against an opponent whose estimated threshold is below the knock limit (here a
    # gin hunter, learned from two declined knocks and a gin), a sampled hand is improved by
    # replaying half its stock draws; against the prior (the baseline, which knocks when it may)
    # the samples are those of evolve=0, draw for draw.
    states = played_round()
    view = player_view(states[4], 0)  # seat 0 to draw, after seat 1 drew from the stock and threw KH
    k = read_knowledge(view)
    assert [t for t, _ in k.opp_turns] == [None]
    unseen = mask_indices(k.unseen)
    r = rules(view.knock_limit)

    def samples(evolve, model):
        p = StrongPolicy(seed=1, time_budget=None, max_iterations=4, evolve=evolve)
        p.model = model
        p._style = model.style()
        rr = SimRules(r.knock_limit, 25, 25, 1, True, opp_threshold=p._style.threshold)
        rng = random.Random(3)
        return [p._sample(k, rr, rng, unseen, []) for _ in range(60)]

    assert samples(0.5, OpponentModel()) == samples(0.0, OpponentModel())
    hunter = OpponentModel()
    hunter.learn_round(result(1, 0, HELD_7), 0)
    hunter.learn_round(result(2, 0, HELD_4), 0)
    hunter.learn_round(result(3, 1, GIN), 0)
    plain, evolved = samples(0.0, hunter), samples(2.0, hunter)
    assert plain != evolved
    for opp, stock in evolved:
        assert len(stock) + bin(opp).count("1") == len(unseen)
    mean = [sum(min_deadwood_of(o) for o, _ in s) / len(s) for s in (plain, evolved)]
    assert mean[1] < mean[0]
