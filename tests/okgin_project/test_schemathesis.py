"""Schemathesis (``--checks all``, a bounded number of examples per operation, every phase) over
every operation of the schema a live server serves: no response contradicts the schema (status
codes, headers, content type, bodies), nothing the schema forbids is accepted, no 500.

The server is pytest-django's ``live_server`` (the real WSGI stack on loopback, test settings:
no rate limits) with one registered player whose token schemathesis sends; schemathesis follows
the links it infers (a created game's id into its actions, accept, history...). The run is
bounded: ``SCHEMATHESIS_MAX_EXAMPLES`` examples per operation (default 5) and a fixed seed
(``SCHEMATHESIS_SEED``) so that CI is reproducible; change the seed to explore further.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import register

CONFIG = Path(__file__).with_name("schemathesis.toml")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_schemathesis_finds_nothing(live_server, anon, tmp_path):
    player = register(anon, "fuzzer")
    token = player._credentials["HTTP_AUTHORIZATION"]
    cli = Path(sys.executable).with_name("schemathesis")
    command = [
        str(cli), "--config-file", str(CONFIG), "run", f"{live_server.url}/api/schema/",
        "--checks", "all",
        "--max-examples", os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "5"),
        "--seed", os.environ.get("SCHEMATHESIS_SEED", "20261201"),
        "--header", f"Authorization: {token}",
        "--workers", "1",
        "--no-color",
    ]
    schema = anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operations = sum(1 for item in schema["paths"].values() for method in item if method in (
        "get", "post", "put", "patch", "delete"))
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-20000:]
    assert f"Selected: {operations}/{operations}" in output and f"Tested: {operations}" in output, output[-3000:]


@pytest.mark.django_db
def test_the_statuses_schemathesis_allows_are_declared_and_never_5xx(anon):
    """The configuration allows no 5xx anywhere; an operation allowed an extra status (a refusal no
    schema can express, docs/api.md#schemathesis) declares that status in its responses, and only
    operations of the schema are named."""
    import tomllib

    config = tomllib.loads(CONFIG.read_text())
    default = config["checks"]["positive_data_acceptance"]["expected-statuses"]
    assert not [s for s in default if s.startswith("5")]
    schema = anon.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    responses = {op["operationId"]: set(op["responses"]) for item in schema["paths"].values()
                 for method, op in item.items() if method in ("get", "post", "put", "patch", "delete")}
    named = [op_id for entry in config["operations"] for op_id in entry["include-operation-id"]]
    assert len(named) == len(set(named)), "an operation in two entries: only one would apply"
    for entry in config["operations"]:
        allowed = entry["checks"]["positive_data_acceptance"]["expected-statuses"]
        assert set(default) <= set(allowed) and not [s for s in allowed if s.startswith("5")]
        for op_id in entry["include-operation-id"]:
            assert op_id in responses, op_id
            assert set(allowed) - set(default) <= responses[op_id], (op_id, responses[op_id])
