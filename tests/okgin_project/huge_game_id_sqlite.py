"""Run by test_idempotent_creates.py in a subprocess against a fresh SQLite file (the embedded
default): keyed POSTs to game ids no 64-bit column holds. Prints one JSON object
``{"<operation> <game id>": [status, error code], ..., "records": n}``."""
import json

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from games.models import IdempotencyRecord  # noqa: E402
from players.services import player_register  # noqa: E402

call_command("migrate", verbosity=0)
player_register(username="ann", password="s3cret-pass-ann")
client = Client()
token = client.post("/api/v1/auth/token/", {"username": "ann", "password": "s3cret-pass-ann"},
                    content_type="application/json").json()["access"]
client.defaults["HTTP_AUTHORIZATION"] = "Bearer " + token
report = {}
for operation in ("resign", "accept", "decline", "abort", "review", "rematch"):
    for game_id in (2**63, 10**20):
        r = client.post(f"/api/v1/games/{game_id}/{operation}/", content_type="application/json",
                        HTTP_IDEMPOTENCY_KEY="k-1")
        report[f"{operation} {game_id}"] = [r.status_code, r.json()["error"]["code"]]
report["records"] = IdempotencyRecord.objects.count()
print(json.dumps(report))
