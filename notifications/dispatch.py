"""Webhook deliveries and pushes without a broker (eager mode, the embedded default): one daemon thread per
process, fed by a queue ordered by due time, POSTs each delivery and schedules its retries
(exponential backoff, as the Celery task would). A request only puts the delivery id on the queue
after commit, so it never waits on a receiver. At start the thread also picks up the deliveries
still pending in the database (left by a previous run of the process).
"""
from __future__ import annotations

import heapq
import logging
import os
import threading
import time

from django.db import connection
from django.utils import timezone

from .deliveries import webhook_delivery_attempt
from .models import DeliveryStatus, PushDelivery, PushStatus, WebhookDelivery
from .push_send import push_delivery_attempt

logger = logging.getLogger(__name__)


class DeliveryThread:
    """A single background worker: ``submit(delivery_id, delay=seconds)``; ``wait_idle(timeout)``.
    ``attempt(id)`` makes one attempt and returns an outcome with ``retry_in`` (seconds) or None;
    ``pending()`` lists ``(id, due)`` left pending by a previous run of the process. Attempts due
    at the same time run in the order they were submitted. ``clock`` (seconds, monotonic) times
    the delays; a test may pass one that stands still."""

    def __init__(self, *, name: str, attempt, pending, clock=time.monotonic) -> None:
        self._name, self._attempt_one, self._pending, self._clock = name, attempt, pending, clock
        self._cv = threading.Condition()
        self._heap: list[tuple[float, int, int]] = []  # (due monotonic time, sequence, delivery id)
        self._seq = 0
        self._busy = False
        self._thread: threading.Thread | None = None
        self._pid: int | None = None

    def submit(self, delivery_id: int, delay: float = 0.0) -> None:
        """Queue an attempt of ``delivery_id`` in ``delay`` seconds; starts the thread if needed."""
        with self._cv:
            self._push(delivery_id, delay)
            self._ensure_started()
            self._cv.notify()

    def _push(self, delivery_id: int, delay: float) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (self._clock() + max(0.0, delay), self._seq, delivery_id))

    def _ensure_started(self) -> None:
        if self._thread is not None and self._thread.is_alive() and self._pid == os.getpid():
            return
        self._pid = os.getpid()  # (a forked child has no thread: start its own)
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is due now and no attempt is running; False after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while self._busy or (self._heap and self._heap[0][0] <= self._clock()):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(min(left, 0.05))
            return True

    def _run(self) -> None:
        self._resume_pending()
        while True:
            with self._cv:
                while not self._heap or self._heap[0][0] > self._clock():
                    wait = self._heap[0][0] - self._clock() if self._heap else None
                    self._cv.wait(wait)
                _due, _seq, delivery_id = heapq.heappop(self._heap)
                self._busy = True
            try:
                self._attempt(delivery_id)
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def _attempt(self, delivery_id: int) -> None:
        try:
            outcome = self._attempt_one(delivery_id)
            if outcome is not None and outcome.retry_in is not None:
                with self._cv:
                    self._push(delivery_id, outcome.retry_in)
        except Exception:  # keep the thread alive; the delivery stays pending for a later run
            logger.exception("delivery %s failed in the %s thread", delivery_id, self._name)
        finally:
            connection.close()  # a thread's connection must not outlive its work

    def _resume_pending(self) -> None:
        try:
            now = timezone.now()
            rows = self._pending()
        except Exception:
            logger.exception("could not read the pending deliveries of %s", self._name)
            return
        finally:
            connection.close()
        with self._cv:
            for pk, due in rows:
                self._push(pk, (due - now).total_seconds() if due else 0.0)


def _webhooks_pending() -> list:
    return list(WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING)
                .order_by("id").values_list("pk", "next_attempt_at")[:1000])


def _pushes_pending() -> list:
    return list(PushDelivery.objects.filter(status__in=(PushStatus.PENDING, PushStatus.HELD))
                .order_by("id").values_list("pk", "next_attempt_at")[:1000])


delivery_thread = DeliveryThread(name="okgin-webhooks", pending=_webhooks_pending,
                                 attempt=lambda pk: webhook_delivery_attempt(delivery_id=pk))
push_thread = DeliveryThread(name="okgin-pushes", pending=_pushes_pending,
                             attempt=lambda pk: push_delivery_attempt(delivery_id=pk))
