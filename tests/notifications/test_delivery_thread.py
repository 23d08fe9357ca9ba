"""The delivery thread of eager mode (notifications/dispatch.py) on its own: a real
``DeliveryThread`` whose attempt function records the ids it is given (and answers a retry when
told to), timed by a clock that stands still until the test moves it, so what is due is decided by
the test, never by how fast the machine is. The end-to-end path (a request, the thread, a receiver)
is in test_dispatch.py."""
import os
import select
import signal
import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from notifications.attempts import AttemptOutcome
from notifications.dispatch import DeliveryThread
from tests.processes import wait_for

WAIT = 10.0  # seconds wait_idle may take at most (it returns as soon as the thread is idle)


class Clock:
    """A monotonic clock (seconds) that moves only when told to."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Attempts:
    """The attempt function: records each id; ``retry`` maps an id to the ``retry_in`` answers of
    its successive attempts (then None); ``hold`` makes the attempt of that id wait for ``release``;
    ``fail`` maps an id to the exception its attempt raises."""

    def __init__(self, retry=None, hold=None, fail=None) -> None:
        self.seen: list[int] = []
        self.retry = {k: list(v) for k, v in (retry or {}).items()}
        self.hold, self.fail = hold, dict(fail or {})
        self.started, self.release, self.finished = threading.Event(), threading.Event(), threading.Event()

    def __call__(self, delivery_id: int):
        self.seen.append(delivery_id)
        try:
            if delivery_id == self.hold:
                self.started.set()
                assert self.release.wait(WAIT)
            if delivery_id in self.fail:
                raise self.fail.pop(delivery_id)
            answers = self.retry.get(delivery_id)
            return AttemptOutcome("pending", answers.pop(0)) if answers else AttemptOutcome("delivered")
        finally:
            if delivery_id == self.hold:
                self.finished.set()


def _threads(name) -> list[bool]:
    """Whether each live thread called ``name`` is a daemon (a process never waits on one at exit)."""
    return [t.daemon for t in threading.enumerate() if t.name == name]


def _thread(name, attempts, clock, pending=()):
    return DeliveryThread(name=name, attempt=attempts, pending=lambda: list(pending), clock=clock)


def test_an_attempt_without_a_delay_runs_at_once_and_a_delayed_one_at_its_time():
    attempts, clock = Attempts(), Clock()
    thread = _thread("t-delays", attempts, clock)
    thread.submit(7)
    assert thread.wait_idle(WAIT) and attempts.seen == [7]
    thread.submit(8, delay=30.0)
    thread.submit(9, delay=-5.0)  # a negative delay is no delay
    assert thread.wait_idle(WAIT) and attempts.seen == [7, 9]  # 8 is not due for 30 s
    clock.now += 29.0
    thread.submit(10, delay=1.0)  # due with 8, submitted after it
    assert thread.wait_idle(WAIT) and attempts.seen == [7, 9]
    clock.now += 1.0
    thread.submit(11)  # wakes the thread: 8 and 10 are due now, and 11
    assert thread.wait_idle(WAIT) and attempts.seen == [7, 9, 8, 10, 11]


def test_attempts_due_at_the_same_time_run_in_the_order_submitted():
    attempts, clock = Attempts(hold=1), Clock()
    thread = _thread("t-order", attempts, clock)
    thread.submit(1)
    assert attempts.started.wait(WAIT)  # the thread is busy with 1 while the others are queued
    for delivery_id in (30, 10, 20, 10):  # all due at the clock's one time, not in id order
        thread.submit(delivery_id)
    attempts.release.set()
    assert thread.wait_idle(WAIT)
    assert attempts.seen == [1, 30, 10, 20, 10]


def test_a_retry_is_queued_after_its_backoff_and_none_once_the_outcome_is_final(caplog):
    attempts, clock = Attempts(retry={4: [60.0, 120.0]}), Clock()
    thread = _thread("t-retry", attempts, clock)
    thread.submit(4)
    assert thread.wait_idle(WAIT) and attempts.seen == [4]  # the retry is 60 s away
    clock.now += 59.0
    thread.submit(5)
    assert thread.wait_idle(WAIT) and attempts.seen == [4, 5]
    clock.now += 1.0
    thread.submit(6)  # wakes the thread: 4's retry (due first) then 6
    assert thread.wait_idle(WAIT) and attempts.seen == [4, 5, 4, 6]
    clock.now += 120.0
    thread.submit(7)
    assert thread.wait_idle(WAIT) and attempts.seen == [4, 5, 4, 6, 4, 7]  # delivered at the third
    clock.now += 10_000.0
    thread.submit(8)
    assert thread.wait_idle(WAIT) and attempts.seen == [4, 5, 4, 6, 4, 7, 8]  # no fourth attempt of 4
    assert [r.getMessage() for r in caplog.records if r.name == "notifications.dispatch"] == []


def test_wait_idle_waits_for_the_attempt_in_progress():
    attempts, clock = Attempts(hold=3), Clock()
    thread = _thread("t-busy", attempts, clock)
    thread.submit(3)
    assert attempts.started.wait(WAIT)
    assert thread.wait_idle(0.2) is False  # 3 is still being attempted (nothing else is due)
    assert not attempts.finished.is_set()  # wait_idle gave up while the attempt was running
    attempts.release.set()
    assert thread.wait_idle(WAIT) is True and attempts.seen == [3]


def test_the_deliveries_left_pending_are_attempted_when_the_thread_starts():
    now = timezone.now()
    pending = [(21, None), (22, now - timedelta(hours=1)), (23, now + timedelta(hours=1))]
    attempts, clock = Attempts(), Clock()
    thread = _thread("t-resume", attempts, clock, pending)
    thread.submit(24)
    assert thread.wait_idle(WAIT)
    assert sorted(attempts.seen) == [21, 22, 24]  # 23 is due in an hour
    clock.now += 3600.0
    thread.submit(25)
    assert thread.wait_idle(WAIT) and sorted(attempts.seen) == [21, 22, 23, 24, 25]


def test_an_attempt_that_raises_leaves_the_thread_working(caplog):
    attempts, clock = Attempts(fail={1: RuntimeError("receiver exploded")}), Clock()
    thread = _thread("t-raise", attempts, clock)
    thread.submit(1)
    thread.submit(2)
    assert thread.wait_idle(WAIT) and attempts.seen == [1, 2]
    assert _threads("t-raise") == [True]  # the one thread, still there
    assert [r.getMessage() for r in caplog.records if r.name == "notifications.dispatch"] == [
        "delivery 1 failed in the t-raise thread"]


def test_pending_rows_that_cannot_be_read_are_logged_and_the_thread_works(caplog):
    def unreadable():
        raise RuntimeError("database down")

    attempts = Attempts()
    thread = DeliveryThread(name="t-unreadable", attempt=attempts, pending=unreadable, clock=Clock())
    thread.submit(3)
    assert thread.wait_idle(WAIT) and attempts.seen == [3]
    assert [r.getMessage() for r in caplog.records if r.name == "notifications.dispatch"] == [
        "could not read the pending deliveries of t-unreadable"]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the SystemExit below
def test_a_thread_that_died_is_started_again_by_the_next_submit():
    attempts, clock = Attempts(fail={1: SystemExit()}), Clock()  # not an Exception: it ends the thread
    thread = _thread("t-died", attempts, clock)
    thread.submit(1)
    assert thread.wait_idle(WAIT)
    for dead in [t for t in threading.enumerate() if t.name == "t-died"]:
        dead.join(WAIT)
        assert not dead.is_alive()
    thread.submit(2)
    assert thread.wait_idle(WAIT) and attempts.seen == [1, 2]
    assert _threads("t-died") == [True]


def test_a_delayed_attempt_runs_when_its_time_comes_on_the_real_clock():
    """Nothing else is submitted: the thread wakes by itself when the delay is over."""
    attempts = Attempts()
    thread = DeliveryThread(name="t-real-clock", attempt=attempts, pending=list)
    thread.submit(5, delay=0.05)
    wait_for(lambda: attempts.seen == [5], what="the delayed attempt")
    thread.submit(6)
    wait_for(lambda: attempts.seen == [5, 6], what="the next attempt")
    assert _threads("t-real-clock") == [True]


def test_a_forked_process_starts_its_own_thread():
    """A process forked after the thread started (a preloading server's workers) has no copy of the
    thread running: its first submit starts one."""
    attempts, clock = Attempts(), Clock()
    thread = _thread("t-fork", attempts, clock)
    thread.submit(1)
    assert thread.wait_idle(WAIT) and attempts.seen == [1]
    read, write = os.pipe()
    with thread._cv:  # (the parent's thread is parked, not holding the lock the child inherits)
        pid = os.fork()
    if pid == 0:  # the child: report and leave at once (no pytest teardown here)
        try:
            thread.submit(2)
            os.write(write, repr((thread.wait_idle(WAIT), attempts.seen)).encode())
        finally:
            os._exit(0)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 6 * WAIT)  # a guard against a hung child only
        answer = os.read(read, 1000).decode() if ready else "the child did not answer"
    finally:
        os.close(read)
        if not ready:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert answer == repr((True, [1, 2]))
    assert attempts.seen == [1]  # the child's attempt happened in the child only
