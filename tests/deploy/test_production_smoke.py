"""The production path, as a user deploys it: the wheel installed in a fresh virtualenv outside the
checkout, production settings, ``collectstatic``, then docker-compose.yml's own commands (migrate,
gunicorn, a Celery worker and beat) and healthchecks against the CI PostgreSQL and Redis; over HTTP:
health endpoints, a game against the ``simple`` AI, the API docs, ReDoc and the admin with every
asset they reference; and the JSON logs.

Isolation: its own database (``<DATABASE_URL's name>_smoke``, dropped and created here, dropped at
the end), its own Redis database (``OKGIN_SMOKE_REDIS_URL``, default ``REDIS_URL`` with database 13;
flushed at the start and the end), a port from ``OKGIN_SMOKE_PORT`` (default: any free one). Every
process runs with its working directory in a temporary folder, so nothing can be imported from the
source tree, and is stopped (its whole process group) at the end, also on failure.

With a Docker engine (``docker info`` works), the image is built and the same HTTP checks run
against ``docker compose up``; without one that test is skipped, saying why.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

import pytest
import requests

from tests.deploy.compose import compose_services, with_defaults
from tests.deploy.conftest import ROOT, install_wheel

pytestmark = pytest.mark.deploy
REQUIRED = os.environ.get("OKGIN_REQUIRE_SERVICES") == "1"
STARTUP_TIMEOUT = 180.0  # seconds; generous for a loaded 2-core machine, never a pass/fail figure


# --- helpers -------------------------------------------------------------------------------------
def wait_for(predicate, *, timeout: float, what: str, interval: float = 0.5):
    """Poll ``predicate`` until it returns a truthy value (returned); AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except requests.RequestException as exc:
            value, last = None, exc
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:g}s waiting for {what} (last error: {last})")


class Process:
    """A background process in its own process group, output to a log file."""

    def __init__(self, name: str, argv: list[str], *, cwd: Path, env: dict[str, str], log: Path):
        self.name, self.log = name, log
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """SIGTERM the group (warm shutdown), SIGKILL what is left after 20 s."""
        for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
        try:  # children left behind by a process that exited first
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def tail(self, n: int = 30) -> str:
        try:
            return f"--- {self.name} ({self.log}) ---\n" + "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


class _Assets(HTMLParser):
    """The URLs a page loads: ``src`` of scripts/images and ``href`` of ``<link>`` elements."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img") and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])


def page_assets(http: requests.Session, url: str) -> dict[str, int]:
    """GET ``url`` (must be 200, HTML) and every asset it references: ``{asset URL: status}``."""
    page = http.get(url, timeout=30)
    assert page.status_code == 200, f"{url}: {page.status_code} {page.text[:300]}"
    parser = _Assets()
    parser.feed(page.text)
    return {asset: http.get(asset, timeout=30).status_code for asset in (urljoin(url, u) for u in parser.urls)}


def choose(legal: list[dict]) -> dict:
    """A plain legal choice: pass the upcard or draw from the stock, else the first discard, else
    whatever comes first (the smoke test only needs the game to go on)."""
    for kind in ("pass", "draw_stock", "discard"):
        for action in legal:
            if action["type"] == kind:
                return action
    return legal[0]


def play_against_simple_ai(base: str, ai_turns: int = 3) -> dict:
    """Register, log in, create a game against the ``simple`` AI and play until the AI has moved
    on ``ai_turns`` separate turns. Returns ``{"game_id", "request_ids"}`` (the X-Request-ID of every
    action and of the game's creation)."""
    http = requests.Session()
    name = "smoke" + secrets.token_hex(4)
    password = "pw-" + secrets.token_hex(8)
    r = http.post(f"{base}/api/v1/auth/register/", json={"username": name, "password": password}, timeout=30)
    assert r.status_code == 201, r.text
    r = http.post(f"{base}/api/v1/auth/token/", json={"username": name, "password": password}, timeout=30)
    assert r.status_code == 200, r.text
    http.headers["Authorization"] = "Bearer " + r.json()["access"]
    r = http.post(f"{base}/api/v1/games/new/", json={"kind": "ai", "ai_level": "simple"}, timeout=30)
    assert r.status_code == 201, r.text
    game = r.json()
    gid, me = game["id"], game["your_seat"]
    assert game["seats"][1 - me]["ai_level"] == "simple"
    request_ids = [r.headers["X-Request-ID"]]

    def ai_turns_seen() -> int:
        moves = http.get(f"{base}/api/v1/games/{gid}/moves/", params={"limit": 100}, timeout=30)
        assert moves.status_code == 200, moves.text
        seats = [m["seat"] for m in moves.json()["results"]]  # oldest first; a few turns fit one page
        # a turn is a run of consecutive moves by the same seat
        return sum(1 for i, s in enumerate(seats) if s != me and (i == 0 or seats[i - 1] == me))

    actions = 0
    while ai_turns_seen() < ai_turns:
        def my_turn_or_over():
            g = http.get(f"{base}/api/v1/games/{gid}/", timeout=30).json()
            return g if g["status"] != "active" or g["is_your_turn"] else None

        game = wait_for(my_turn_or_over, timeout=120, what="the AI's answer (worker)")
        assert game["status"] == "active", f"game ended before the AI played {ai_turns} turns: {game['status']}"
        r = http.post(f"{base}/api/v1/games/{gid}/actions/",
                      json={"version": game["version"], "action": choose(game["view"]["legal_actions"])}, timeout=30)
        assert r.status_code == 200, r.text
        request_ids.append(r.headers["X-Request-ID"])
        actions += 1
        assert actions < 200
    return {"game_id": gid, "request_ids": request_ids}


def check_http(base: str) -> dict:
    """Every HTTP check of the production path against ``base``; returns what the game left."""
    assert requests.get(f"{base}/healthz", timeout=10).json() == {"status": "ok"}
    ready = requests.get(f"{base}/readyz", timeout=30)
    assert ready.status_code == 200, ready.text
    assert ready.json()["status"] == "ready"

    played = play_against_simple_ai(base)

    http = requests.Session()
    schema = http.get(f"{base}/api/schema/", timeout=30)
    assert schema.status_code == 200 and b"/api/v1/games/" in schema.content
    for page in ("/api/docs/", "/api/redoc/", "/admin/login/"):
        assets = page_assets(http, base + page)
        static = [u for u in assets if urlsplit(u).path.startswith("/static/")]
        assert static, f"{page} references no static files: {assets}"
        assert {u: s for u, s in assets.items() if s != 200} == {}, page
        assert [u for u in assets if not u.startswith(base + "/")] == [], f"{page} loads from elsewhere"
        # collectstatic's manifest: content-hashed names, cached for long by WhiteNoise
        asset = http.get(static[0], timeout=30)
        assert re.search(r"\.[0-9a-f]{12}\.\w+$", urlsplit(static[0]).path), static[0]
        assert "max-age=315360000" in asset.headers.get("Cache-Control", ""), asset.headers
    return played


def json_lines(path: Path) -> list[dict]:
    """Every non-empty line of ``path`` parsed as one JSON object (AssertionError otherwise)."""
    records = []
    for line in path.read_text(errors="replace").splitlines():
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                raise AssertionError(f"{path.name}: not a JSON line: {line[:300]}") from None
            assert isinstance(record, dict), line
            records.append(record)
    return records


# --- the installed package against this machine's PostgreSQL and Redis ---------------------------
def _service_or_skip(check, what: str) -> None:
    problem = check()
    if problem:
        if REQUIRED:
            pytest.fail(f"{what} is required (OKGIN_REQUIRE_SERVICES=1): {problem}")
        pytest.skip(f"{what} unreachable: {problem}")


def _smoke_database_url() -> tuple[str, str]:
    """(URL of the smoke test's own database, URL of the maintenance database ``postgres``)."""
    parts = urlsplit(os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/okgin"))
    name = (parts.path.lstrip("/") or "okgin") + "_smoke"
    return (urlunsplit((parts.scheme, parts.netloc, "/" + name, "", "")),
            urlunsplit((parts.scheme, parts.netloc, "/postgres", "", "")))


def _smoke_redis_url() -> str:
    if os.environ.get("OKGIN_SMOKE_REDIS_URL"):
        return os.environ["OKGIN_SMOKE_REDIS_URL"]
    parts = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    return urlunsplit((parts.scheme, parts.netloc, "/13", "", ""))


def _free_port() -> int:
    if os.environ.get("OKGIN_SMOKE_PORT"):
        return int(os.environ["OKGIN_SMOKE_PORT"])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _recreate_database(admin_url: str, name: str, *, create: bool) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if create:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def installed(okgin_wheel, tmp_path_factory):
    """A fresh virtualenv outside the checkout with the wheel and its pinned dependencies."""
    home = tmp_path_factory.mktemp("smoke")
    venv = install_wheel(okgin_wheel, home)
    return home, venv


def test_installed_wheel_runs_the_production_path(installed):
    import redis

    home, venv = installed
    db_url, admin_url = _smoke_database_url()
    redis_url = _smoke_redis_url()

    def pg_problem():
        import psycopg

        try:
            psycopg.connect(admin_url, connect_timeout=5).close()
        except psycopg.Error as exc:
            return str(exc)

    def redis_problem():
        try:
            redis.Redis.from_url(redis_url, socket_connect_timeout=3).ping()
        except redis.RedisError as exc:
            return str(exc)

    _service_or_skip(pg_problem, "PostgreSQL")
    _service_or_skip(redis_problem, "Redis")

    db_name = urlsplit(db_url).path.lstrip("/")
    _recreate_database(admin_url, db_name, create=True)
    redis.Redis.from_url(redis_url).flushdb()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    logs = home / "logs"
    logs.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "DJANGO_SETTINGS_MODULE": "okgin_project.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DATABASE_URL": db_url,
        "REDIS_URL": redis_url,
        "STATIC_ROOT": str(home / "static"),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
        "READYZ_WORKER_MAX_AGE": "5",
    }
    bin_ = venv / "bin"
    services = compose_services()  # the compose file's commands, run here without Docker

    def healthcheck(service: str) -> int:
        """Exit status of ``service``'s compose healthcheck, run here (web's port is ours)."""
        kind, *test = with_defaults(services[service]["healthcheck"]["test"])
        test = [t.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for t in test]
        argv = ["sh", "-c", test[0]] if kind == "CMD-SHELL" else test
        return subprocess.run(argv, cwd=home, env=env | {"HOSTNAME": socket.gethostname()},
                              capture_output=True, timeout=120).returncode

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(a) for a in argv], cwd=home, env=env, capture_output=True, text=True, timeout=600)

    processes: list[Process] = []

    def start(name: str, *argv) -> Process:
        process = Process(name, [str(a) for a in argv], cwd=home, env=env, log=logs / f"{name}.log")
        processes.append(process)
        return process

    try:
        collected = run(bin_ / "django-admin", "collectstatic", "--noinput")
        assert collected.returncode == 0, collected.stderr
        assert (home / "static" / "staticfiles.json").is_file()

        # gunicorn before migrate: alive, not ready, and it says why
        web = start("web", *with_defaults(services["web"]["command"]))
        def live():
            if not web.alive():
                pytest.fail(f"gunicorn exited\n{web.tail()}")
            return requests.get(f"{base}/healthz", timeout=5).status_code == 200

        wait_for(live, timeout=STARTUP_TIMEOUT, what="/healthz")
        not_ready = requests.get(f"{base}/readyz", timeout=30)
        assert not_ready.status_code == 503
        body = not_ready.json()
        assert body["status"] == "not_ready" and body["down"] == ["migrations", "celery"], body
        assert "not applied" in body["checks"]["migrations"]["error"]
        assert body["checks"]["database"]["status"] == body["checks"]["redis"]["status"] == "ok"
        assert healthcheck("web") != 0 and healthcheck("beat") != 0  # not migrated; no beat yet

        migrated = run(*with_defaults(services["migrate"]["command"]))
        assert migrated.returncode == 0, migrated.stderr
        worker = start("worker", *with_defaults(services["worker"]["command"]))
        beat = start("beat", *[f"--schedule={home / 'celerybeat-schedule'}" if a.startswith("--schedule=") else a
                               for a in with_defaults(services["beat"]["command"])])

        def ready():
            for p in (web, worker, beat):
                if not p.alive():
                    pytest.fail(f"{p.name} exited\n{p.tail()}")
            return requests.get(f"{base}/readyz", timeout=30).status_code == 200

        wait_for(ready, timeout=STARTUP_TIMEOUT, what="/readyz 200", interval=1.0)
        wait_for(lambda: healthcheck("beat") == 0, timeout=STARTUP_TIMEOUT, what="beat's heartbeat", interval=1.0)
        assert healthcheck("web") == 0 and healthcheck("worker") == 0

        played = check_http(base)

        # One JSON object a line from web, worker and beat, naming the request, game and task.
        web_lines, worker_lines = json_lines(web.log), json_lines(worker.log)
        json_lines(beat.log)
        gid = played["game_id"]
        assert any(r["logger"] == "okgin.request" and r["game_id"] == gid and r["request_id"] in played["request_ids"]
                   and r["status"] == 200 for r in web_lines)
        ai_task_lines = [r for r in worker_lines if r["logger"] == "okgin.tasks" and r["game_id"] == gid]
        assert ai_task_lines and all(r["task_id"] for r in ai_task_lines)
        assert {r["request_id"] for r in ai_task_lines} & set(played["request_ids"])  # travelled with the task

        # A worker that stopped answering takes readiness down (after READYZ_WORKER_MAX_AGE).
        worker.stop()
        def not_ready_body():
            r = requests.get(f"{base}/readyz", timeout=30)
            return r.json() if r.status_code == 503 else None  # a 503 Response is falsy itself

        gone = wait_for(not_ready_body, timeout=STARTUP_TIMEOUT, what="/readyz 503 without a worker", interval=1.0)
        assert gone["down"] == ["celery"], gone
    except BaseException:
        print("\n".join(p.tail() for p in processes))
        raise
    finally:
        for p in reversed(processes):
            p.stop()
        redis.Redis.from_url(redis_url).flushdb()
        _recreate_database(admin_url, db_name, create=False)


# --- the Docker image and docker compose -----------------------------------------------------------
def test_docker_image_and_compose_run_the_production_path(tmp_path):
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("docker is not installed here: the image build and `docker compose up` smoke test did not run")
    info = subprocess.run([docker, "info"], capture_output=True, text=True, timeout=60)
    if info.returncode != 0:
        reason = (info.stderr.strip().splitlines() or ["docker info failed"])[-1]
        pytest.skip(f"no Docker engine here ({reason}): the image build and `docker compose up` smoke test did not run")
    compose = subprocess.run([docker, "compose", "version"], capture_output=True, text=True, timeout=60)
    if compose.returncode != 0:
        pytest.skip("the docker compose plugin is not installed: the `docker compose up` smoke test did not run")
    project = f"okginsmoke{secrets.token_hex(3)}"
    port = _free_port()
    env = dict(os.environ, SECRET_KEY=secrets.token_urlsafe(50), OKGIN_PORTS=str(port),
               ALLOWED_HOSTS="127.0.0.1,localhost")
    up = [docker, "compose", "-p", project, "-f", str(ROOT / "docker-compose.yml")]
    try:
        built = subprocess.run([*up, "up", "-d", "--build", "--wait", "--wait-timeout", "600"],
                               cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
        assert built.returncode == 0, f"{built.stdout}\n{built.stderr}"
        check_http(f"http://127.0.0.1:{port}")
        beat = subprocess.run([*up, "exec", "-T", "beat", "python", "-m", "okgin_project.heartbeat"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert beat.returncode == 0, beat.stderr
        for service in ("web", "worker"):
            out = subprocess.run([*up, "logs", "--no-color", "--no-log-prefix", service], cwd=ROOT, env=env,
                                 capture_output=True, text=True, timeout=120)
            (tmp_path / f"{service}.log").write_text(out.stdout)
            assert json_lines(tmp_path / f"{service}.log")
    finally:
        subprocess.run([*up, "down", "-v", "--remove-orphans"], cwd=ROOT, env=env, capture_output=True, timeout=600)
