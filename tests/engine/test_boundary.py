"""The engine checks its inputs at its boundary (issue 15): action classes validate their fields
when built, melds are read once into tuples, ``deal`` takes nothing but the 52 distinct cards,
``RuleSet`` refuses contradicting options, and every public function given arbitrary Python
values raises only :class:`EngineError` subclasses and changes no state."""
import inspect
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games.engine as engine
from games.engine import (FULL_DECK, BadArgument, Card, CardParseError, Discard, DrawStock, EngineError, Event,
                          InvalidMeld, Knock, MalformedAction, MatchState, PassUpcard, RoundState, RuleSet,
                          RuleSetError, TakeUpcard, apply, best_defence, deal, legal_actions, mask_cards,
                          new_match, player_view, replay, shuffled_deck)

from .support import C, deck_for, play, start

# ---------------------------------------------------------------------------------------------
# Actions validate their fields when built


@pytest.mark.parametrize("build", [
    lambda: Discard("7H"),
    lambda: Discard(None),
    lambda: Discard(19),
    lambda: Knock("7H"),
    lambda: Knock(Card.parse("7H"), melds=5),
    lambda: Knock(Card.parse("7H"), melds="7S 7D 7C"),
    lambda: Knock(Card.parse("7H"), melds=[["7S", "7D", "7C"]]),
    lambda: Knock(Card.parse("7H"), melds=["7S 7D 7C"]),
    lambda: Knock(Card.parse("7H"), melds=[C("7S 7D"), 5]),
    lambda: Knock(Card.parse("7H"), melds={"a": C("7S 7D 7C")}),
])
def test_malformed_actions_are_refused_when_built(build):
    with pytest.raises(MalformedAction) as info:
        build()
    assert isinstance(info.value, EngineError) and info.value.code == "malformed_action"


def test_melds_of_any_iterable_are_read_once_into_tuples():
    melds = [list(C("2C 3C 4C")), iter(C("5D 5H 5S"))]
    knock = Knock(Card.parse("KH"), melds)
    assert knock.melds == (C("2C 3C 4C"), C("5D 5H 5S"))
    assert knock == Knock(Card.parse("KH"), (C("2C 3C 4C"), C("5D 5H 5S")))
    assert hash(knock) == hash(Knock(Card.parse("KH"), (C("2C 3C 4C"), C("5D 5H 5S"))))


def test_r7_6_melds_given_as_a_generator_keep_their_lay_offs():
    """Knocker 2-3-4C, 5D 5H 5S, 9C 9D 9H and AS (1 deadwood) knocks discarding KH, its melds passed
    as a generator. Defender AC 5C 9S 7D 3H JC QH KD 2D 4S: no meld, 61 points; lays off AC and 5C
    on the club run and 9S on the nines (R7.6): 61 - 15 = 46 left. Knock: 46 - 1 = 45 (R9.2).
    (Validation used to consume the generator: no melds to lay off on, 61 - 1 = 60.)"""
    state = start("2C 3C 4C 5D 5H 5S 9C 9D 9H AS", "AC 5C 9S 7D 3H JC QH KD 2D 4S", "6D", "KH")
    state = play(state, (1, PassUpcard()), (0, PassUpcard()), (1, DrawStock()))
    melds = (C(m) for m in ("2C 3C 4C", "5D 5H 5S", "9C 9D 9H"))
    state, _ = apply(state, 1, Knock(Card.parse("KH"), melds))
    res = state.results[-1]
    assert (res.outcome, res.winner, res.points) == ("knock", 1, 45)
    assert sorted(c.code for c, _ in res.lay_offs) == ["5C", "9S", "AC"]
    assert len(res.knocker_melds) == 3


# ---------------------------------------------------------------------------------------------
# deal() and the deck


def dealable():
    return new_match(RuleSet(), 0)


@pytest.mark.parametrize("deck", [
    None, 5, "AS 2S", list(FULL_DECK[:51]), list(FULL_DECK[:51]) + [FULL_DECK[0]],
    list(FULL_DECK) + [FULL_DECK[0]], set(FULL_DECK), {c.code: 1 for c in FULL_DECK},
    " ".join(c.code for c in FULL_DECK), [c.index for c in FULL_DECK],
])
def test_deal_refuses_anything_but_52_distinct_cards(deck):
    state = dealable()
    before = state.to_dict()
    with pytest.raises(CardParseError) as info:
        deal(state, deck)
    assert info.value.code in ("bad_deck", "bad_card")
    assert state.to_dict() == before


def test_deal_accepts_any_ordered_iterable_of_the_52_cards():
    deck = shuffled_deck(random.Random(4))
    a, _ = deal(dealable(), deck)
    b, _ = deal(dealable(), iter([c.code for c in deck]))
    assert a.to_dict() == b.to_dict()
    assert a.round.hands[1] == tuple(sorted(deck[:10], key=lambda c: c.index))  # non-dealer (R4.2)


# ---------------------------------------------------------------------------------------------
# RuleSet contradictions


@pytest.mark.parametrize("options", [
    {"knock_limit": 5, "ace_requires_gin": True},
    {"knock_limit": 0, "ace_requires_gin": True},
    {"knock_limit": 10, "ace_requires_gin": True, "spade_doubles": True},
    {"variant": "classic", "ace_requires_gin": True},
    {"variant": "classic", "spade_doubles": True},
    {"variant": "classic", "knock_limit": "upcard"},
])
def test_rule_sets_that_contradict_themselves_are_refused(options):
    with pytest.raises(RuleSetError) as info:
        RuleSet(**options)
    assert info.value.code == "bad_rules"
    with pytest.raises(RuleSetError):
        RuleSet.from_dict(options)


def test_consistent_option_combinations_are_kept():
    assert RuleSet(ace_requires_gin=True, spade_doubles=True).knock_limit == "upcard"
    assert RuleSet(knock_limit=5, spade_doubles=True).knock_limit_for(Card.parse("AS")) == 5
    assert RuleSet(variant="classic", knock_limit=0).knock_limit_for(Card.parse("KS")) == 0


# ---------------------------------------------------------------------------------------------
# Other arguments


def test_card_constructor_gives_the_interned_card():
    assert Card(3) is Card.parse("4C")
    with pytest.raises(CardParseError):
        Card(52)
    with pytest.raises(CardParseError):
        Card(True)


@pytest.mark.parametrize("call", [
    lambda s: legal_actions("state"),
    lambda s: legal_actions(s, 2),
    lambda s: player_view(s, True),
    lambda s: player_view(s.to_dict(), 0),
    lambda s: apply(s.to_dict(), 1, PassUpcard()),
    lambda s: mask_cards(-1),
    lambda s: mask_cards(1 << 52),
    lambda s: new_match({"variant": "classic"}, 0),
    lambda s: new_match(None, 1.0),
    lambda s: MatchState.from_dict({**s.to_dict(), "scores": "ab"}),
    lambda s: MatchState.from_dict({**s.to_dict(), "round": {**s.to_dict()["round"], "stock": []}}),
    lambda s: RoundState.from_dict([1, 2]),
    lambda s: Event.from_dict({"type": "discarded"}),
    lambda s: best_defence([C("2C 3C 4C")], C("3C 9H")),
    lambda s: engine.best_arrangement(FULL_DECK[:12]),
    lambda s: engine.best_arrangement(C("AS AS 2S")),
    lambda s: replay(RuleSet(), 0, [], [(1, PassUpcard())]),
    lambda s: replay(RuleSet(), 0, [deck_for("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D",
                                             "KS")], [PassUpcard()]),
])
def test_arguments_of_the_wrong_type_raise_bad_argument(call):
    state = start("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D", "KS")
    with pytest.raises(BadArgument) as info:
        call(state)
    assert info.value.code == "bad_argument"


def test_knocker_melds_must_be_valid_and_disjoint():
    with pytest.raises(InvalidMeld):
        best_defence([C("2C 3C 5C")], C("9H"))
    with pytest.raises(InvalidMeld):
        best_defence([C("2C 3C 4C"), C("4C 4D 4H")], C("9H"))


# ---------------------------------------------------------------------------------------------
# Every public function, arbitrary values


def _states():
    """States in every phase: waiting for a deal, each phase of a round, between rounds, match over."""
    rng = random.Random(15)
    out = [new_match(RuleSet(), 0), new_match(RuleSet(variant="classic", knock_limit=3), 1)]
    for seed in range(3):
        state, _ = deal(new_match(RuleSet(target_score=30), seed % 2), shuffled_deck(rng))
        while state.phase != "match_over" and len(out) < 8 + seed * 12:
            if state.phase == "deal":
                state, _ = deal(state, shuffled_deck(rng))
            out.append(state)
            acts = legal_actions(state)
            knocks = [a for a in acts if isinstance(a, Knock)]
            state, _ = apply(state, state.to_act, knocks[0] if knocks else rng.choice(acts))
        out.append(state)
    return out


STATES = _states()
CARD = st.sampled_from(FULL_DECK)
HAND = st.lists(CARD, max_size=11, unique=True)
ACTIONS = [TakeUpcard(), PassUpcard(), DrawStock(), engine.DrawDiscard(), Discard(FULL_DECK[7]),
           Knock(FULL_DECK[7]), Knock(FULL_DECK[9], (C("2C 3C 4C"),))]
JSON_FORMS = ([s.to_dict() for s in STATES[:6]] + [a.to_dict() for a in ACTIONS]
              + [player_view(STATES[4], 0).to_dict(), RuleSet().to_dict()]
              + [r.to_dict() for s in STATES for r in s.results[:1]])


def _damaged(d):
    """A JSON form with one key dropped or one value replaced."""
    return st.one_of(
        st.sampled_from(sorted(d)).map(lambda k: {x: v for x, v in d.items() if x != k}),
        st.tuples(st.sampled_from(sorted(d)), LEAF).map(lambda kv: {**d, kv[0]: kv[1]}),
    ) if d else st.just(d)


LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 60), st.integers(), st.floats(allow_nan=True),
    st.text(max_size=5), st.binary(max_size=3), st.sampled_from([c.code for c in FULL_DECK] + ["10X", "", "T H"]),
    CARD, st.sampled_from(STATES), st.sampled_from(ACTIONS),
    st.sampled_from([RuleSet(), RuleSet(variant="classic"), random.Random(1)]),
)
ANYTHING = st.recursive(
    st.one_of(LEAF, HAND, HAND.map(iter), st.sampled_from(JSON_FORMS),
              st.sampled_from(JSON_FORMS).flatmap(_damaged),
              st.permutations(FULL_DECK), st.lists(HAND, max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.one_of(st.text(max_size=6), st.integers()), inner, max_size=3),
                            st.lists(inner, max_size=4).map(iter)),
    max_leaves=12,
)

# What the fuzz test calls for each kind of public name.
OUTPUT_VALUES = {"Arrangement", "Defence", "KnockOption", "RoundResult", "PlayerView"}  # built by the engine
CONSTANTS = {"ACTION_TYPES", "FULL_DECK", "Action"}


def _targets():
    """``(label, callable)`` for every public function, validated constructor, classmethod and
    method of the engine's ``__all__``; fails if a public name is left unclassified."""
    out = []
    for name in engine.__all__:
        obj = getattr(engine, name)
        if name in CONSTANTS:
            continue
        if inspect.isclass(obj) and issubclass(obj, EngineError):
            continue  # errors are the engine's output
        if inspect.isfunction(obj):
            out.append((name, obj))
            continue
        assert inspect.isclass(obj), f"unclassified public name {name}"
        if name not in OUTPUT_VALUES:
            out.append((name, obj))
        for attr in ("from_dict", "parse", "from_index", "from_rank_suit"):
            if attr in vars(obj):
                out.append((f"{name}.{attr}", getattr(obj, attr)))
    rules = RuleSet()
    out += [("RuleSet.knock_limit_for", rules.knock_limit_for), ("RuleSet.multiplier_for", rules.multiplier_for)]
    return out


TARGETS = _targets()


def _arity(fn):
    sig = inspect.signature(fn)
    required = [p for p in sig.parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    optional = [p for p in sig.parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is not p.empty]
    keyword = [p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY]
    return len(required), len(optional), keyword


def _snapshot(values):
    """What must not change: the JSON form of every engine state among the arguments (nested in
    lists and tuples too) and the repr of every list and dict argument."""
    snap = []
    for v in values:
        if isinstance(v, (list, tuple)):
            snap.append(_snapshot(v))
        if hasattr(v, "to_dict") and not inspect.isclass(v):
            snap.append(json.dumps(v.to_dict(), sort_keys=True, default=str))
        elif isinstance(v, (list, dict)):
            snap.append(repr(v))
    return snap


def test_the_fuzzed_targets_cover_the_public_api():
    labels = {label for label, _ in TARGETS}
    for name in ("apply", "deal", "legal_actions", "replay", "new_match", "player_view", "best_defence",
                 "Discard", "Knock", "RuleSet", "Card", "MatchState", "MatchState.from_dict",
                 "PlayerView.from_dict", "action_from_dict", "validate_deck", "mask_cards"):
        assert name in labels
    assert len(TARGETS) >= 45


@pytest.mark.parametrize("label,fn", TARGETS, ids=[label for label, _ in TARGETS])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_public_functions_raise_only_engine_errors_and_change_nothing(label, fn, data):
    n_required, n_optional, keyword = _arity(fn)
    n = n_required + data.draw(st.integers(0, n_optional), label="optional")
    args = [data.draw(ANYTHING, label=f"arg{i}") for i in range(n)]
    kwargs = {k: data.draw(ANYTHING, label=k) for k in keyword if data.draw(st.booleans(), label=f"pass {k}")}
    before = _snapshot(args + list(kwargs.values()))
    try:
        fn(*args, **kwargs)
    except EngineError:
        pass
    assert _snapshot(args + list(kwargs.values())) == before
