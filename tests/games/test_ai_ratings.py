"""Published ratings of the AI levels (issue 13): the fixed Glicko-2 ratings measured by
benchmarks/ai_ratings.py are the ones docs/ratings.md publishes, and the API shows them on the AI's
seat of a game and in the AI player's statistics; people's seats show none."""
import re
from pathlib import Path

import pytest

from games.ratings import AI_RATINGS

ROOT = Path(__file__).resolve().parents[2]


def _published_table() -> dict[str, tuple[float, float, int]]:
    """``level -> (rating, rd, matches)`` from the table of docs/ratings.md#the-ai-levels."""
    page = (ROOT / "docs" / "ratings.md").read_text()
    section = page.split("## The AI levels", 1)[1]
    rows = re.findall(r"^\| `(random|simple|strong)` \| (\d+) \| (\d+) \| [^|]+ \| (\d+) \|", section, re.M)
    return {level: (float(r), float(rd), int(n)) for level, r, rd, n in rows}


def test_the_code_publishes_the_documented_figures():
    table = _published_table()
    assert set(table) == {"random", "simple", "strong"}
    for level, (rating, rd, matches) in table.items():
        r = AI_RATINGS["oklahoma"][level]
        assert (round(r.rating), round(r.rd), r.matches) == (rating, rd, matches), level
    assert table["simple"][0] == 1500  # the anchor
    assert table["random"][0] < table["simple"][0] < table["strong"][0]
    assert "classic" not in AI_RATINGS  # not measured: nothing published


@pytest.mark.django_db
def test_the_ai_seat_and_the_ai_player_stats_show_it(alice):
    table = _published_table()
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "strong"}, format="json")
    assert r.status_code == 201, r.content
    me, ai = r.json()["seats"]
    assert me["published_rating"] is None
    rating, rd, matches = table["strong"]
    assert ai["published_rating"]["matches"] == matches
    assert abs(ai["published_rating"]["rating"] - rating) <= 0.5 and abs(ai["published_rating"]["rd"] - rd) <= 0.5
    listed = alice.get("/api/v1/games/").json()["results"][0]["seats"][1]["published_rating"]
    assert listed == ai["published_rating"]
    stats = alice.get("/api/v1/players/ai-strong/stats/").json()
    (entry,) = stats["ratings"]
    assert (entry["variant"], entry["published"], entry["games"], entry["history"]) == ("oklahoma", True, matches, [])
    assert abs(entry["rating"] - rating) <= 0.5 and entry["rating"] == ai["published_rating"]["rating"]
    r = alice.post("/api/v1/games/new/", {"kind": "ai", "ai_level": "random", "rules": {"variant": "classic"}},
                   format="json")
    assert r.json()["seats"][1]["published_rating"] is None  # classic: not measured


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["ai-simple", "AI-Simple"])
def test_an_ai_levels_stats_show_its_published_rating_before_anyone_played_it(alice, name):
    """No game against simple yet (its player row does not exist): its stats still answer 200 with
    the published rating (they were 404 until someone played it). A name that is no level is 404."""
    from players.models import Player

    assert not Player.objects.filter(name="ai-simple").exists()
    r = alice.get(f"/api/v1/players/{name}/stats/")
    assert r.status_code == 200, r.content
    (entry,) = r.json()["ratings"]
    rating, _rd, matches = _published_table()["simple"]
    assert entry["published"] is True and entry["games"] == matches and abs(entry["rating"] - rating) <= 0.5
    assert alice.get("/api/v1/players/ai-grandmaster/stats/").status_code == 404
