"""Run by test_sweeps_scheduler.py in subprocesses against one SQLite file (the embedded default).

``setup N``: migrate, create N timed two-person games whose deadlines pass one after another over
the next second or so, print their ids. ``serve``: import the WSGI entry point (which starts this
process's in-process scheduler, as runserver or gunicorn would), wait until every game has been
timed out (at most 120 s), meet the other ``serve`` process (files in ``BARRIER_DIR``; nobody
stops, so nobody releases the lease, before both have recorded whether they swept), stop, print
``{"owner", "ran_any"}``. ``check``: print the timeout and
match_over event counts per game.
"""
import json
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.utils import timezone  # noqa: E402

from games.models import Game  # noqa: E402

mode = sys.argv[1]
if mode == "setup":
    from django.contrib.auth import get_user_model

    from games import services
    from players.models import Player

    call_command("migrate", verbosity=0)
    people = []
    for name in ("ann", "ben"):
        user = get_user_model().objects.create_user(username=name, password="x")
        people.append(Player.objects.create(user=user, name=name))
    ids = []
    for i in range(int(sys.argv[2])):
        game = services.game_create(creator=people[0], kind="invite", opponent_name="ben", move_time_limit=60)
        services.invitation_accept(game_id=game.pk, player=people[1])
        Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() + timedelta(seconds=0.1 * i))
        ids.append(game.pk)
    print(json.dumps(ids))
elif mode == "serve":
    from games import sweeps

    ran = []  # a True for each tick on which this process held the lease (and so swept)
    original = sweeps.lease_acquire

    def lease_acquire_recorded(**kwargs):
        held = original(**kwargs)
        if held:  # recorded before the tick's jobs run: the games may be done before they all finish
            ran.append(True)
        return held

    sweeps.lease_acquire = lease_acquire_recorded

    import okgin_project.wsgi  # noqa: F401 - starts the scheduler

    scheduler = sweeps._process_scheduler
    assert scheduler is not None, "the WSGI entry point did not start the scheduler"
    deadline = time.monotonic() + 120
    while Game.objects.filter(status="active").exists() and time.monotonic() < deadline:
        time.sleep(0.05)

    def meet(step):
        barrier = Path(os.environ["BARRIER_DIR"])
        (barrier / f"{step}-{os.getpid()}").touch()
        while len(list(barrier.glob(f"{step}-*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)

    meet("done")
    ran_any = bool(ran)
    meet("recorded")
    scheduler.stop()
    print(json.dumps({"owner": scheduler.owner, "ran_any": ran_any}))
elif mode == "check":
    from notifications.models import Event

    out = {}
    for game in Game.objects.all():
        kinds = list(Event.objects.filter(game=game).values_list("kind", flat=True))
        out[game.pk] = {"status": game.status, "end_reason": game.end_reason,
                        "timeout": kinds.count("timeout"), "match_over": kinds.count("match_over")}
    print(json.dumps(out))
