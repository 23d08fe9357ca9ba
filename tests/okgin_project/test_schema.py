"""The OpenAPI schema documents the error answers a client generator needs."""
import pytest
import yaml


@pytest.fixture
def operations(client):
    r = client.get("/api/schema/")
    assert r.status_code == 200
    doc = yaml.safe_load(r.content)
    return {op["operationId"]: op for path in doc["paths"].values() for op in path.values()}


@pytest.mark.django_db
@pytest.mark.parametrize("operation, codes", [
    ("token_obtain", {"200", "401", "429"}),
    ("token_refresh", {"200", "401", "429"}),
    ("register", {"201", "400", "409", "429"}),
    ("logout", {"204", "400", "401", "429"}),
    ("password_change", {"200", "400", "401", "429"}),
    ("account_delete", {"204", "400", "401", "429"}),
    ("my_stats", {"200", "401"}),
    ("player_stats", {"200", "401", "404"}),
    ("game_list_mine", {"200", "400", "401"}),
    ("action_submit", {"200", "400", "401", "404", "409", "422", "429"}),
])
def test_error_responses_are_documented(operations, operation, codes):
    assert codes <= set(operations[operation]["responses"])


@pytest.mark.django_db
def test_every_operation_declares_throttling_busy_and_retry_after(operations):
    """Every operation is rate limited (429) and may meet the embedded database's lock (503), both
    with Retry-After; operations with credentials declare 401, with a body 413 and 415."""
    for op_id, op in operations.items():
        for code in ("400", "429", "503"):
            assert code in op["responses"], (op_id, code)
        for code in ("429", "503"):
            assert "Retry-After" in op["responses"][code]["headers"], (op_id, code)
        if "requestBody" in op:
            assert {"413", "415"} <= set(op["responses"]), op_id
        if op.get("security") and {} not in op["security"]:
            assert "401" in op["responses"], op_id


@pytest.mark.django_db
def test_exact_types(client):
    r = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    schemas = r.json()["components"]["schemas"]
    # A human's seat has ai_level null: the enum admits null.
    ai_level = schemas["Seat"]["properties"]["ai_level"]
    assert ai_level["nullable"] and {"$ref": "#/components/schemas/NullEnum"} in ai_level["oneOf"]
    assert schemas["NullEnum"]["enum"] == [None]
    # The error code is the enum of okgin_project/error_codes.py.
    from okgin_project.error_codes import ERROR_CODES

    assert schemas["ErrorCodeEnum"]["enum"] == list(ERROR_CODES)
    # Notifications: oneOf with a discriminator on kind, one schema per kind.
    from notifications.models import EventKind

    assert set(schemas["Notification"]["discriminator"]["mapping"]) == set(EventKind.values)
    # One Action schema for legal actions, moves, an opponent's move and the request body alike: a
    # oneOf with a discriminator on type, each variant closed and requiring exactly its fields.
    from games.serializers import ACTION_TYPES

    action = {"$ref": "#/components/schemas/Action"}
    assert not [name for name in schemas if name.endswith("ActionRequest")]
    assert list(schemas["Action"]["discriminator"]["mapping"]) == list(ACTION_TYPES)
    assert schemas["Action"]["discriminator"]["propertyName"] == "type"
    for kind, ref in schemas["Action"]["discriminator"]["mapping"].items():
        variant = schemas[ref.rsplit("/", 1)[1]]
        assert variant["additionalProperties"] is False
        assert variant["required"] == {"discard": ["card", "type"], "knock": ["card", "type"]}.get(kind, ["type"])
    assert schemas["KnockAction"]["properties"]["melds"]["nullable"] is True
    assert schemas["ActionSubmitInputRequest"]["properties"]["action"] == action
    assert schemas["PlayerView"]["properties"]["legal_actions"]["items"] == action
    assert schemas["Move"]["properties"]["action"] == action
    assert schemas["OpponentMovedData"]["properties"]["action"]["allOf"] == [action]
    # What an action caused: GameEvent, a oneOf with a discriminator on type.
    from django.conf import settings

    event = {"$ref": "#/components/schemas/GameEvent"}
    assert list(schemas["GameEvent"]["discriminator"]["mapping"]) == list(settings.OKGIN_GAME_EVENT_TYPES)
    for where in (schemas["Move"], schemas["ActionSubmitOutput"], schemas["OpponentMovedData"]):
        assert where["properties"]["events"]["items"] == event
    assert schemas["PlayerView"]["properties"]["history"]["items"] == event
    assert schemas["DrewStockEvent"]["required"] == ["seat", "type"]  # the card is hidden from the opponent
    assert schemas["KnockedEvent"]["required"] == ["card", "deadwood", "gin", "seat", "type"]
    assert schemas["Round"]["properties"]["outcome"]["oneOf"][0] == {"$ref": "#/components/schemas/OutcomeEnum"}
    assert "oneOf" in schemas["Rules"]["properties"]["knock_limit"]
