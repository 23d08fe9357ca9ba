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
    ("my_stats", {"200", "401"}),
    ("player_stats", {"200", "401", "404"}),
    ("game_list_mine", {"200", "400", "401"}),
    ("action_submit", {"200", "400", "401", "404", "409", "422", "429"}),
])
def test_error_responses_are_documented(operations, operation, codes):
    assert codes <= set(operations[operation]["responses"])
