"""The services name the tasks they queue (games/queue.py, notifications/queue.py) instead of
importing the task modules: each name must be a task that the task modules register."""
import pytest

from games import queue as games_queue
from notifications import queue as notifications_queue
from okgin_project.celery import enqueue_after_commit, task_named


def test_each_queued_name_is_the_registered_task_of_its_module():
    from games import tasks as games_tasks
    from notifications import tasks as notifications_tasks

    # (the module attributes are Celery's proxies of the registered tasks: compare what they run)
    assert task_named(games_queue.AI_TURN_PLAY).run is games_tasks.ai_turn_play.run
    assert task_named(games_queue.REVIEW_RUN).run is games_tasks.review_run.run
    assert task_named(notifications_queue.WEBHOOK_DELIVER).run is notifications_tasks.webhook_deliver.run
    assert games_tasks.ai_turn_play.run.__module__ == "games.tasks"


def test_an_unknown_task_name_fails_at_once_not_after_commit():
    with pytest.raises(KeyError):
        enqueue_after_commit("games.no_such_task", game_id=1)
