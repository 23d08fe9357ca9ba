"""Cards (R1): codes, ranks, suits, point values, errors naming the input."""
import pickle
import random

import pytest

from games.engine import (FULL_DECK, Card, CardParseError, EngineError, MalformedAction, apply,
                          cards_mask, mask_cards, new_match, parse_cards, shuffled_deck, sort_cards,
                          validate_deck)
from games.engine.cards import card_codes

from .support import start


@pytest.mark.rule("R1.2")
def test_r1_2_deck_has_52_distinct_cards_of_13_ranks_in_4_suits():
    """R1.2: one standard deck, ranks A..K in clubs, diamonds, hearts, spades."""
    assert len(FULL_DECK) == 52
    assert len(set(FULL_DECK)) == 52
    assert {c.suit for c in FULL_DECK} == set("CDHS")
    assert sorted({c.rank for c in FULL_DECK}) == list(range(1, 14))
    for suit in "CDHS":
        assert len([c for c in FULL_DECK if c.suit == suit]) == 13


@pytest.mark.parametrize("code,rank,suit", [
    ("AS", 1, "S"), ("2C", 2, "C"), ("9D", 9, "D"), ("10H", 10, "H"), ("TH", 10, "H"), ("th", 10, "H"),
    ("JC", 11, "C"), ("QD", 12, "D"), ("KS", 13, "S"), ("as", 1, "S"), (" 7h ", 7, "H"),
])
@pytest.mark.rule("R1.2")
def test_r1_2_parse_codes(code, rank, suit):
    """R1.2: short codes, "10H" and "TH" both mean the ten of hearts, case-insensitive."""
    card = Card.parse(code)
    assert (card.rank, card.suit) == (rank, suit)
    assert card is Card.from_rank_suit(rank, suit)


@pytest.mark.rule("R1.2")
def test_r1_2_code_round_trip_and_canonical_ten():
    """R1.2: every card round-trips through its code; the ten is written "10"."""
    for card in FULL_DECK:
        assert Card.parse(card.code) is card
        assert str(card) == card.code
        assert eval(repr(card)) is card  # repr is a constructor call
    assert Card.parse("TH").code == "10H"


@pytest.mark.parametrize("bad", ["", "X", "1H", "11H", "AX", "ZZ", "10", "H", "A S", "0S", "AS2", "KK"])
@pytest.mark.rule("R1.2")
def test_r1_2_bad_code_names_the_input(bad):
    """R1.2: a bad code raises CardParseError (code bad_card) quoting the input."""
    with pytest.raises(CardParseError) as info:
        Card.parse(bad)
    assert repr(bad) in str(info.value)
    assert info.value.code == "bad_card" and info.value.rule == "R1.2"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("bad", [None, 7, 3.5, ["AS"]])
@pytest.mark.rule("R1.2")
def test_r1_2_non_string_code_is_rejected(bad):
    with pytest.raises(CardParseError) as info:
        Card.parse(bad)
    assert repr(bad) in str(info.value)


def test_parse_cards_keeps_order_and_accepts_commas():
    assert card_codes(parse_cards("KS, 10H AC")) == ["KS", "10H", "AC"]
    with pytest.raises(CardParseError, match="'QX'"):
        parse_cards("AS QX")


def test_parse_cards_of_a_json_list_takes_any_spelling_and_refuses_what_parse_refuses():
    """A list (a game state's JSON form) is looked up in one pass when every code is exact; any
    other element goes through ``Card.parse`` as in a string or another iterable."""
    assert parse_cards(["AS", "10H", "KC"]) == (Card.from_index(39), Card.from_index(35), Card.from_index(12))
    assert parse_cards(["as", "TH", Card.parse("KC"), " 2d "]) == parse_cards("AS 10H KC 2D")
    assert parse_cards([]) == ()
    class Unhashable:
        def __hash__(self):
            raise ValueError("no hash")

    for bad in (["AS", "QX"], ["AS", 7], ["AS", None], ["AS", ["KC"]], ["AS", True], ["AS", Unhashable()]):
        with pytest.raises(CardParseError):
            parse_cards(bad)


@pytest.mark.rule("R1.3")
def test_r1_3_ace_is_low():
    """R1.3: the ace sits below the 2 (rank 1), never above the king."""
    ace, two, king = Card.parse("AH"), Card.parse("2H"), Card.parse("KH")
    assert ace.rank == 1 < two.rank == 2 < king.rank == 13


@pytest.mark.rule("R1.4")
def test_r1_4_point_values():
    """R1.4: ace 1, 2-10 face value, J Q K 10 each; a suit totals 1+2+...+10+30 = 85."""
    expected = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
                "J": 10, "Q": 10, "K": 10}
    for rank, value in expected.items():
        for suit in "CDHS":
            assert Card.parse(rank + suit).value == value
    assert sum(c.value for c in FULL_DECK) == 4 * 85


def test_cards_are_immutable_interned_and_picklable():
    card = Card.parse("QS")
    with pytest.raises(AttributeError):
        card.rank = 3
    assert pickle.loads(pickle.dumps(card)) is card
    assert Card.parse("qs") is card


def test_card_index_and_masks():
    """Index is suit(C,D,H,S)*13 + rank-1; masks round-trip."""
    assert Card.parse("AC").index == 0 and Card.parse("KS").index == 51 and Card.parse("AD").index == 13
    hand = parse_cards("KS 2C 10H")
    assert mask_cards(cards_mask(hand)) == sort_cards(hand) == parse_cards("2C 10H KS")
    with pytest.raises(CardParseError):
        Card.from_index(52)
    with pytest.raises(CardParseError):
        Card.from_rank_suit(14, "S")
    with pytest.raises(CardParseError):
        Card.from_rank_suit(1, "X")


@pytest.mark.rule("R4.1")
def test_r4_1_shuffled_deck_is_a_permutation():
    """R4.1: shuffling gives each of the 52 cards once; different seeds differ."""
    a = shuffled_deck(random.Random(1))
    b = shuffled_deck(random.Random(2))
    assert sorted(a) == sorted(b) == list(FULL_DECK)
    assert a != b
    assert sorted(shuffled_deck()) == list(FULL_DECK)


def test_validate_deck_rejects_wrong_decks():
    deck = [c.code for c in FULL_DECK]
    assert validate_deck(deck) == FULL_DECK
    with pytest.raises(CardParseError) as info:
        validate_deck(deck[:-1])
    assert info.value.code == "bad_deck"
    with pytest.raises(CardParseError) as info:
        validate_deck(deck[:-1] + ["AC"])
    assert info.value.code == "bad_deck"
    with pytest.raises(CardParseError) as info:
        validate_deck(deck[:-1] + ["ZZ"])
    assert info.value.code == "bad_card" and "'ZZ'" in str(info.value)


@pytest.mark.rule("R1.1")
def test_r1_1_two_players_only():
    """R1.1: seats are 0 and 1; anything else is refused."""
    with pytest.raises(ValueError):
        new_match(first_dealer=2)
    state = start("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D", "KS")
    for seat in (2, -1, None):
        with pytest.raises(MalformedAction) as info:
            apply(state, seat, {"type": "pass"})
        assert isinstance(info.value, EngineError) and info.value.code == "malformed_action"
