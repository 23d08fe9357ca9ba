"""Run by test_views_games_history_index.py in a subprocess against a fresh SQLite file (the
embedded default): a player's games in both seats, paged by ``GET /api/v1/games/`` two at a time in
every ordering, forward then back. Prints one JSON object ``{ordering: [forward pages, pages back,
expected ids]}``, the expected order worked out here from every game's fields."""
import json

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from games import services  # noqa: E402
from games.models import Game  # noqa: E402
from players.services import player_register  # noqa: E402

call_command("migrate", verbosity=0)
ann = player_register(username="ann", password="s3cret-pass-ann")
ben = player_register(username="ben", password="s3cret-pass-ben")
for i in range(9):
    creator, invited = (ann, ben) if i % 2 else (ben, ann)
    game = services.game_create(creator=creator, kind="invite", opponent_name=invited.name)
    if i % 3:
        services.invitation_accept(game_id=game.pk, player=invited)
same = Game.objects.order_by("pk")[3]
Game.objects.filter(pk__in=[g.pk for g in Game.objects.order_by("pk")[3:6]]).update(
    created_at=same.created_at, updated_at=same.updated_at)

client = Client()
token = client.post("/api/v1/auth/token/", {"username": "ann", "password": "s3cret-pass-ann"},
                    content_type="application/json").json()["access"]
client.defaults["HTTP_AUTHORIZATION"] = "Bearer " + token
report = {}
for ordering in ("-created_at", "created_at", "-updated_at", "updated_at"):
    pages = [client.get("/api/v1/games/", {"limit": 2, "ordering": ordering}).json()]
    while pages[-1]["has_more"]:
        pages.append(client.get("/api/v1/games/", {"limit": 2, "ordering": ordering,
                                                   "cursor": pages[-1]["next_cursor"]}).json())
    back, page = [], pages[-1]
    while page["has_prev"]:
        page = client.get("/api/v1/games/", {"limit": 2, "ordering": ordering, "cursor": page["prev_cursor"]}).json()
        back.insert(0, [g["id"] for g in page["results"]])
    field = ordering.lstrip("-")
    expected = [g.pk for g in sorted(Game.objects.all(), key=lambda g: (getattr(g, field), g.pk),
                                     reverse=ordering[0] == "-")]
    report[ordering] = [[[g["id"] for g in p["results"]] for p in pages], back, expected]
print(json.dumps(report))
