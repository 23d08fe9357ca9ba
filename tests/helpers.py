"""Test helpers: players over the real HTTP API (JWT), fixed decks, a hidden-card scanner, and
``assert_error``: the one check of a refused request's answer (status, code and shape)."""
from __future__ import annotations

import ast
import itertools
import json
import re
import threading
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from rest_framework.test import APIClient

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["C", "D", "H", "S"]
ALL_CARDS = [r + s for s in SUITS for r in RANKS]


def deck_for(nondealer: str, dealer: str, upcard: str, stock_top: str = "") -> list[str]:
    """A 52-card deal order (R4): 10 cards to the non-dealer, 10 to the dealer, the upcard, then the
    stock with ``stock_top`` cards on top; the rest in a fixed order."""
    head = nondealer.split() + dealer.split() + [upcard] + stock_top.split()
    assert len(set(head)) == len(head), "duplicate card in deck spec"
    return head + [c for c in ALL_CARDS if c not in head]


def register(client: APIClient, name: str, *, staff: bool = False) -> APIClient:
    """Register ``name`` through the API, log in with JWT and return an authenticated client."""
    r = client.post("/api/v1/auth/register/", {"username": name, "password": "s3cret-pass-" + name}, format="json")
    assert r.status_code == 201, r.content
    if staff:
        get_user_model().objects.filter(username=name).update(is_staff=True)
    return bearer_client(access_token(client, name))


def access_token(client: APIClient, name: str) -> str:
    """Log ``name`` (registered by ``register``) in with JWT through ``client``; its access token."""
    r = client.post("/api/v1/auth/token/", {"username": name, "password": "s3cret-pass-" + name}, format="json")
    assert r.status_code == 200, r.content
    return r.json()["access"]


def bearer_client(token: str) -> APIClient:
    """A client that sends ``token`` as its ``Authorization: Bearer`` header."""
    authed = APIClient()
    authed.credentials(HTTP_AUTHORIZATION="Bearer " + token)
    return authed


def act(client: APIClient, game_id: int, version: int, action: dict, key: str | None = None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(f"/api/v1/games/{game_id}/actions/", {"version": version, "action": action},
                       format="json", **headers)


def act_ok(client: APIClient, game_id: int, action: dict) -> dict:
    """Send ``action`` at the game's current version; assert 200 and return the body."""
    version = client.get(f"/api/v1/games/{game_id}/").json()["version"]
    r = act(client, game_id, version, action)
    assert r.status_code == 200, r.content
    return r.json()


def strings_in(value: Any) -> set[str]:
    """Every string (keys and values) anywhere in a JSON value."""
    out: set[str] = set()
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.add(k)
            out |= strings_in(v)
    elif isinstance(value, list):
        for v in value:
            out |= strings_in(v)
    return out


def flatten(*groups) -> set[str]:
    return set(itertools.chain.from_iterable(groups))


# Codes checked by ``assert_error`` during the running test; tests/conftest.py empties it before each
# test and fails a test marked ``@pytest.mark.error_code(code)`` that did not check ``code`` here.
ASSERTED_CODES: list[str] = []
_RULE = re.compile(r"^R\d+(\.\d+)?$")


def lock_waiting(pid: int) -> bool:
    """Whether the PostgreSQL backend ``pid`` is waiting for a lock (a row lock shows as a transaction id)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted", [pid])
        return cur.fetchone()[0] > 0


def assert_error(response, code: str) -> dict:
    """Assert that ``response`` (a Django test or ``requests`` response) is the API's error answer
    for ``code``: the HTTP status listed for it in ``okgin_project.error_codes``, a JSON body of
    exactly ``{"error": {"code", "message", "rule"?, "detail"?}}`` with a non-empty message and a
    rule number if any. Records ``code`` for the ``error_code`` marker; returns the inner dict."""
    from okgin_project.error_codes import ERROR_CODES

    assert code in ERROR_CODES, f"{code!r} is not in okgin_project/error_codes.py"
    body_text = response.content.decode() if hasattr(response, "content") else response.text
    assert response.status_code == ERROR_CODES[code][0], (response.status_code, body_text[:500])
    assert response.headers["Content-Type"].startswith("application/json"), response.headers["Content-Type"]
    body = json.loads(body_text)
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert {"code", "message"} <= set(error) <= {"code", "message", "rule", "detail"}, error
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"].strip(), error
    if "rule" in error:
        assert _RULE.match(error["rule"]), error
    ASSERTED_CODES.append(code)
    return error


def mark_args(node: ast.AST, name: str) -> list:
    """The literal arguments of ``pytest.mark.<name>(...)`` when ``node`` (a syntax tree node: a
    decorator, or the ``marks=`` of a ``pytest.param``) is that call or a list of marks holding it.
    Used by the meta-tests that count markers (comments and strings never count)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [arg for item in node.elts for arg in mark_args(item, name)]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
            and ast.unparse(node.func.value) == "pytest.mark"):
        return [ast.literal_eval(arg) for arg in node.args]
    return []


def run_on_embedded_sqlite(script, tmp_path) -> Any:
    """Run ``script`` (a path) in a subprocess on the embedded default (local settings, a fresh SQLite
    file in ``tmp_path``, tasks in-process) and return the JSON object its last output line holds.
    Fails the test with the script's stderr if it exits non-zero."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "okgin_project.settings.local",
                "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "CELERY_TASK_ALWAYS_EAGER": "1",
                "DEBUG": "0", "ALLOWED_HOSTS": "testserver", "PYTHONPATH": str(root)})
    proc = subprocess.run([sys.executable, str(script)], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def first_held_then_second(first, second) -> bool:
    """PostgreSQL: run ``first()`` in a thread inside a transaction held open after it returns; then
    ``second()`` in another thread (its own connection); commit the first once the second is done
    or waits for a lock (``lock_waiting``). Returns whether the second had to wait. Raises
    AssertionError with what either raised (the callables assert their answers)."""
    first_ran, release, second_done = threading.Event(), threading.Event(), threading.Event()
    second_pid: list[int] = []
    errors: list[BaseException] = []

    def run_first():
        try:
            with transaction.atomic():
                first()
                first_ran.set()
                assert release.wait(60), "never released"
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
            first_ran.set()
        finally:
            connection.close()

    def run_second():
        try:
            with connection.cursor() as cur:
                cur.execute("SELECT pg_backend_pid()")
                second_pid.append(cur.fetchone()[0])
            second()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            second_done.set()
            connection.close()

    t1 = threading.Thread(target=run_first)
    t1.start()
    assert first_ran.wait(60) and not errors, errors
    t2 = threading.Thread(target=run_second)
    t2.start()
    for _ in range(1200):  # until done or blocked; a bound against a hang, not a time budget
        if second_done.wait(0.05) or (second_pid and lock_waiting(second_pid[0])):
            break
    waited = not second_done.is_set()
    release.set()
    t1.join(60)
    t2.join(60)
    assert not t1.is_alive() and not t2.is_alive() and not errors, errors
    return waited
