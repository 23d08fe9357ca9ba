"""What the web process does while Redis (the cache holding rate-limit counts, and the Celery
broker) is unreachable: it keeps serving, and says so.

A :class:`Breaker` per dependency remembers the last failure. For ``OKGIN_REDIS_RETRY_SECONDS``
(setting, default 5 seconds) after one, callers skip Redis instead of waiting on it again, then
try it once more: the rate
limits count in process memory (``okgin_project.throttling``) and queued work is left to the
periodic sweeps (``okgin_project.celery.enqueue_after_commit``), which find it in the database once
Redis is back. An outage logs one warning when it is first met and one when Redis answers again
(``okgin.degraded`` logger), not one per request.

:func:`degraded_parts` names the dependencies that failed and have not answered since: what a
readiness check reports as degraded.
"""
from __future__ import annotations

import logging
import threading
import time

from django.conf import settings

logger = logging.getLogger("okgin.degraded")


class Breaker:
    """Failure memory for one dependency (``name``: ``"cache"`` or ``"broker"``).

    ``failed(exc)`` records a failure (and logs a warning at the first one of an outage);
    ``is_open()`` is True for ``OKGIN_REDIS_RETRY_SECONDS`` seconds after the last failure;
    ``succeeded()`` closes it (and logs that the dependency is back). Thread-safe, per process.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._lock = threading.Lock()
        self._failed_at: float | None = None  # time.monotonic() of the last failure

    def is_open(self) -> bool:
        """True while the last failure is less than ``OKGIN_REDIS_RETRY_SECONDS`` old."""
        failed_at = self._failed_at
        return failed_at is not None and time.monotonic() - failed_at < settings.OKGIN_REDIS_RETRY_SECONDS

    def is_down(self) -> bool:
        """True from a failure until the dependency answers again."""
        return self._failed_at is not None

    def failed(self, exc: BaseException, fallback: str) -> None:
        """Record a failure; the first one of an outage logs a warning, ``fallback`` saying what is
        done instead."""
        with self._lock:
            first = self._failed_at is None
            self._failed_at = time.monotonic()
        if first:
            logger.warning("%s unreachable (%s: %s); %s", self.name, type(exc).__name__, exc, fallback)

    def succeeded(self) -> None:
        """Record that the dependency answered."""
        if self._failed_at is None:
            return
        with self._lock:
            if self._failed_at is None:
                return
            self._failed_at = None
        logger.warning("%s reachable again", self.name)


cache_breaker = Breaker("cache")
broker_breaker = Breaker("broker")


def degraded_parts() -> list[str]:
    """Names of the dependencies this process found unreachable and has not seen answer since
    (``[]`` when all is well)."""
    return [b.name for b in (cache_breaker, broker_breaker) if b.is_down()]


def redis_errors() -> tuple[type[BaseException], ...]:
    """The exceptions that mean "Redis did not answer": redis-py's errors and socket errors."""
    from redis.exceptions import RedisError

    return (RedisError, OSError)
