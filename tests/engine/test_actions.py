"""Actions read their melds once at the boundary and say which part of the input is wrong
(mutation testing found these messages unprotected: see docs/mutation.md)."""
import pytest

from games.engine import Card, CardParseError, Knock, MalformedAction

from .support import C

KH = Card.parse("KH")


@pytest.mark.parametrize("melds, message", [
    # A string is iterable (its characters), but it is not a list of melds.
    ("7S 7D 7C", "melds must be a list, got '7S 7D 7C'"),
    (5, "melds must be an iterable, got 5"),
    # Each meld is a list of cards, not a string of codes.
    (["7S 7D 7C"], "a meld must be a list, got '7S 7D 7C'"),
    ([C("7S 7D 7C"), 5], "a meld must be an iterable, got 5"),
    # Cards are Card values, not their codes.
    ([["7S", "7D", "7C"]], "a meld's card must be a Card (Card.parse('7H')), got '7S'"),
])
def test_knock_melds_of_the_wrong_shape_name_the_part_that_is_wrong(melds, message):
    with pytest.raises(MalformedAction) as err:
        Knock(KH, melds)
    assert err.value.message == message
    assert err.value.code == MalformedAction.code


@pytest.mark.parametrize("rank, suit", [
    (True, "S"),   # a bool is not a rank, though True == 1
    (1.0, "S"),    # nor a float
    (0, "S"), (14, "S"),
    (5, "CD"),     # "CD" is in "CDHS" as a substring: only one letter is a suit
    (5, ""),       # so is the empty string
    (5, "X"), (5, None),
])
def test_from_rank_suit_refuses_anything_but_a_rank_and_one_suit_letter(rank, suit):
    with pytest.raises(CardParseError) as err:
        Card.from_rank_suit(rank, suit)
    assert err.value.message == f"no such card: rank {rank!r} suit {suit!r}"


@pytest.mark.rule("R1.2", "R1.3")
def test_from_rank_suit_gives_the_card_of_that_rank_and_suit():
    """R1.2/R1.3: rank 1 is the ace, 11-13 J Q K; index suit*13 + rank - 1 with suits C D H S."""
    assert Card.from_rank_suit(1, "C") is Card.parse("AC")
    assert Card.from_rank_suit(13, "S") is Card.parse("KS")
    assert Card.from_rank_suit(11, "D") is Card.parse("JD")
    assert Card.from_rank_suit(10, "H").index == 2 * 13 + 9


def test_a_knock_of_a_card_code_names_the_knock_card():
    with pytest.raises(MalformedAction) as err:
        Knock("7H")
    assert err.value.message == "a knock's card must be a Card (Card.parse('7H')), got '7H'"


@pytest.mark.parametrize("index", [True, 1.0, -1, 52])
def test_from_index_refuses_anything_but_0_to_51(index):
    with pytest.raises(CardParseError) as err:
        Card.from_index(index)
    assert err.value.message == f"card index out of range: {index!r}"
