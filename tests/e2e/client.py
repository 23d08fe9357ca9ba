"""A small HTTP client of the okgin API for the e2e tests (``requests`` against the live server)."""
from __future__ import annotations

import itertools

import requests

from games import engine

_counter = itertools.count(1)


class Player:
    """A registered person talking to ``base`` over HTTP with a JWT."""

    def __init__(self, base: str, name: str | None = None):
        self.base = base.rstrip("/") + "/api/v1"
        self.name = name or f"e2e{next(_counter)}x{id(self) % 10000}"
        self.http = requests.Session()
        password = "s3cret-pass-" + self.name
        r = self.http.post(f"{self.base}/auth/register/", json={"username": self.name, "password": password})
        assert r.status_code == 201, r.text
        r = self.http.post(f"{self.base}/auth/token/", json={"username": self.name, "password": password})
        self.http.headers["Authorization"] = "Bearer " + r.json()["access"]

    def get(self, path: str, **params):
        r = self.http.get(self.base + path, params=params, timeout=30)
        assert r.status_code == 200, r.text
        return r.json()

    def post(self, path: str, body=None, **kwargs):
        return self.http.post(self.base + path, json=body, timeout=30, **kwargs)

    def game(self, gid: int) -> dict:
        return self.get(f"/games/{gid}/")

    def act(self, gid: int, version: int, action: dict):
        return self.post(f"/games/{gid}/actions/", {"version": version, "action": action})


def simple_choice(view: dict) -> dict:
    """A plain strategy from a player's view: knock when allowed (lowest deadwood), take nothing
    from the upcard, draw from the stock, discard the card that leaves the least deadwood."""
    legal = view["legal_actions"]
    hand = engine.parse_cards(view["hand"])

    def deadwood_without(code):
        return engine.min_deadwood([c for c in hand if c.code != code])

    knocks = [a for a in legal if a["type"] == "knock"]
    if knocks:
        return min(knocks, key=lambda a: deadwood_without(a["card"]))
    for kind in ("pass", "draw_stock"):
        for a in legal:
            if a["type"] == kind:
                return a
    discards = [a for a in legal if a["type"] == "discard"]
    if discards:
        return min(discards, key=lambda a: deadwood_without(a["card"]))
    return legal[0]
