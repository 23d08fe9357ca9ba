"""Hidden information: ``player_view`` is the only door; a seat never sees the opponent's unknown
cards, the stock or the deck. Views round-trip through JSON and carry what a bot needs to play."""
import json
import random

import pytest

from games.engine import (Card, DrawStock, PassUpcard, PlayerView, RuleSet, TakeUpcard, apply, deal,
                          legal_actions, new_match, player_view, public_view, shuffled_deck)
from games.engine.cards import card_codes

from .support import CODES, C, choose, play, start, walk_strings

MELDED = "2C 3C 4C 5D 5H 5S 9C 9D 9H"
DEF65 = "AH 3H 7D 8S 10S JC QH KD 4S 2D"


def secret_cards(state, seat):
    """Cards ``seat`` (None: the public) must not see: the stock, and each other hand minus the cards
    its holder is known to hold (taken from the discard pile)."""
    r = state.round
    secret = set(r.stock)
    for s in (0, 1):
        if s != seat:
            secret |= set(r.hands[s]) - set(r.known[s])
    return {c.code for c in secret}


def check_view(state, seat):
    view = player_view(state, seat)
    data = view.to_dict()
    text = json.dumps(data)
    assert "deck" not in data and "stock" not in data
    if state.results:
        assert data["last_result"] == state.results[-1].to_dict()
    else:
        assert data["last_result"] is None
    if state.round is None:
        assert data["hand"] == [] and data["discard_pile"] == []
        return view
    shown = {s for s in walk_strings(data, skip_keys=("last_result",)) if s in CODES}
    leaked = shown & secret_cards(state, seat)
    assert not leaked, f"seat {seat} sees {sorted(leaked)}"
    r = state.round
    if seat is not None:
        assert data["hand"] == card_codes(r.hands[seat])
        assert data["opponent_hand_size"] == len(r.hands[1 - seat])
        assert sorted(data["opponent_known_cards"]) == sorted(c.code for c in r.known[1 - seat])
        assert view.legal_actions == tuple(legal_actions(state, seat))
    else:
        assert data["hand"] == [] and data["legal_actions"] == []
    assert data["stock_size"] == len(r.stock)
    assert data["discard_pile"] == card_codes(r.discard_pile)
    assert PlayerView.from_dict(json.loads(text)) == view
    return view


@pytest.mark.parametrize("seed", range(12))
def test_views_never_show_hidden_cards_in_random_play(seed):
    """For every state of random matches, both seats' views and the public view hold no card code of
    the stock or of the opponent's hand beyond the cards known to be there; each view round-trips
    through JSON; a seat's legal actions are exactly the engine's."""
    rng = random.Random(seed)
    rules = RuleSet(variant="classic") if seed % 3 == 0 else RuleSet()
    state = new_match(rules, seed % 2)
    steps = 0
    while state.phase != "match_over" and steps < 250:
        if state.phase == "deal":
            state, _ = deal(state, shuffled_deck(rng))
        else:
            state, _ = apply(state, *choose(state, rng))
        for seat in (0, 1, None):
            check_view(state, seat)
        steps += 1


@pytest.mark.rule("R6.1")
def test_stock_draw_is_shown_to_the_drawer_only():
    """R6.1: the stock card drawn is in the drawer's history; the opponent and public see the draw
    but not the card."""
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    mine = player_view(state, 1).to_dict()["history"][-1]
    theirs = player_view(state, 0).to_dict()["history"][-1]
    public = public_view(state).to_dict()["history"][-1]
    assert mine == {"type": "drew_stock", "seat": 1, "card": "KH"}
    assert theirs == public == {"type": "drew_stock", "seat": 1}
    assert "KH" not in json.dumps(player_view(state, 0).to_dict())


@pytest.mark.rule("R5.1", "R6.1")
def test_card_taken_from_discard_pile_is_known_to_the_opponent():
    """R5.1, R6.1: the upcard taken is public: listed among the opponent's known cards."""
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH")
    state = play(state, (1, TakeUpcard()))
    view = player_view(state, 0)
    assert view.opponent_known_cards == C("6D")
    assert view.opponent_hand_size == 11
    assert view.to_dict()["opponent_known_cards"] == ["6D"]
    assert player_view(state, 1).legal_actions and not view.legal_actions


@pytest.mark.rule("R2.4")
def test_view_of_own_hand_shows_best_arrangement():
    """R2.4: a seat's view includes its own hand's best arrangement (a convenience for clients)."""
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH")
    data = player_view(state, 1).to_dict()
    assert data["deadwood_count"] == 6 and data["deadwood"] == ["6S"]
    assert sorted(sorted(m) for m in data["melds"]) == [["2C", "3C", "4C"], ["5D", "5H", "5S"], ["9C", "9D", "9H"]]
    assert data["knock_limit"] == 6 and data["first_upcard"] == "6D" and data["upcard"] == "6D"
    assert data["to_act"] == 1 and data["phase"] == "upcard"


@pytest.mark.rule("R7.4", "R7.5")
def test_after_the_round_both_hands_melds_and_lay_offs_are_revealed():
    """R7.4, R7.5: after a knock every view shows both hands, melds and lay-offs in last_result."""
    state = start(f"{MELDED} 6S", "3H 7D QH 2D JC QS AC 5C 9S 4H", "6D", "KH")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()), (1, {"type": "knock", "card": "KH"}))
    for seat in (0, 1, None):
        res = player_view(state, seat).to_dict()["last_result"]
        assert sorted(res["hands"][0]) == sorted("3H 7D QH 2D JC QS AC 5C 9S 4H".split())
        assert sorted(res["hands"][1]) == sorted(f"{MELDED} 6S".split())
        assert sorted(x["card"] for x in res["lay_offs"]) == ["5C", "9S", "AC"]
        assert res["discard"] == "KH"


def test_player_view_rejects_a_bad_seat():
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH")
    with pytest.raises(ValueError):
        player_view(state, 2)


def test_public_view_has_no_hand():
    state = start(f"{MELDED} 6S", DEF65, "6D", "KH")
    data = public_view(state).to_dict()
    assert data["hand"] == [] and data["seat"] is None and data["hand_sizes"] == [10, 10]
    assert not set(walk_strings(data)) & (set(f"{MELDED} 6S".split()) | set(DEF65.split()))
    assert Card.parse("6D").code in data["discard_pile"]
