"""Test helpers: players over the real HTTP API (JWT), fixed decks, and a hidden-card scanner."""
from __future__ import annotations

import itertools
from typing import Any

from django.contrib.auth import get_user_model
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
    r = client.post("/api/v1/auth/token/", {"username": name, "password": "s3cret-pass-" + name}, format="json")
    assert r.status_code == 200, r.content
    authed = APIClient()
    authed.credentials(HTTP_AUTHORIZATION="Bearer " + r.json()["access"])
    return authed


def act(client: APIClient, game_id: int, version: int, action: dict, key: str | None = None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return client.post(f"/api/v1/games/{game_id}/actions/", {"version": version, "action": action},
                       format="json", **headers)


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
