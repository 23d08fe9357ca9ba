"""Proof that Celery beat is scheduling: each pass of its scheduling loop stores the time in Redis.

:class:`HeartbeatScheduler` (``CELERY_BEAT_SCHEDULER``) is Celery's ``PersistentScheduler`` that,
after every scheduling pass (``tick``: due periodic tasks sent, next wake-up computed) that did not
fail, stores ``time.time()`` (seconds) under ``BEAT_HEARTBEAT_KEY`` in the Redis of ``REDIS_URL``.
Beat wakes at least every ``CELERY_BEAT_MAX_LOOP_INTERVAL`` seconds (10), so a live beat keeps the
value younger than that.

Check it (the compose healthcheck of beat)::

    python -m okgin_project.heartbeat --max-age 60

prints how long ago beat last ticked and exits 0, or exits 1 when it never did, did longer ago
than ``--max-age`` seconds, or Redis cannot be reached. Reads ``REDIS_URL`` from the environment
(default ``redis://127.0.0.1:6379/0``) and needs no Django settings.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time

from celery.beat import PersistentScheduler

BEAT_HEARTBEAT_KEY = "okgin:beat:last_tick"
BEAT_HEARTBEAT_TTL_SECONDS = 24 * 3600
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

logger = logging.getLogger(__name__)


def _redis(url: str):
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)


def record_beat_tick(url: str, at: float | None = None) -> None:
    """Stores ``at`` (default now, ``time.time()`` seconds) as beat's last tick. Raises
    ``redis.RedisError`` when Redis cannot be reached."""
    _redis(url).set(BEAT_HEARTBEAT_KEY, repr(time.time() if at is None else at), ex=BEAT_HEARTBEAT_TTL_SECONDS)


def seconds_since_beat_tick(url: str) -> float | None:
    """Seconds since beat last ticked, or None if it never did (or the value expired). Raises
    ``redis.RedisError`` when Redis cannot be reached."""
    value = _redis(url).get(BEAT_HEARTBEAT_KEY)
    return None if value is None else max(0.0, time.time() - float(value))


class HeartbeatScheduler(PersistentScheduler):
    """Celery beat's default scheduler, recording each successful scheduling pass in Redis, and
    quiet while the broker (that same Redis) is down.

    Celery's own scheduler logs an error with two tracebacks for every due task it cannot send,
    every time it is due (each sweep every ``SWEEP_INTERVAL_SECONDS``). Here an outage logs one
    warning when the broker is first found unreachable and one when it answers again
    (``okgin_project.degraded.broker_breaker``, logger ``okgin.degraded``); meanwhile due tasks are
    not sent (each is due again at its next interval, and the sweeps find whatever was missed) and
    for ``OKGIN_REDIS_RETRY_SECONDS`` after a failure beat does not even try. Other errors are
    logged as Celery does.
    """

    def apply_entry(self, entry, producer=None):
        from kombu.exceptions import OperationalError as BrokerError

        from okgin_project.degraded import broker_breaker, redis_errors

        if broker_breaker.is_open():
            logger.debug("broker down: %s not sent", entry.name)
            return
        logger.info("Scheduler: Sending due task %s (%s)", entry.name, entry.task)
        try:
            self.apply_async(entry, producer=producer, advance=False)
        except Exception as exc:  # noqa: BLE001 - as Celery's Scheduler.apply_entry: beat keeps scheduling
            cause = _cause_of_type(exc, (BrokerError, *redis_errors()))  # beat wraps it in SchedulingError
            if cause is None:
                logger.exception("could not send the periodic task %s", entry.name)
            else:
                broker_breaker.failed(cause, "beat sends no periodic task until it is back")
        else:
            broker_breaker.succeeded()

    def tick(self, *args, **kwargs):
        from okgin_project.degraded import broker_breaker, redis_errors

        interval = super().tick(*args, **kwargs)
        if broker_breaker.is_open():
            return interval  # the failure was logged once; the healthcheck sees no fresh tick
        url = self.app.conf.broker_url or DEFAULT_REDIS_URL
        try:
            record_beat_tick(url)
        except redis_errors() as exc:
            broker_breaker.failed(exc, "beat's heartbeat is not recorded until it is back")
        except Exception:  # noqa: BLE001 - beat keeps scheduling; its healthcheck will say why
            logger.warning("could not record beat's heartbeat in Redis", exc_info=True)
        return interval


def _cause_of_type(exc: BaseException, types: tuple[type[BaseException], ...]) -> BaseException | None:
    """``exc`` or the first exception of its cause/context chain that is one of ``types``, or None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, types):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def main(argv: list[str] | None = None) -> int:
    """Command line check of beat's heartbeat; returns the exit status (0 recent, 1 not)."""
    parser = argparse.ArgumentParser(description="Exit 0 when Celery beat ticked recently.")
    parser.add_argument("--max-age", type=float, default=60.0, help="seconds (default 60)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    args = parser.parse_args(argv)
    try:
        age = seconds_since_beat_tick(args.redis_url)
    except Exception as exc:  # noqa: BLE001
        print(f"beat: cannot read the heartbeat: {exc}", file=sys.stderr)
        return 1
    if age is None:
        print("beat: no heartbeat recorded", file=sys.stderr)
        return 1
    if age > args.max_age:
        print(f"beat: last tick {age:.1f} s ago (more than {args.max_age:g} s)", file=sys.stderr)
        return 1
    print(f"beat: last tick {age:.1f} s ago")
    return 0


if __name__ == "__main__":
    sys.exit(main())
