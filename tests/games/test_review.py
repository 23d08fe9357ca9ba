"""Game review (games/services/review.py, games/engine/review.py, issue 16): a participant of a
finished match asks for a review; the task (eager here; a real worker in tests/e2e) judges each of
its decisions from the view it had. Refused requests write nothing."""
import pytest

from games.engine import review as engine_review
from games.models import Game, GameReview, IdempotencyRecord, Move, Round
from tests.helpers import act_ok, assert_error, deck_for, register

# Alice (seat 0, non-dealer: first dealer 1) and Bob (seat 1, dealer). Alice sees the upcard 6D,
# her stock draws 3H and KS, and Bob's discard KD; Bob's other cards and his stock draw are hidden.
ALICE = "AC 2C 3C 4C 5C 6C 7C 8C 9C 5H"
DECK_A = deck_for(nondealer=ALICE, dealer="7S 8S 9S 2H 2D 2S KD QH JH 3D", upcard="6D", stock_top="3H 4H KS")
# The same except what Alice never sees: three of Bob's cards and the card he draws from the stock.
DECK_B = deck_for(nondealer=ALICE, dealer="7S 8S 9S 2H 2D 2S KD 10D JD QD", upcard="6D", stock_top="3H 8H KS")

# Alice's decisions (more than one legal action): seq 1 (take or pass the upcard), seq 4 (discard or
# knock with 3 points of deadwood, R7.2), seq 7 (draw from the stock or take KD), seq 8 (discard).
# Seq 3 (her draw after both passed, R5.4) is forced: not a decision.
SCRIPT = [
    ("alice", {"type": "pass"}),
    ("bob", {"type": "pass"}),
    ("alice", {"type": "draw_stock"}),
    ("alice", {"type": "discard", "card": "5H"}),
    ("bob", {"type": "draw_stock"}),
    ("bob", {"type": "discard", "card": "KD"}),
    ("alice", {"type": "draw_stock"}),
    ("alice", {"type": "discard", "card": "KS"}),
]
ALICE_DECISIONS = [1, 4, 7, 8]


def _played(alice, bob, deck=DECK_A, resign=True) -> int:
    r = alice.post("/api/v1/games/new/", {"kind": "invite", "opponent": "bob", "decks": [deck], "first_dealer": 1},
                   format="json")
    assert r.status_code == 201, r.content
    gid = r.json()["id"]
    assert bob.post(f"/api/v1/games/{gid}/accept/").status_code == 200
    clients = {"alice": alice, "bob": bob}
    for who, action in SCRIPT:
        act_ok(clients[who], gid, action)
    if resign:
        assert bob.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    return gid


@pytest.fixture
def post_review(django_capture_on_commit_callbacks):
    """POST a review request; the task queued after commit runs in-process (eager) at once."""
    def post(client, gid, **headers):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"/api/v1/games/{gid}/review/", **headers)
    return post


def _written():
    return GameReview.objects.count(), IdempotencyRecord.objects.count()


def _refused(response, code, before):
    assert_error(response, code)
    assert _written() == before


@pytest.mark.django_db
def test_review_of_each_decision_and_the_shown_summary(alice, bob, settings, post_review):
    gid = _played(alice, bob)
    r = post_review(alice, gid)
    assert r.status_code == 202, r.content  # queued (the eager task runs once the request commits)
    body = r.json()
    assert (body["status"], body["seat"], body["player"], body["game_id"]) == ("queued", 0, "alice", gid)
    assert body["iterations"] == settings.OKGIN_REVIEW_ITERATIONS == settings.OKGIN_AI_ITERATIONS == 32
    assert body["mistakes"] is None and body["decisions"] == [] and r.headers["Location"].endswith(
        f"/api/v1/games/{gid}/review/")

    r = alice.get(f"/api/v1/games/{gid}/review/")
    assert r.status_code == 200, r.content
    review = r.json()
    assert review["status"] == "done" and review["progress"] == {"decisions_done": 4, "decisions_total": 4}
    decisions = review["decisions"]
    assert [d["seq"] for d in decisions] == ALICE_DECISIONS
    assert [d["phase"] for d in decisions] == ["upcard", "discard", "draw", "discard"]
    assert [d["action"] for d in decisions] == [SCRIPT[s - 1][1] for s in ALICE_DECISIONS]
    # What Alice held and saw before each decision: no card of Bob's but the KD he threw.
    assert decisions[0]["hand"] == ALICE.split() and decisions[0]["upcard"] == "6D"
    assert decisions[1]["hand"] == "AC 2C 3C 4C 5C 6C 7C 8C 9C 3H 5H".split() and decisions[1]["upcard"] == "6D"
    assert decisions[2]["upcard"] == "KD" and decisions[3]["upcard"] == "KD" and "KS" in decisions[3]["hand"]
    for d in decisions:
        assert d["expected_loss"] >= 0 and d["standard_error"] >= 0
        assert d["mistake"] == (d["expected_loss"] > engine_review.MISTAKE_POINTS)
        assert (d["best_action"] == d["action"]) == (d["expected_loss"] == 0)
        if d["candidates"] > 1:
            assert d["samples"] == max(2, 32 // d["candidates"])
    assert review["mistake_threshold"] == engine_review.MISTAKE_POINTS == 3.0
    assert review["mistakes"] == sum(d["mistake"] for d in decisions)
    assert review["expected_loss"] == pytest.approx(sum(d["expected_loss"] for d in decisions), abs=0.02)
    (one_round,) = review["rounds"]
    costly = sorted((d for d in decisions if d["expected_loss"] > 0), key=lambda d: -d["expected_loss"])[:3]
    assert one_round["round"] == 1 and one_round["decisions"] == 4 and one_round["costliest"] == costly
    stored = GameReview.objects.get(game_id=gid)
    assert (stored.status, stored.attempts, stored.seat) == ("done", 1, 0)

    # Asking again returns the same review: nothing is queued or redone.
    again = post_review(alice, gid)
    assert again.status_code == 200 and again.json() == review
    assert GameReview.objects.get(game_id=gid).attempts == 1 and GameReview.objects.count() == 1


@pytest.mark.django_db
def test_the_review_uses_only_what_the_player_saw(alice, bob, post_review):
    """Two matches whose decks differ only in Bob's cards that Alice never saw (three cards of his
    hand and his stock draw): every decision of Alice's is reviewed the same."""
    a, b = _played(alice, bob, DECK_A), _played(alice, bob, DECK_B)
    hands = [Round.objects.get(game_id=g, number=1).deck[10:20] for g in (a, b)]
    assert hands[0] != hands[1]  # Bob really held other cards
    reviews = []
    for gid in (a, b):
        assert post_review(alice, gid).status_code == 202
        r = alice.get(f"/api/v1/games/{gid}/review/")
        assert r.status_code == 200
        reviews.append(r.json())
    assert reviews[0]["decisions"] == reviews[1]["decisions"] and len(reviews[0]["decisions"]) == 4
    assert reviews[0]["rounds"] == reviews[1]["rounds"]
    # Bob's decisions differ between the two (he held other cards): his reviews are his own.
    bob_reviews = []
    for gid in (a, b):
        assert post_review(bob, gid).status_code == 202
        bob_reviews.append(bob.get(f"/api/v1/games/{gid}/review/").json())
    # Bob's decisions: take or pass the upcard (seq 2), draw or take 5H (seq 5), discard (seq 6).
    assert [d["seq"] for d in bob_reviews[0]["decisions"]] == [2, 5, 6]
    assert bob_reviews[0]["decisions"][0]["hand"] != bob_reviews[1]["decisions"][0]["hand"]


@pytest.mark.django_db
@pytest.mark.error_code("review_not_requested")
def test_foreign_unfinished_and_unrequested(alice, bob, anon):
    gid = _played(alice, bob, resign=False)
    before = _written()
    for client in (alice, bob):
        _refused(client.post(f"/api/v1/games/{gid}/review/"), "game_not_finished", before)
        _refused(client.get(f"/api/v1/games/{gid}/review/"), "game_not_finished", before)
    assert bob.post(f"/api/v1/games/{gid}/resign/").status_code == 200
    carol = register(anon, "carol")
    before = _written()
    missing = Game.objects.order_by("-pk").first().pk + 1000
    for path in (f"/api/v1/games/{gid}/review/", f"/api/v1/games/{missing}/review/"):
        _refused(carol.post(path, HTTP_IDEMPOTENCY_KEY="k1"), "not_found", before)
        _refused(carol.get(path), "not_found", before)
    _refused(alice.get(f"/api/v1/games/{gid}/review/"), "review_not_requested", before)


@pytest.mark.django_db
def test_idempotency_key_replays_the_first_answer(alice, bob, post_review):
    gid = _played(alice, bob)
    first = post_review(alice, gid, HTTP_IDEMPOTENCY_KEY="review-1")
    assert first.status_code == 202
    again = post_review(alice, gid, HTTP_IDEMPOTENCY_KEY="review-1")
    assert again.status_code == 202 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert GameReview.objects.count() == 1 and GameReview.objects.get().attempts == 1
    other = post_review(alice, gid, HTTP_IDEMPOTENCY_KEY="review-2")
    assert other.status_code == 200 and other.json()["status"] == "done" and "Idempotent-Replayed" not in other.headers


@pytest.mark.django_db
def test_progress_while_queued_then_done(alice, bob, django_capture_on_commit_callbacks):
    gid = _played(alice, bob)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        r = alice.post(f"/api/v1/games/{gid}/review/")
    assert r.status_code == 202 and len(queued) == 1  # the task, not run yet
    r = alice.get(f"/api/v1/games/{gid}/review/")
    assert r.status_code == 202
    body = r.json()
    assert body["status"] == "queued" and body["progress"] == {"decisions_done": 0, "decisions_total": None}
    assert body["rounds"] == [] and body["expected_loss"] is None
    queued[0]()  # the task runs (eager)
    r = alice.get(f"/api/v1/games/{gid}/review/")
    assert r.status_code == 200 and r.json()["progress"] == {"decisions_done": 4, "decisions_total": 4}


@pytest.mark.django_db
def test_a_lost_task_is_queued_again_by_a_new_request(alice, bob, django_capture_on_commit_callbacks, post_review):
    from datetime import timedelta

    from django.utils import timezone

    from games.services.review import REVIEW_REQUEUE_AFTER_SECONDS

    gid = _played(alice, bob)
    with django_capture_on_commit_callbacks(execute=False) as lost:
        assert alice.post(f"/api/v1/games/{gid}/review/").status_code == 202
    assert len(lost) == 1  # never run: the broker lost it
    with django_capture_on_commit_callbacks(execute=False) as again:
        assert alice.post(f"/api/v1/games/{gid}/review/").status_code == 202
    assert again == []  # recent: not queued twice
    GameReview.objects.update(updated_at=timezone.now() - timedelta(seconds=REVIEW_REQUEUE_AFTER_SECONDS + 1))
    assert post_review(alice, gid).status_code == 202  # queued again, and run (eager)
    assert alice.get(f"/api/v1/games/{gid}/review/").status_code == 200
    assert GameReview.objects.get().attempts == 1


@pytest.mark.django_db
@pytest.mark.error_code("review_failed")
def test_a_move_log_that_does_not_replay_fails_and_can_be_retried(alice, bob, post_review):
    gid = _played(alice, bob)
    move = Move.objects.get(game_id=gid, seq=4)
    Move.objects.filter(pk=move.pk).update(action={"type": "discard", "card": "KH"})  # not in her hand
    assert post_review(alice, gid).status_code == 202
    err = assert_error(alice.get(f"/api/v1/games/{gid}/review/"), "review_failed")
    assert "POST" in err["message"]
    stored = GameReview.objects.get()
    assert stored.status == "failed" and "KH" in stored.error and stored.result is None
    Move.objects.filter(pk=move.pk).update(action=move.action)
    r = post_review(alice, gid)
    assert r.status_code == 202 and r.json()["status"] == "queued"
    assert alice.get(f"/api/v1/games/{gid}/review/").status_code == 200
    assert GameReview.objects.get().attempts == 2
