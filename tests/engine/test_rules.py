"""The rule set (RULES.md "Variants") and the knock limit (R4.4)."""
import json

import pytest

from games.engine import Card, RuleSet, RuleSetError


def test_defaults_reproduce_the_seed_sheets():
    r = RuleSet()
    assert (r.variant, r.knock_limit, r.gin_bonus, r.undercut_bonus, r.target_score) == (
        "oklahoma", "upcard", 25, 10, 100)
    assert r.forbid_discarding_drawn_upcard is True
    assert r.spade_doubles is False and r.ace_requires_gin is False
    assert RuleSet(variant="classic").knock_limit == 10


@pytest.mark.parametrize("upcard,limit", [
    ("AS", 1), ("AH", 1), ("2C", 2), ("6D", 6), ("9H", 9), ("10S", 10), ("JC", 10), ("QD", 10), ("KH", 10),
])
@pytest.mark.rule("R4.4", "R1.4")
def test_r4_4_oklahoma_knock_limit_is_the_upcard_value(upcard, limit):
    """R4.4: Oklahoma: the first upcard's value (R1.4) is the knock limit; J Q K and 10 allow 10."""
    assert RuleSet().knock_limit_for(Card.parse(upcard)) == limit


@pytest.mark.parametrize("upcard", ["AS", "6D", "KH"])
@pytest.mark.rule("R4.4")
def test_r4_4_classic_knock_limit_is_always_ten(upcard):
    """R4.4: classic Gin Rummy: always 10, whatever the upcard."""
    assert RuleSet(variant="classic").knock_limit_for(Card.parse(upcard)) == 10
    assert RuleSet(variant="classic", knock_limit=7).knock_limit_for(Card.parse(upcard)) == 7


def test_ace_requires_gin_makes_an_ace_upcard_limit_zero():
    rules = RuleSet(ace_requires_gin=True)
    assert rules.knock_limit_for(Card.parse("AD")) == 0
    assert rules.knock_limit_for(Card.parse("2D")) == 2
    assert RuleSet().knock_limit_for(Card.parse("AD")) == 1


def test_spade_doubles_multiplier():
    rules = RuleSet(spade_doubles=True)
    assert rules.multiplier_for(Card.parse("7S")) == 2
    assert rules.multiplier_for(Card.parse("7H")) == 1
    assert RuleSet().multiplier_for(Card.parse("7S")) == 1


def test_rule_set_json_round_trip():
    for rules in (RuleSet(), RuleSet(variant="classic"), RuleSet(gin_bonus=20, target_score=250,
                  spade_doubles=True, ace_requires_gin=True, forbid_discarding_drawn_upcard=False)):
        assert RuleSet.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert RuleSet.from_dict(None) == RuleSet()


@pytest.mark.parametrize("data", [
    {"variant": "canasta"}, {"knock_limit": 11}, {"knock_limit": -1}, {"knock_limit": "six"},
    {"knock_limit": True}, {"variant": "classic", "knock_limit": "upcard"}, {"gin_bonus": -5},
    {"undercut_bonus": "10"}, {"target_score": 0}, {"spade_doubles": "yes"}, {"frobnicate": 1},
    {"variant": "classic", "spade_doubles": True}, {"variant": "classic", "ace_requires_gin": True},
])
def test_bad_rule_sets_are_refused(data):
    with pytest.raises(RuleSetError) as info:
        RuleSet.from_dict(data)
    assert info.value.code == "bad_rules"
