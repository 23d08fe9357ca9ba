"""The README's walkthrough works as written, on the embedded default and without internet: its
shell blocks run with bash, curl and jq against a server started the way the README says (local
settings, a fresh SQLite file, tasks in-process), the webhook step with the README's own receiver
on loopback, ``WEBHOOK_ALLOW_PRIVATE`` and ``WEBHOOK_PORTS``. Only the ports are changed."""
import hashlib
import hmac
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq") and shutil.which("bash")),
                       reason="the walkthrough needs bash, curl and jq"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _blocks() -> dict[str, str]:
    """The README's shell blocks by their first line's start: the walkthrough (``API=``), the
    receiver (``python3 -c``) and the webhook step (``# 7.``)."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    found = {}
    for block in blocks:
        for key in ("API=", "python3 -c", "# 7."):
            if block.startswith(key):
                found[key] = block
    assert set(found) == {"API=", "python3 -c", "# 7."}, list(found)
    return found


def _start(args, env, log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _wait_listening(port: int, proc: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port}: {log.read_text(errors='replace')[-3000:]}")


def test_the_readme_walkthrough_runs_step_by_step(tmp_path):
    blocks = _blocks()
    port, hook_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_URL", "CELERY_", "WEBHOOK_"))}
    env.update({
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.local",
        # the embedded default, on a fresh file instead of the checkout's db.sqlite3: a SQLite
        # DATABASE_URL would turn the in-process tasks off, so say so explicitly
        "DATABASE_URL": f"sqlite:///{tmp_path / 'walkthrough.sqlite3'}",
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "WEBHOOK_ALLOW_PRIVATE": "true",  # as the README's webhook step says
        "WEBHOOK_PORTS": "any",
    })
    migrate = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)
    assert migrate.returncode == 0, migrate.stderr[-3000:]
    server = _start([sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"], env,
                    tmp_path / "server.log")
    receiver = _start(["bash", "-c", blocks["python3 -c"].replace("9009", str(hook_port))], env,
                      tmp_path / "receiver.log")
    try:
        _wait_listening(port, server, tmp_path / "server.log")
        _wait_listening(hook_port, receiver, tmp_path / "receiver.log")
        # Step 7 gives the background delivery thread one second ("sleep 1"); a loaded machine
        # can stall it longer, so here the listing waits (up to 30 s) until no delivery is pending.
        wait = ('for _ in $(seq 1 60); do curl -s $API/webhooks/$(echo "$HOOK" | jq .id)/deliveries/ -H "$AUTH" '
                '| jq -e \'[.results[] | select(.status == "pending")] | length == 0\' >/dev/null && break; '
                'sleep 0.5; done; ')
        step7 = blocks["# 7."]
        assert step7.count("sleep 1; ") == 1, step7
        script = (blocks["API="] + step7.replace("sleep 1; ", wait)).replace("127.0.0.1:8000", f"127.0.0.1:{port}") \
            .replace("9009", str(hook_port))
        run = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path,
                             capture_output=True, text=True, timeout=600)
        time.sleep(0.5)
    finally:
        _stop(server)
        _stop(receiver)
    out = run.stdout
    assert run.returncode == 0, run.stderr[-3000:] + out[-3000:]
    assert '"error":{' not in out and '"id": null' not in out
    lines = out.splitlines()
    # step 4: every action answered with a new version, none with an error
    plays = [json.loads(line) for line in lines if line.startswith('{"version":')]
    assert len(plays) >= 10 and all(p["error"] is None for p in plays)
    # step 5: the match was played to its end
    assert '"end_reason": "target_score"' in out
    # step 6: a page of the feed, then the page its cursor points to, with events on it
    assert re.search(r'\{"has_\w+":(true|false),"kinds":\["\w+"', out), out[-2000:]
    # step 7: the webhook registered with an id and secret, the game resigned, both events delivered
    hook = json.loads(re.search(r'\{\n  "id": \d+,\n  "url": "[^"]+",\n  "secret": "whsec_[^"]+"\n\}', out).group(0))
    assert '"end_reason": "resigned"' in out
    deliveries = [json.loads(line) for line in lines if line.startswith('{"event_kind":')]
    assert {d["event_kind"] for d in deliveries} >= {"match_over"}
    assert all(d["status"] == "delivered" and d["last_status_code"] == 204 for d in deliveries)
    # the receiver printed each signed body; each signature is HMAC-SHA256 of the body with the secret
    received = [line.split(" ", 1) for line in (tmp_path / "receiver.log").read_text().splitlines()
                if line.startswith("sha256=")]
    assert len(received) == len(deliveries)
    for signature, body in received:
        expected = "sha256=" + hmac.new(hook["secret"].encode(), body.encode(), hashlib.sha256).hexdigest()
        assert signature == expected
