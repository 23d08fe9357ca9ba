"""Logs: every request gets an id (answered in X-Request-ID) and one okgin.request line naming its
game; a task's lines carry its id and game; the JSON format is one object a line with those ids."""
import io
import json
import logging

import pytest
from django.utils.module_loading import import_string

from okgin_project import logs
from tests.helpers import register


class _Records(logging.Handler):
    """Keeps the records that reach it (on the ``okgin`` logger: queueing a task may run
    ``django.setup()`` again, which reconfigures the root logger and drops pytest's caplog)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture
def okgin_records():
    handler = _Records()
    logger = logging.getLogger("okgin")
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


def _request_records(records):
    return [r for r in records if r.name == "okgin.request"]


@pytest.mark.django_db
def test_request_id_is_generated_answered_and_logged_with_the_game(anon, okgin_records):
    me = register(anon, "logger1")
    r = me.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random"}, format="json")
    gid = r.json()["id"]
    okgin_records.clear()
    response = me.get(f"/api/v1/games/{gid}/")
    assert response.status_code == 200
    request_id = response["X-Request-ID"]
    assert len(request_id) == 32 and int(request_id, 16) >= 0
    [record] = _request_records(okgin_records)
    assert (record.request_id, record.game_id) == (request_id, gid)
    assert (record.method, record.path, record.status) == ("GET", f"/api/v1/games/{gid}/", 200)
    assert record.duration_ms >= 0


@pytest.mark.django_db
def test_a_plausible_client_request_id_is_kept_and_an_implausible_one_replaced(anon, okgin_records):
    kept = anon.get("/api/v1/games/lobby/", HTTP_X_REQUEST_ID="client-abc-123456")
    replaced = anon.get("/api/v1/games/lobby/", HTTP_X_REQUEST_ID="bad id\nwith newline")
    assert kept["X-Request-ID"] == "client-abc-123456"
    assert replaced["X-Request-ID"] != "bad id\nwith newline" and len(replaced["X-Request-ID"]) == 32
    assert [r.request_id for r in _request_records(okgin_records)] == ["client-abc-123456", replaced["X-Request-ID"]]
    assert [r.game_id for r in _request_records(okgin_records)] == [None, None]


@pytest.mark.django_db
def test_task_lines_carry_the_task_id_and_game_id(anon, okgin_records, django_capture_on_commit_callbacks):
    # Tests run tasks eagerly when the test's on-commit callbacks run (after the request here); the
    # request id's trip through a message header to a real worker is checked by the production
    # smoke test (tests/deploy/test_production_smoke.py).
    me = register(anon, "logger2", staff=True)  # staff may choose the dealer: the AI plays first
    with django_capture_on_commit_callbacks(execute=True):
        r = me.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "simple", "first_dealer": 0},
                    format="json", HTTP_X_REQUEST_ID="req-0000000042")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    task_lines = [rec for rec in okgin_records if rec.name == "okgin.tasks"]
    started = [rec for rec in task_lines if rec.getMessage() == "task games.ai_turn_play started"]
    assert started, [(rec.name, rec.getMessage()) for rec in okgin_records]
    for rec in started:
        assert rec.game_id == gid and len(rec.task_id) == 36
    finished = [rec for rec in task_lines if rec.getMessage().startswith("task games.ai_turn_play finished")]
    assert [rec.task_id for rec in finished] == [rec.task_id for rec in started]
    assert all(rec.state == "SUCCESS" for rec in finished)
    assert logs.task_id_var.get() is None and logs.game_id_var.get() is None  # nothing left behind
    forbidden = me.post("/api/v1/games/new/", {"kind": "nope"}, format="json", HTTP_X_REQUEST_ID="req-0000000043")
    assert forbidden.status_code == 400
    assert logs.request_id_var.get() is None  # cleared when the request finished


def test_json_format_is_one_object_a_line_with_the_ids():
    spec = dict(logs.logging_config("json", "INFO")["formatters"]["okgin"])
    formatter = import_string(spec.pop("()"))(**spec)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(formatter)
    handler.addFilter(logs.ContextFilter())
    logger = logging.getLogger("okgin.test.json")
    logger.addHandler(handler)
    logger.propagate = False
    token = logs.game_id_var.set(7)
    try:
        logger.info("line\nwith a break", extra={"status": 201})
    finally:
        logs.game_id_var.reset(token)
        logger.removeHandler(handler)
        logger.propagate = True
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["message"] == "line\nwith a break" and record["status"] == 201
    assert (record["level"], record["logger"], record["game_id"]) == ("INFO", "okgin.test.json", 7)
    assert record["request_id"] is None and record["task_id"] is None and record["time"]


def test_an_unknown_log_format_is_refused():
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        logs.logging_config("xml")
