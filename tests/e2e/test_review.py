"""End-to-end: a game review runs in the real Celery worker (over Redis, against PostgreSQL) and is
read over HTTP: 202 while queued or running, then 200 with the reviewed decisions."""
import pytest

from games.models import GameReview
from tests.e2e.conftest import wait_for
from tests.e2e.test_async_play import _ai_game_person_first, _my_turn_or_over

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_review_is_made_by_the_worker_and_read_when_ready(e2e):
    me, gid = _ai_game_person_first(e2e)
    game = me.game(gid)
    assert me.act(gid, game["version"], {"type": "pass"}).status_code == 200  # a decision (R5.1)
    _my_turn_or_over(me, gid)  # the AI has answered through the worker
    assert me.post(f"/games/{gid}/resign/").status_code == 200
    r = me.post(f"/games/{gid}/review/", headers={"Idempotency-Key": "e2e-review"})
    assert r.status_code == 202, r.text
    assert r.json()["status"] == "queued" and r.headers["Location"].endswith(f"/api/v1/games/{gid}/review/")

    def ready():
        resp = me.http.get(f"{me.base}/games/{gid}/review/", timeout=30)
        assert resp.status_code in (200, 202), resp.text
        return resp.json() if resp.status_code == 200 else None

    review = wait_for(ready, timeout=60, what="the review by the worker")
    assert review["status"] == "done" and [d["seq"] for d in review["decisions"]] == [1]
    assert review["decisions"][0]["action"] == {"type": "pass"} and len(review["rounds"]) == 1
    stored = GameReview.objects.get(game_id=gid)
    assert (stored.status, stored.attempts, stored.decisions_done) == ("done", 1, 1)
    again = me.post(f"/games/{gid}/review/", headers={"Idempotency-Key": "e2e-review"})
    assert again.status_code == 202 and again.headers["Idempotent-Replayed"] == "true"
