"""The review of decisions by the strong evaluator (games/engine/review.py, issue 16), on hand-built
views: a gin passed up, the gin knock itself, the shown summary, the arguments refused."""
import pytest

from games.engine import (BadArgument, Discard, DrawStock, Knock, PassUpcard, RuleSet, apply, deal, new_match,
                          parse_cards, player_view)
from games.engine.review import (MISTAKE_POINTS, DecisionReview, ReviewMove, decision_review, match_review,
                                 review_summary)
from tests.helpers import deck_for

# Seat 0 (non-dealer) holds the 9-card club run and 5H; both pass the upcard 6D; seat 0 draws 10C
# from the stock: AC..10C is a 10-card run, so knocking with 5H is gin (R7.7).
DECK = deck_for(nondealer="AC 2C 3C 4C 5C 6C 7C 8C 9C 5H", dealer="7S 8S 9S 2H 2D 2S KD QH JH 3D",
                upcard="6D", stock_top="10C")
C = {c.code: c for c in parse_cards("5H 10C")}


def _view_after_drawing():
    state, _ = deal(new_match(RuleSet(), 1), DECK)
    for seat, action in ((0, PassUpcard()), (1, PassUpcard()), (0, DrawStock())):
        state, _ = apply(state, seat, action)
    return state, player_view(state, 0)


def test_passing_up_gin_is_a_mistake_against_the_gin_knock():
    _state, view = _view_after_drawing()
    r = decision_review(view, Discard(C["10C"]), iterations=64)
    assert r.best_action == {"type": "knock", "card": "5H", "melds": None}
    assert r.expected_loss > MISTAKE_POINTS and r.mistake and r.standard_error >= 0
    assert r.phase == "discard" and r.round == 1 and r.upcard.code == "6D"  # both passed the upcard
    assert {c.code for c in r.hand} == set("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C 5H".split())
    assert r.candidates >= 2 and r.samples == max(2, 64 // r.candidates)


def test_the_gin_knock_itself_costs_nothing_and_is_not_searched():
    _state, view = _view_after_drawing()
    r = decision_review(view, Knock(C["5H"]), iterations=64)
    assert (r.expected_loss, r.standard_error, r.candidates, r.samples) == (0.0, 0.0, 1, 0)
    assert r.best_action == r.action == {"type": "knock", "card": "5H", "melds": None} and not r.mistake


def test_match_review_skips_forced_moves_and_other_seats():
    moves = [ReviewMove(1, 0, {"type": "pass"}), ReviewMove(2, 1, {"type": "pass"}),
             ReviewMove(3, 0, {"type": "draw_stock"}), ReviewMove(4, 0, {"type": "knock", "card": "5H"})]
    seen = []
    out = match_review(rules=RuleSet(), first_dealer=1, decks=[DECK], moves=moves, seat=0, iterations=16,
                       progress=lambda done, total: seen.append((done, total)))
    assert [d.seq for d in out] == [1, 4]  # seq 3 is forced (R5.4); seq 2 is the other seat's
    assert seen == [(0, 2), (1, 2), (2, 2)]
    auto = [ReviewMove(1, 0, {"type": "pass"}, auto_played=True), *moves[1:]]
    assert [d.seq for d in match_review(rules=RuleSet(), first_dealer=1, decks=[DECK], moves=auto, seat=0,
                                        iterations=16)] == [4]


def _d(round_, seq, loss):
    return DecisionReview(round=round_, seq=seq, phase="discard", hand=(), upcard=None, action={}, best_action={},
                          expected_loss=loss, standard_error=1.0, samples=4, candidates=2)


def test_summary_counts_mistakes_and_keeps_the_three_costliest_per_round():
    ds = [_d(1, 1, 0.0), _d(1, 3, 4.5), _d(1, 5, 3.0), _d(1, 7, 12.25), _d(1, 9, 1.0), _d(2, 2, 3.5)]
    s = review_summary(ds)
    assert s["mistakes"] == 3  # 4.5, 12.25 and 3.5 are above 3.0; 3.0 itself is not
    assert s["mistake_threshold"] == 3.0 and s["expected_loss"] == 24.25
    r1, r2 = s["rounds"]
    assert (r1["round"], r1["decisions"], r1["mistakes"], r1["expected_loss"]) == (1, 5, 2, 20.75)
    assert [d["seq"] for d in r1["costliest"]] == [7, 3, 5]
    assert (r2["round"], r2["decisions"], r2["mistakes"], [d["seq"] for d in r2["costliest"]]) == (2, 1, 1, [2])


def test_bad_arguments_are_refused():
    _state, view = _view_after_drawing()
    with pytest.raises(BadArgument):
        decision_review(view, DrawStock(), iterations=8)  # not legal in the discard phase
    with pytest.raises(BadArgument):
        decision_review(view, Discard(C["10C"]), iterations=0)
    with pytest.raises(BadArgument):
        match_review(rules=RuleSet(), first_dealer=1, decks=[DECK], moves=[], seat=2, iterations=8)
