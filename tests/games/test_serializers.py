"""Strict input: unknown fields are refused (not silently dropped) and integers must be JSON
integers; every refusal writes nothing."""
import pytest

from games.models import Game, IdempotencyRecord, Move


@pytest.fixture
def game(alice):
    return alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "first_dealer": 1},
                      format="json").json()  # alice (seat 0, not the dealer) acts first (R5)


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [{"bogus": 1}, {"variant": "classic", "knock_limit": 10, "extra": True}])
def test_unknown_rule_options_are_bad_rules(alice, rules):
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": rules}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_rules", r.content
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_unknown_top_level_fields_of_a_new_game_are_refused(alice):
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "colour": "red"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    assert set(r.json()["error"]["detail"]) == {"colour"}
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("field", [{"move_time_limit": "600"}, {"move_time_limit": 600.0},
                                   {"rules": {"target_score": "50"}}, {"first_dealer": True}])
def test_integers_must_be_json_integers_when_creating(alice, field):
    r = alice.post("/api/v1/games/new/", {"kind": "ai", **field}, format="json")
    code = "bad_rules" if "rules" in field else "validation_error"  # every refusal of rules is bad_rules
    assert r.status_code == 400 and r.json()["error"]["code"] == code, r.content
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("action", [
    {"type": "knock", "card": "JS", "melds": None, "extra": 1},
    {"type": "pass", "bogus": None},
    {"type": "draw_stock", "card": "JS"},  # a card has no place in a draw (engine: R6.1 shape)
])
def test_unknown_action_fields_are_malformed_action(alice, game, action):
    moves = Move.objects.count()
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", {"version": game["version"], "action": action},
                   format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_action", r.content
    assert Move.objects.count() == moves and IdempotencyRecord.objects.count() == 0
    assert Game.objects.get().version == game["version"]


@pytest.mark.django_db
@pytest.mark.parametrize("version", ["1", 1.0, True, None])
def test_version_must_be_a_json_integer(alice, game, version):
    moves = Move.objects.count()
    action = game["view"]["legal_actions"][0]
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", {"version": version, "action": action}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    assert list(r.json()["error"]["detail"]) == ["version"]
    assert Move.objects.count() == moves


@pytest.mark.django_db
def test_unknown_top_level_fields_of_an_action_are_refused(alice, game):
    action = game["view"]["legal_actions"][0]
    r = alice.post(f"/api/v1/games/{game['id']}/actions/",
                   {"version": game["version"], "action": action, "when": "now"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error"
    assert Move.objects.count() == 0
    r = alice.post(f"/api/v1/games/{game['id']}/actions/", {"version": game["version"], "action": action},
                   format="json")
    assert r.status_code == 200  # the same action without the stray field is accepted


@pytest.mark.django_db
@pytest.mark.parametrize("rules, field", [
    ({"gin_bonus": -1}, "gin_bonus"), ({"gin_bonus": 1001}, "gin_bonus"),
    ({"undercut_bonus": -5}, "undercut_bonus"), ({"undercut_bonus": 1001}, "undercut_bonus"),
    ({"target_score": 0}, "target_score"), ({"target_score": 10001}, "target_score"),
    ({"knock_limit": 11}, "knock_limit"), ({"variant": "poker"}, "variant"),
    ({"variant": "classic", "knock_limit": "upcard"}, "knock_limit"),
    ({"variant": "classic", "knock_limit": 10, "spade_doubles": True}, "spade_doubles"),
    ({"knock_limit": 7, "ace_requires_gin": True}, "ace_requires_gin"),
])
def test_every_refused_rule_is_bad_rules_naming_the_option(alice, rules, field):
    """Out-of-range bonuses and targets (the schema's minimum/maximum: 0..1000 points for the
    bonuses, 1..10000 for the target), a bad variant or knock limit and contradicting options are
    all 400 ``bad_rules`` with the option at fault in ``detail``; nothing is written."""
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": rules}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_rules", r.content
    assert list(r.json()["error"]["detail"]) == [f"rules.{field}"]
    assert Game.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("rules", [{"gin_bonus": 0, "undercut_bonus": 1000, "target_score": 1},
                                   {"gin_bonus": 1000, "undercut_bonus": 0, "target_score": 10000}])
def test_the_ends_of_the_rule_ranges_are_accepted(alice, rules):
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": rules}, format="json")
    assert r.status_code == 201, r.content
    assert {k: r.json()["rules"][k] for k in rules} == rules


def test_the_schema_bounds_the_rule_options_as_the_server_does():
    """A generated client validates what the server would refuse: the schema's bounds of the
    whole-number rule options are the engine's (RuleSet)."""
    from drf_spectacular.generators import SchemaGenerator

    from games.engine.rules import OPTION_RANGES

    props = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]["RulesInputRequest"]["properties"]
    assert {k: (props[k]["minimum"], props[k]["maximum"]) for k in OPTION_RANGES} == {
        "gin_bonus": (0, 1000), "undercut_bonus": (0, 1000), "target_score": (1, 10000)}


@pytest.mark.django_db
@pytest.mark.parametrize("body, field", [
    ({"kind": "ai", "opponent": "bob"}, "opponent"),
    ({"kind": "open", "opponent": "bob"}, "opponent"),
    ({"kind": "ai", "invitation_ttl": 3600}, "invitation_ttl"),
    ({"kind": "ai", "auto_play_limit": 2}, "auto_play_limit"),
    ({"kind": "ai", "timeout_policy": "forfeit", "auto_play_limit": 2}, "auto_play_limit"),
])
def test_a_field_that_does_not_apply_is_refused_not_dropped(alice, bob, body, field):
    """``opponent`` only invites, ``invitation_ttl`` needs an invitation or open challenge,
    ``auto_play_limit`` needs ``timeout_policy: auto_play``: sent otherwise, 400 naming the field
    (it used to be dropped silently); nothing is written."""
    r = alice.post("/api/v1/games/new/", body, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "validation_error", r.content
    detail = r.json()["error"]["detail"]
    assert list(detail) == [field] and [e["code"] for e in detail[field]] == ["not_applicable"]
    assert Game.objects.count() == 0


@pytest.mark.django_db
def test_the_fields_are_taken_where_they_apply(alice, bob):
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "invitation_ttl": 3600,
                                          "timeout_policy": "auto_play", "auto_play_limit": 2}, format="json")
    assert r.status_code == 201, r.content
    game = Game.objects.get()
    assert (game.player1.name, game.auto_play_limit) == ("bob", 2)
    # null is "not sent" (the schema makes invitation_ttl nullable)
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "invitation_ttl": None}, format="json")
    assert r.status_code == 201, r.content
    # ai_level has a default in the schema, which generated clients send with every kind: accepted
    r = alice.post("/api/v1/games/new/", {"kind": "open", "ai_level": "strong"}, format="json")
    assert r.status_code == 201, r.content


@pytest.mark.django_db
def test_a_huge_refused_rule_value_is_not_echoed_back(alice):
    """A 200,000-character knock_limit is refused (bad_rules) with a message of a few dozen
    characters, not the value twice over (message and detail)."""
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "rules": {"knock_limit": "x" * 200_000}}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_rules"
    assert len(r.content) < 1000 and list(r.json()["error"]["detail"]) == ["rules.knock_limit"]
    assert Game.objects.count() == 0
