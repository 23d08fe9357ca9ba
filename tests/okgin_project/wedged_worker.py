"""The Celery app of ``test_worker_watchdog.py``: okgin's app (with its ``StopWatchdog``) plus a
consumer step that fails when the consumer starts (an unrecoverable error, as the consumer's crash
after a Redis outage was) and a worker step whose stop never returns (the wedged shutdown). Only
that test's worker process imports it."""
import time

from celery import bootsteps

from okgin_project.celery import app


class ConsumerFails(bootsteps.StartStopStep):
    """Raises when the consumer starts, once connected to the broker."""

    requires = ("celery.worker.consumer.connection:Connection",)

    def start(self, consumer):
        raise RuntimeError("the consumer failed (wedged_worker)")


class StopHangs(bootsteps.StartStopStep):
    """Never returns from the worker's shutdown. Booted after the pool, so stopped before it: the
    pool child is still alive while the shutdown hangs, whatever the step order's hash seed."""

    requires = ("celery.worker.components:Pool",)

    def start(self, worker):
        pass

    def stop(self, worker):
        print("wedged_worker: the shutdown hangs now", flush=True)
        time.sleep(3600)

    terminate = stop


app.steps["consumer"].add(ConsumerFails)
app.steps["worker"].add(StopHangs)
