"""Run by test_sqlite_concurrency.py in a subprocess (the suite's own database is PostgreSQL):
the embedded default's settings against a fresh SQLite file (``DATABASE_URL``), requests fired from
threads at the WSGI application, each thread with its own SQLite connection. Prints one JSON
object with the status codes (and bodies) seen, phase by phase."""
import json
import sqlite3
import threading

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, connections  # noqa: E402
from django.test import Client  # noqa: E402

N = 8
call_command("migrate", verbosity=0)


def client(token=None):
    c = Client(raise_request_exception=False)
    if token:
        c.defaults["HTTP_AUTHORIZATION"] = "Bearer " + token
    return c


def post(c, url, body, **headers):
    r = c.post(url, json.dumps(body), content_type="application/json", **headers)
    return r.status_code, (r.json() if r.get("Content-Type", "").startswith("application/json") else None), \
        r.get("Retry-After")


def together(fn, n=N):
    """Run fn(i) in n threads started together; returns the n results in order."""
    out = [None] * n
    barrier = threading.Barrier(n)

    def run(i):
        try:
            barrier.wait()
            out[i] = fn(i)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


report = {}
pw = "correct-horse-42"
assert post(client(), "/api/v1/auth/register/", {"username": "owner", "password": pw})[0] == 201
report["register"] = [s for s, _b, _r in together(
    lambda i: post(client(), "/api/v1/auth/register/", {"username": f"player{i}", "password": pw}))]

token = post(client(), "/api/v1/auth/token/", {"username": "owner", "password": pw})[1]["access"]
me = client(token)
gid = post(me, "/api/v1/games/new/", {"kind": "ai", "ai_level": "random"})[1]["id"]
game = me.get(f"/api/v1/games/{gid}/").json()
action = game["view"]["legal_actions"][0]
body = {"version": game["version"], "action": action}
races = together(lambda i: post(client(token), f"/api/v1/games/{gid}/actions/", body, HTTP_IDEMPOTENCY_KEY=f"k{i}"))
report["race"] = [s for s, _b, _r in races]

game = me.get(f"/api/v1/games/{gid}/").json()
body = {"version": game["version"], "action": game["view"]["legal_actions"][0]}
retries = together(lambda i: post(client(token), f"/api/v1/games/{gid}/actions/", body, HTTP_IDEMPOTENCY_KEY="same"))
report["retry"] = [s for s, _b, _r in retries]
report["retry_same_body"] = len({json.dumps(b, sort_keys=True) for _s, b, _r in retries}) == 1

# Another process holds the write lock longer than our busy timeout: 503 busy, not 500.
connections.settings["default"]["OPTIONS"]["timeout"] = 0.5
connection.close()
blocker = sqlite3.connect(connections.settings["default"]["NAME"], isolation_level=None)
blocker.execute("BEGIN EXCLUSIVE")
report["locked"] = together(lambda i: post(client(), "/api/v1/auth/register/",
                                           {"username": "late-comer", "password": pw}), n=1)[0]
blocker.execute("ROLLBACK")
print(json.dumps(report))
