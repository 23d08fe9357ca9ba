"""The production stack as separate processes that a fault test can stop and start: its own Redis
and its own PostgreSQL cluster (initdb into a temporary directory, as the ``postgres`` user when
run as root: PostgreSQL refuses to run as root), and over them gunicorn, a Celery worker and beat
as users deploy them: the wheel built from this checkout installed in a throw-away virtualenv
(``tests.deploy.conftest.build_wheel``, ``install_wheel``), docker-compose.yml's commands, the
production settings, run in a directory outside the checkout.

Never touches the machine's shared PostgreSQL (5432) or Redis (6379): every server here listens on
a port of its own (free ports, or ``OKGIN_FAULTS_PORT_BASE``, ``..+1``, ``..+2`` when set).
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from tests.deploy.compose import compose_services, with_defaults
from tests.deploy.conftest import build_wheel, install_wheel
from tests.processes import ProcessGroup, wait_for


def free_port() -> int:
    """A loopback TCP port that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ports(n: int) -> list[int]:
    """``n`` ports: from ``OKGIN_FAULTS_PORT_BASE`` when set, else free ones."""
    base = os.environ.get("OKGIN_FAULTS_PORT_BASE")
    return [int(base) + i for i in range(n)] if base else [free_port() for _ in range(n)]


def missing_tools() -> str | None:
    """Why the stack cannot run here (no redis-server or PostgreSQL server binaries), or None."""
    if not shutil.which("redis-server"):
        return "redis-server not installed"
    return _missing_postgres()


def _missing_postgres() -> str | None:
    """Why a PostgreSQL cluster of a test's own cannot run here, or None."""
    if not pg_bin():
        return "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run PostgreSQL as"
    return None


def pg_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` holding initdb and pg_ctl."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    found = [p for p in found if (p / "pg_ctl").exists()]
    return max(found, key=lambda p: int(p.parent.name), default=None) if found else None


def _skip_or_fail(problem: str | None) -> None:
    """Skip the test for ``problem`` (a server it needs cannot run here); fail it instead with
    ``OKGIN_REQUIRE_SERVICES=1`` (CI). Nothing for None."""
    import pytest

    if problem:
        if os.environ.get("OKGIN_REQUIRE_SERVICES") == "1":
            pytest.fail(f"{problem} (OKGIN_REQUIRE_SERVICES=1)")
        pytest.skip(problem)


def own_redis_server(prefix: str) -> tuple[Path, "RedisServer"]:
    """A new temporary directory (``prefix``) and a ``RedisServer`` on a free port in it, not yet
    started. Skips the test when ``redis-server`` is not installed; fails it instead with
    ``OKGIN_REQUIRE_SERVICES=1`` (CI)."""
    _skip_or_fail(None if shutil.which("redis-server") else "redis-server not installed")
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    return workdir, RedisServer(free_port(), workdir)


def own_postgres_server(prefix: str) -> tuple[Path, "PostgresServer"]:
    """A new temporary directory (``prefix``, readable by the ``postgres`` user when running as root)
    and a ``PostgresServer`` on a free port in it, not yet initialised. Skips the test when the
    PostgreSQL server binaries (or, as root, a ``postgres`` user) are missing; fails it instead with
    ``OKGIN_REQUIRE_SERVICES=1`` (CI)."""
    _skip_or_fail(_missing_postgres())
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(workdir, 0o755)
    return workdir, PostgresServer(free_port(), workdir)


def checkout_process_env(redis_url: str, name: str, **extra: str) -> dict[str, str]:
    """The environment of an okgin process run from this checkout (``PYTHONPATH``) with the
    production settings over the Redis at ``redis_url``: this process's environment without
    pytest's, Django's or coverage's variables, a fresh ``SECRET_KEY`` (``okgin-<name>-...``), the
    machine's PostgreSQL unless ``DATABASE_URL`` is set, tasks not eager, plus ``extra``."""
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO", "COV_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "okgin_project.settings.production", "REDIS_URL": redis_url,
                "SECRET_KEY": f"okgin-{name}-" + os.urandom(8).hex(), "ALLOWED_HOSTS": "127.0.0.1",
                "PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1",
                "DATABASE_URL": os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/okgin")})
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    env.update(extra)
    return env


class RedisServer:
    """``redis-server`` on ``port`` without persistence (like the compose file): a stop loses what
    it held, the worst case for queued tasks."""

    def __init__(self, port: int, workdir: Path):
        self.port = port
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.url = f"redis://127.0.0.1:{port}/0"

    def start(self) -> None:
        log = open(self.workdir / "redis.log", "ab")
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        wait_for(self.ping, timeout=20, interval=0.1, what=f"redis on {self.port}")

    def ping(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        self.proc = None


class PostgresServer:
    """A PostgreSQL cluster of its own in ``workdir/pg`` on ``port`` (trust auth on loopback)."""

    def __init__(self, port: int, workdir: Path):
        self.port = port
        self.datadir = workdir / "pg"
        self.log = workdir / "postgres.log"
        self.bin = pg_bin()
        self.url = f"postgres://postgres@127.0.0.1:{port}/okgin"

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)

    def init(self) -> None:
        self.datadir.mkdir()
        if os.geteuid() == 0:
            pg = pwd.getpwnam("postgres")
            for path in (self.datadir.parent, self.datadir):
                os.chown(path, pg.pw_uid, pg.pw_gid)
        self._run("initdb", "-D", str(self.datadir), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")
        self.start()
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                             autocommit=True) as conn:
            conn.execute("CREATE DATABASE okgin")

    def start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.datadir} "
                   "-c fsync=off -c max_connections=100")
        self._run("pg_ctl", "-D", str(self.datadir), "-o", options, "-l", str(self.log), "-w", "-t", "60", "start")

    def stop(self) -> None:
        """Fast shutdown: open sessions are cut, as in a crash or failover of the server."""
        self._run("pg_ctl", "-D", str(self.datadir), "-m", "fast", "-w", "-t", "60", "stop")

    def connect(self):
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="okgin",
                               autocommit=True, connect_timeout=5)


class AppProcess(ProcessGroup):
    """One okgin process (gunicorn, worker or beat) in its own process group, logging to a file."""

    stop_timeout = 20.0

    def __init__(self, name: str, argv: list[str], env: dict, workdir: Path):
        self.name = name
        self.argv = argv
        self.env = env
        self.workdir = workdir
        self.log_path = workdir / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.argv, cwd=self.workdir, env=self.env, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        log.close()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


class Stack:
    """Redis, PostgreSQL, gunicorn (``web``), a Celery ``worker`` and ``beat`` from the installed
    wheel with production settings. ``env_extra`` adds environment variables for the three okgin
    processes."""

    def __init__(self, env_extra: dict[str, str] | None = None):
        self.workdir = Path(tempfile.mkdtemp(prefix="okgin-faults-"))
        os.chmod(self.workdir, 0o755)
        redis_port, pg_port, web_port = ports(3)
        self.redis = RedisServer(redis_port, self.workdir)
        self.postgres = PostgresServer(pg_port, self.workdir)
        self.base = f"http://127.0.0.1:{web_port}"
        self.venv = self.workdir / "venv"
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("PYTEST", "DJANGO", "COV_", "CELERY_", "VIRTUAL_ENV", "PYTHON"))}
        self.env.update({
            "PATH": f"{self.venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.workdir),
            "DJANGO_SETTINGS_MODULE": "okgin_project.settings.production",
            "DATABASE_URL": self.postgres.url,
            "REDIS_URL": self.redis.url,
            "SECRET_KEY": "okgin-faults-" + os.urandom(16).hex(),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "HOST": "127.0.0.1",
            "PORT": str(web_port),
            "WEB_CONCURRENCY": "2",
            "PYTHONUNBUFFERED": "1",
        })
        self.env.update(env_extra or {})
        services = compose_services()  # the compose file's own commands, run here without Docker
        beat = [a for a in with_defaults(services["beat"]["command"]) if not a.startswith("--schedule=")]
        self.web = AppProcess("web", with_defaults(services["web"]["command"]), self.env, self.workdir)
        self.worker = AppProcess("worker", with_defaults(services["worker"]["command"]), self.env, self.workdir)
        self.beat = AppProcess("beat", [*beat, f"--schedule={self.workdir / 'beat-schedule'}"], self.env, self.workdir)

    def start(self) -> None:
        install_wheel(build_wheel(Path(tempfile.mkdtemp(prefix="wheel-", dir=self.workdir))), self.workdir)
        self.redis.start()
        self.postgres.init()
        migrate = with_defaults(compose_services()["migrate"]["command"])
        subprocess.run(migrate, cwd=self.workdir, env=self.env, check=True, timeout=300)
        for proc in (self.web, self.worker, self.beat):
            proc.start()
        wait_for(self.web_ready, timeout=60, interval=0.2, what="gunicorn")
        wait_for(lambda: "ready." in self.worker.log(), timeout=60, interval=0.2, what="the celery worker")

    def web_ready(self) -> bool:
        import requests

        try:
            return requests.get(self.base + "/api/schema/", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def verify_games(self) -> subprocess.CompletedProcess:
        """``verify_games`` over every stored game (needs PostgreSQL up)."""
        return subprocess.run(["django-admin", "verify_games"], cwd=self.workdir,
                              env=self.env, capture_output=True, text=True, timeout=600)

    def close(self) -> None:
        for proc in (self.beat, self.worker, self.web):
            proc.stop()
        try:
            self.postgres.stop()
        except subprocess.CalledProcessError:
            pass
        self.redis.stop()

    def logs(self) -> str:
        """The tail of each process's log, for a failure message."""
        parts = []
        for proc in (self.web, self.worker, self.beat):
            lines = proc.log().splitlines()[-30:]
            parts.append(f"--- {proc.name} ---\n" + "\n".join(lines))
        return "\n".join(parts)
