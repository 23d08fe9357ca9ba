"""Clients that play against the AI over HTTP while a fault test breaks the stack under them, and
record every answer: each status code, and each action the server accepted (200), so that the
test can check the database afterwards.

A client keeps ``games`` AI games going at once (``random`` AI unless told), reads them, plays a
random legal action with a fresh ``Idempotency-Key`` whenever it is its turn, and starts a new game
when one ends (``pause``: seconds of rest after each accepted action). A 503 is retried with the same key after a short pause (what a client should do
with ``Retry-After``), so a request whose answer was lost is never applied twice.
"""
from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter

import requests

OK_STATUSES = {200, 201, 409, 503}


class PlayingClient(threading.Thread):
    """One player (``name``) in a thread; ``stop_event`` ends the loop after the request in flight."""

    def __init__(self, base: str, name: str, stop_event: threading.Event, *, games: int = 3,
                 ai_level: str = "random", seed: int = 0, pause: float = 0.0, opponent: str | None = None):
        super().__init__(name=name, daemon=True)
        self.api = base + "/api/v1"
        self.player = name
        self.stop_event = stop_event
        self.n_games = games
        self.ai_level = ai_level
        self.rng = random.Random(seed)
        self.pause = pause  # seconds after each accepted action (a slower player)
        self.opponent = opponent  # invite this person (an ``AcceptingClient``) instead of playing the AI
        self.seat = 0  # the seat this client's games give it
        self.http = requests.Session()
        self.statuses: Counter = Counter()
        self.errors: list[str] = []  # transport errors and unexpected answers
        self.accepted: dict[int, list[tuple[int, dict]]] = {}  # game id -> [(version acted on, action)]
        self.games: set[int] = set()
        self.all_games: set[int] = set()

    # --- HTTP with retries of 503 ---------------------------------------------------------

    def call(self, method: str, path: str, body=None, key: str | None = None, *, persist: bool = False):
        """One request, repeated while it answers 503 (``persist``: also after ``stop_event``).
        Returns the last response, or None after a transport error (recorded in ``errors``)."""
        headers = {"Idempotency-Key": key} if key else {}
        while True:
            try:
                r = self.http.request(method, self.api + path, json=body, headers=headers, timeout=30)
            except requests.RequestException as exc:
                self.errors.append(f"{method} {path}: {type(exc).__name__}: {exc}")
                return None
            self.statuses[r.status_code] += 1
            if r.status_code not in OK_STATUSES:
                self.errors.append(f"{method} {path}: {r.status_code} {r.text[:300]}")
            if r.status_code != 503:
                return r
            if r.json()["error"]["code"] not in ("database_unavailable", "busy") or "Retry-After" not in r.headers:
                self.errors.append(f"{method} {path}: 503 without the retry contract: {r.headers} {r.text[:200]}")
            if self.stop_event.is_set() and not persist:
                return r
            time.sleep(min(float(r.headers.get("Retry-After", 1)), 1.0))

    def login(self) -> None:
        password = "s3cret-pass-" + self.player
        self.call("POST", "/auth/register/", {"username": self.player, "password": password}, persist=True)
        r = self.call("POST", "/auth/token/", {"username": self.player, "password": password}, persist=True)
        self.http.headers["Authorization"] = "Bearer " + r.json()["access"]

    # --- play -----------------------------------------------------------------------------

    def run(self) -> None:
        try:
            while not self.stop_event.is_set():
                while len(self.games) < self.n_games and not self.stop_event.is_set():
                    self.new_game()
                for gid in list(self.games):
                    if self.stop_event.is_set():
                        break
                    self.step(gid)
                time.sleep(0.02)
        except Exception as exc:  # a bug in the client must fail the test, not vanish with the thread
            self.errors.append(f"client crashed: {type(exc).__name__}: {exc}")

    def new_game(self) -> None:
        body = ({"kind": "invite", "opponent": self.opponent} if self.opponent
                else {"kind": "ai", "ai_level": self.ai_level})
        r = self.call("POST", "/games/new/", body)
        if r is not None and r.status_code == 201:
            gid = r.json()["id"]
            self.games.add(gid)
            self.all_games.add(gid)
            self.accepted.setdefault(gid, [])

    def step(self, gid: int) -> None:
        r = self.call("GET", f"/games/{gid}/")
        if r is None or r.status_code != 200:
            return
        game = r.json()
        if game["status"] == "invited":  # waiting for the opponent to accept
            return
        if game["status"] != "active":
            self.games.discard(gid)
            return
        if not game["is_your_turn"]:
            return
        action = self.rng.choice(game["view"]["legal_actions"])
        key = uuid.uuid4().hex
        # Once sent, an action is followed through to a final answer (a 503 means nothing was done).
        r = self.call("POST", f"/games/{gid}/actions/", {"version": game["version"], "action": action}, key,
                      persist=True)
        if r is not None and r.status_code == 200:
            self.accepted[gid].append((game["version"], action))
            self.stop_event.wait(self.pause)


class AcceptingClient(PlayingClient):
    """A person who accepts the invitations of a ``PlayingClient`` with ``opponent`` set, then plays
    those games from seat 1 like any client."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seat = 1

    def new_game(self) -> None:
        r = self.call("GET", "/games/?status=invited&limit=100")
        waiting = [g["id"] for g in r.json()["results"] if g["your_seat"] == 1] if r is not None and r.status_code == 200 else []
        for gid in waiting:
            r = self.call("POST", f"/games/{gid}/accept/", persist=True)
            if r is not None and r.status_code == 200:
                self.games.add(gid)
                self.all_games.add(gid)
                self.accepted.setdefault(gid, [])
        if not waiting:
            self.stop_event.wait(0.2)


def summary(clients: list[PlayingClient]) -> tuple[Counter, list[str]]:
    """All clients' status counts and errors together."""
    statuses: Counter = Counter()
    errors: list[str] = []
    for c in clients:
        statuses.update(c.statuses)
        errors += c.errors
    return statuses, errors
