"""Throughput of whole games over HTTP next to a bare reference on the same stack (issue 14).

Starts the stack itself: a throw-away PostgreSQL database (``--db``, dropped and created again), a
Redis db of its own (``--redis-url``, flushed), gunicorn with the production settings and
``okgin_project/gunicorn_conf.py`` (``--workers`` x ``--threads``), and one Celery worker. Then,
for each N of ``--clients`` (1, 8, 32), three phases of ``--seconds`` each on loopback:

- games: N clients, each its own player, play whole games against the ``random`` AI, one after
  another (create, then act whenever it is their turn, every action with an ``Idempotency-Key``;
  while the AI plays they long-poll ``GET games/{id}/?wait=`` with ``If-None-Match``);
- reference django: N clients POST ``bench/reference/django/``: lock one row, insert one row,
  update one row in one transaction, in a plain Django view (no DRF);
- reference psycopg: the same transaction in a bare WSGI callable on a psycopg pool.

For each it prints requests per second (for games: accepted actions per second), the latency p50 /
p95 / p99 (for games: of the action POSTs), errors (any answer but 200/201/304, or no answer), SQL
statements per request (for games: per action POST, counted in the web process), and CPU
milliseconds per request (for games: per action, all the web's, the worker's and PostgreSQL's
CPU of the phase, game creation and long-polls included), then the ratios of actions/s to both
references. The reference endpoints exist only in this stack (``benchmarks/loadstack``).
The phases stop by themselves; ``--quick`` runs 5-second phases. With ``--rounds R`` the three
phases run R times in turn for each N (games, django, psycopg, games, ...) and the rows give their
totals, so that a change in the machine's speed during the run (a shared machine's CPU time per
request varies by up to 2x from one minute to the next) weighs on the games and the references
alike; the spread of the R per-round ratios is printed too.

    .venv/bin/python benchmarks/load.py [--quick] [--rounds 1] [--clients 1,8,32] [--seconds 20] [--workers 2]
        [--threads 8] [--celery-concurrency 2] [--celery-pool threads] [--redis-url redis://127.0.0.1:6379/14]
        [--db okgin_bench_load]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TICK = os.sysconf("SC_CLK_TCK")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, int(-(-q * len(ordered) // 100)))
    return ordered[rank - 1]


def _cpu_seconds(pids) -> float:
    """User + system CPU seconds of the processes ``pids`` (gone ones count 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def _children(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                todo += [int(c) for c in Path(f"/proc/{p}/task/{tid}/children").read_text().split()]
        except OSError:
            pass
    return out


class Client:
    """One HTTP/1.1 keep-alive connection on loopback."""

    def __init__(self, port: int, token: str | None = None):
        self.port, self.token = port, token
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def request(self, method: str, path: str, body=None, headers=None):
        h = {"Host": "127.0.0.1"}
        if self.token:
            h["Authorization"] = "Bearer " + self.token
        if body is not None:
            body = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=body, headers=h)
                r = self.conn.getresponse()
                return r.status, r.headers, r.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")


class Phase:
    """Counters of one phase, shared by its client threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.queries: list[int] = []
        self.done = 0
        self.errors = 0
        self.error_samples: list[str] = []

    def ok(self, seconds: float, headers) -> None:
        with self.lock:
            self.done += 1
            self.latencies.append(seconds * 1000)
            if headers.get("X-Bench-Queries"):
                self.queries.append(int(headers["X-Bench-Queries"]))

    def error(self, what: str) -> None:
        with self.lock:
            self.errors += 1
            if len(self.error_samples) < 5:
                self.error_samples.append(what[:300])


def _choice(view: dict) -> dict:
    """Knock when allowed, else pass or draw from the stock, else the last legal discard."""
    legal = view["legal_actions"]
    return next((a for a in legal if a["type"] == "knock"), None) or \
        next((a for a in legal if a["type"] in ("pass", "draw_stock")), None) or legal[-1]


def _player(client: Client, phase: Phase, stop: threading.Event) -> None:
    api = "/api/v1"
    while not stop.is_set():
        status, _h, body = client.request("POST", f"{api}/games/new/", {"kind": "ai", "ai_level": "random"})
        if status != 201:
            phase.error(f"create {status} {body[:200]!r}")
            time.sleep(0.1)
            continue
        game = json.loads(body)
        gid = game["id"]
        while game["status"] == "active" and not stop.is_set():
            if game["is_your_turn"]:
                t0 = time.perf_counter()
                status, headers, body = client.request(
                    "POST", f"{api}/games/{gid}/actions/", {"version": game["version"], "action": _choice(game["view"])},
                    {"Idempotency-Key": uuid.uuid4().hex})
                if status == 200:
                    phase.ok(time.perf_counter() - t0, headers)
                    game = json.loads(body)["game"]
                    continue
                phase.error(f"action {status} {body[:200]!r}")
            etag = f'"g{gid}-v{game["version"]}-s{game["your_seat"]}"'
            status, _h, body = client.request("GET", f"{api}/games/{gid}/?wait=10", headers={"If-None-Match": etag})
            if status == 200:
                game = json.loads(body)
            elif status != 304:
                phase.error(f"view {status} {body[:200]!r}")
                time.sleep(0.1)


def _reference(client: Client, path: str, phase: Phase, stop: threading.Event) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        status, headers, body = client.request("POST", path)
        if status == 200:
            phase.ok(time.perf_counter() - t0, headers)
        else:
            phase.error(f"reference {status} {body[:200]!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,8,32", help="comma-separated numbers of concurrent clients")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--quick", action="store_true", help="5-second phases")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the three phases this many times per client count, interleaved, and "
                             "report their totals (and the spread of the per-round ratios)")
    parser.add_argument("--workers", default="2", help="gunicorn worker processes (WEB_CONCURRENCY)")
    parser.add_argument("--threads", default="8", help="threads per gunicorn worker (GUNICORN_THREADS)")
    parser.add_argument("--celery-concurrency", default="2")
    parser.add_argument("--celery-pool", default=None,
                        help="the worker's --pool (prefork, threads, solo); default: the settings' pool")
    parser.add_argument("--port", type=int, default=20030)
    parser.add_argument("--db", default="okgin_bench_load")
    parser.add_argument("--redis-url", default=os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/14"),
                        help="a Redis db of its own: flushed at the start")
    args = parser.parse_args()
    seconds = 5.0 if args.quick else args.seconds
    counts = [int(n) for n in args.clients.split(",")]

    import psycopg
    import redis

    pg = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432")
    database_url = f"{pg}/{args.db}"
    with psycopg.connect(pg + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{args.db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{args.db}"')
    redis.Redis.from_url(args.redis_url).flushdb()
    rate = "1000000/min"  # the rate limits run (Redis counters) but never refuse the benchmark's clients
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "loadstack.settings",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "benchmarks"), str(ROOT)]),
        "SECRET_KEY": "bench-" + uuid.uuid4().hex * 2,
        "DATABASE_URL": database_url,
        "REDIS_URL": args.redis_url,
        "THROTTLE_USER": rate, "THROTTLE_ANON": rate, "THROTTLE_AUTH": rate, "THROTTLE_ACTIONS": rate,
        "HOST": "127.0.0.1", "PORT": str(args.port), "LOG_FORMAT": "text", "LOG_LEVEL": "WARNING",
        "WEB_CONCURRENCY": args.workers, "GUNICORN_THREADS": args.threads,
    }
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE bench_counter (id integer PRIMARY KEY, n bigint NOT NULL DEFAULT 0)")
        conn.execute("CREATE TABLE bench_log (id bigserial PRIMARY KEY, counter_id integer NOT NULL, "
                     "at timestamptz NOT NULL)")
        conn.execute("INSERT INTO bench_counter (id) SELECT generate_series(0, %s)", [max(counts)])

    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "SECRET_KEY", "DATABASE_URL", "REDIS_URL")})
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection

    from players.models import Player
    from players.tokens import token_pair_for

    tokens = []
    for i in range(max(counts)):  # accounts made directly (no password hashing: tokens are minted here)
        user = get_user_model().objects.create(username=f"load{i}")
        user.set_unusable_password()
        user.save()
        Player.objects.create(user=user, name=f"load{i}")
        tokens.append(token_pair_for(user)["access"])
    connection.close()

    procs = {
        "web": subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "python:okgin_project.gunicorn_conf",
                                 "loadstack.wsgi:application"], cwd=ROOT, env=env, start_new_session=True),
        "worker": subprocess.Popen([sys.executable, "-m", "celery", "--quiet", "-A", "okgin_project", "worker",
                                    "--loglevel=WARNING", "--concurrency", args.celery_concurrency,
                                    *(["--pool", args.celery_pool] if args.celery_pool else [])],
                                   cwd=ROOT, env=env, start_new_session=True),
    }
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if Client(args.port).request("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("web server did not start")
            time.sleep(0.3)
        time.sleep(2)  # the worker connects to the broker

        def pg_backends() -> list[int]:
            with psycopg.connect(pg + "/postgres", autocommit=True) as c:
                return [r[0] for r in c.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s",
                                                [args.db]).fetchall()]

        print(f"load average at start: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
              f"{os.getloadavg()[2]:.2f} ({os.cpu_count()} cores); gunicorn {args.workers} x {args.threads} "
              f"gthread, Celery worker concurrency {args.celery_concurrency}, {seconds:.0f} s per phase")
        # Warm-up, not measured: each web thread imports and connects on its first requests.
        warm, stop = Phase(), threading.Event()
        warmers = [threading.Thread(target=_player, args=(Client(args.port, tokens[i]), warm, stop), daemon=True)
                   for i in range(min(max(counts), 8))]
        warmers += [threading.Thread(target=_reference, args=(Client(args.port), f"{path}?row={i}", warm, stop),
                                     daemon=True)
                    for i in range(4) for path in ("/bench/reference/django/", "/bench/reference/psycopg/")]
        for t in warmers:
            t.start()
        time.sleep(min(seconds, 5.0))
        stop.set()
        for t in warmers:
            t.join(timeout=30)
        header = (f"{'clients':>7}  {'phase':<17} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
                  f"{'errors':>6} {'SQL/req':>7} {'web CPU':>8} {'worker':>7} {'PG CPU':>7}  (CPU: ms per request)")
        print(header)
        kinds = (("games", None), ("reference django", "/bench/reference/django/"),
                 ("reference psycopg", "/bench/reference/psycopg/"))

        def run_phase(n: int, target: str | None):
            """One phase of ``seconds`` with ``n`` clients: (Phase, requests done, seconds, CPU s of web, worker, PG)."""
            phase, stop = Phase(), threading.Event()
            clients = [Client(args.port, tokens[i]) for i in range(n)]
            threads = [threading.Thread(target=_player, args=(c, phase, stop), daemon=True) if target is None
                       else threading.Thread(target=_reference, args=(c, f"{target}?row={i}", phase, stop),
                                             daemon=True)
                       for i, c in enumerate(clients)]
            web_pids, worker_pids = _children(procs["web"].pid), _children(procs["worker"].pid)
            backends = pg_backends()
            cpu0 = (_cpu_seconds(web_pids), _cpu_seconds(worker_pids), _cpu_seconds(backends))
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            time.sleep(seconds)
            stop.set()
            elapsed = time.perf_counter() - t0
            done = phase.done  # counted until the stop; requests still in flight finish below
            cpu1 = (_cpu_seconds(web_pids), _cpu_seconds(worker_pids), _cpu_seconds(set(backends) | set(pg_backends())))
            for t in threads:
                t.join(timeout=30)
            return phase, done, elapsed, [b - a for a, b in zip(cpu0, cpu1)]

        for n in counts:
            # Rounds interleave the three phases (games, django, psycopg, games, ...), so a change in
            # the machine's speed during the run weighs on the games and on the references alike.
            total = {kind: [Phase(), 0, 0.0, [0.0, 0.0, 0.0]] for kind, _t in kinds}
            round_ratios = []
            for _round in range(args.rounds):
                rates = {}
                for kind, target in kinds:
                    phase, done, elapsed, cpu = run_phase(n, target)
                    acc = total[kind]
                    acc[0].latencies += phase.latencies
                    acc[0].queries += phase.queries
                    acc[0].errors += phase.errors
                    acc[0].error_samples += phase.error_samples[:5 - len(acc[0].error_samples)]
                    acc[1] += done
                    acc[2] += elapsed
                    acc[3] = [a + b for a, b in zip(acc[3], cpu)]
                    rates[kind] = done / elapsed
                round_ratios.append(rates["games"] / rates["reference psycopg"])
            rates = {}
            for kind, _target in kinds:
                phase, done, elapsed, cpu = total[kind]
                per = max(done, 1)
                rates[kind] = done / elapsed
                queries = sum(phase.queries) / len(phase.queries) if phase.queries else float("nan")
                print(f"{n:>7}  {kind:<17} {rates[kind]:>8.1f} {_percentile(phase.latencies, 50):>8.1f} "
                      f"{_percentile(phase.latencies, 95):>8.1f} {_percentile(phase.latencies, 99):>8.1f} "
                      f"{phase.errors:>6} {queries:>7.1f} {cpu[0] * 1000 / per:>8.2f} "
                      f"{cpu[1] * 1000 / per:>7.2f} {cpu[2] * 1000 / per:>7.2f}", flush=True)
                for sample in phase.error_samples:
                    print(f"           error: {sample}")
            print(f"{n:>7}  ratio actions/s to reference django {rates['games'] / rates['reference django']:.3f}, "
                  f"to reference psycopg {rates['games'] / rates['reference psycopg']:.3f}", flush=True)
            if args.rounds > 1:
                ordered = sorted(round_ratios)
                print(f"{n:>7}  ratio to reference psycopg by round: min {ordered[0]:.3f}, median "
                      f"{ordered[len(ordered) // 2]:.3f}, max {ordered[-1]:.3f} ({args.rounds} rounds)", flush=True)
        print(f"load average at end: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    finally:
        for proc in procs.values():
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in procs.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
