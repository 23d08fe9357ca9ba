"""Live updates: wake requests that long-poll (``GET events/?wait=``, ``GET games/{id}/?wait=``).

A *key* names what a request waits for: ``"p<player id>"`` (a new event in that player's feed) or
``"g<game id>"`` (that game changed). Writers call :func:`live_publish` with the keys their
committed change touched (``events_create`` does it after commit); a waiting request wakes and
reads the database again. Nothing is sent through the hub but keys: the database stays the truth.

Two hubs, chosen by ``OKGIN_LIVE_BACKEND`` (env ``LIVE_BACKEND``):

- ``local`` (the embedded default: one process, tasks in-process): a ``threading.Condition``
  and a counter per key that somebody is waiting on.
- ``redis`` (default with ``DATABASE_URL``: several web processes and Celery workers): a publish
  is a Redis ``PUBLISH`` on ``okgin:live:<db>:<key>`` (``<db>``: the database number of
  ``OKGIN_LIVE_REDIS_URL``; pub/sub channels are shared by all Redis databases, so deployments on
  one Redis keep apart like their data); each web process runs one listener thread
  (``PSUBSCRIBE okgin:live:<db>:*``, one Redis connection per process however many requests wait)
  that feeds its own local hub. When the listener (re)connects it wakes every waiter, which reads
  the database again, so a publish lost while Redis was away delays nobody past that moment.

A waiter never sleeps in a loop: it takes a *mark* (the key's counter) before it reads the
database and waits for the counter to move past it, so a change committed between the read and
the wait is not missed.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from typing import Iterable

from django.conf import settings

from okgin_project.errors import ServiceError

logger = logging.getLogger(__name__)


def channel_prefix(url: str) -> str:
    """``okgin:live:<db>:`` for a Redis URL of database ``<db>`` (0 when the URL names none)."""
    from urllib.parse import urlsplit

    path = urlsplit(url).path.strip("/")
    return f"okgin:live:{path if path.isdigit() else 0}:"


class LiveUnavailable(ServiceError):
    """Waiting is not possible now (the Redis listener cannot connect): 503 ``live_unavailable``,
    retry after ``Retry-After`` seconds. Nothing was changed."""

    code = "live_unavailable"
    status = 503
    retry_after = 2
    default_message = "Live updates are unavailable for a moment; retry shortly."


def player_key(player_id: int) -> str:
    """The key of ``player_id``'s event feed."""
    return f"p{player_id}"


def game_key(game_id: int) -> str:
    """The key of changes to game ``game_id``."""
    return f"g{game_id}"


class _Waited:
    """A key somebody waits on: its publish counter, how many wait, and their condition."""

    __slots__ = ("count", "waiters", "condition")

    def __init__(self, lock: threading.Lock) -> None:
        self.count = 0
        self.waiters = 0
        self.condition = threading.Condition(lock)


class LocalHub:
    """In-process hub: ``mark(key)`` before reading, ``wait(key, mark, timeout)`` after; a
    ``publish`` of the key in between makes ``wait`` return at once. A key exists only while
    somebody waits on it (``release``), with a condition of its own: a publish wakes the requests
    waiting on its keys, not every waiting request of the process (issue 14: with one condition
    for all, each publish woke every long-poll of the process to check its key)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # shared by every key's condition
        self._keys: dict[str, _Waited] = {}

    def mark(self, key: str) -> int:
        """Register interest in ``key`` and return its counter (pair with ``release``)."""
        with self._lock:
            waited = self._keys.get(key)
            if waited is None:
                waited = self._keys[key] = _Waited(self._lock)
            waited.waiters += 1
            return waited.count

    def release(self, key: str) -> None:
        with self._lock:
            waited = self._keys.get(key)
            if waited is None:
                return
            waited.waiters -= 1
            if waited.waiters <= 0:
                del self._keys[key]

    def wait(self, key: str, mark: int, timeout: float) -> bool:
        """Block until ``key`` was published after ``mark`` (True) or ``timeout`` seconds pass
        (False). ``key`` must be marked and not yet released."""
        with self._lock:
            waited = self._keys[key]
            return waited.condition.wait_for(lambda: waited.count != mark, timeout=max(0.0, timeout))

    def publish(self, keys: Iterable[str]) -> None:
        """Wake the waiters of ``keys`` (keys nobody waits on are ignored)."""
        with self._lock:
            for key in keys:
                waited = self._keys.get(key)
                if waited is not None:
                    waited.count += 1
                    waited.condition.notify_all()

    def publish_all(self) -> None:
        """Wake every waiter (they read the database again)."""
        with self._lock:
            for waited in self._keys.values():
                waited.count += 1
                waited.condition.notify_all()

    def waiting(self) -> int:
        """How many requests wait now (for tests and benchmarks)."""
        with self._lock:
            return sum(w.waiters for w in self._keys.values())

    def ready(self) -> None:
        """Nothing to start in-process."""

    def listening(self) -> bool:
        """True when a ``wait`` now would be woken by a publish (in-process: always)."""
        return True

    def send(self, keys: list[str]) -> None:
        self.publish(keys)


class RedisHub(LocalHub):
    """The local hub fed by one Redis pub/sub listener thread per process (see the module doc)."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self.prefix = channel_prefix(url)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid: int | None = None
        self._subscribed = threading.Event()
        self._closed = threading.Event()
        self._publisher = None

    def _client(self):
        import redis

        return redis.Redis.from_url(self.url, socket_connect_timeout=2, socket_timeout=5,
                                    health_check_interval=30)

    def send(self, keys: list[str]) -> None:
        """``PUBLISH`` each key (errors are logged: the change is committed; waiters wake at their
        timeout at the latest)."""
        import redis

        try:
            with self._lock:
                if self._publisher is None or self._pid_changed():
                    self._publisher = self._client()
                publisher = self._publisher
            pipe = publisher.pipeline(transaction=False)
            for key in keys:
                pipe.publish(self.prefix + key, "1")
            pipe.execute()
        except redis.RedisError as exc:
            logger.warning("live publish of %s failed: %s", keys, exc)

    def _pid_changed(self) -> bool:
        return self._pid is not None and self._pid != os.getpid()

    def ready(self, timeout: float = 3.0) -> None:
        """Start this process's listener if needed and wait until it is subscribed. Raises
        ``LiveUnavailable`` if it is not within ``timeout`` seconds."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive() or self._pid_changed():
                self._pid = os.getpid()  # a forked child starts its own listener
                self._publisher = None
                self._subscribed = threading.Event()
                self._thread = threading.Thread(target=self._listen, args=(self._subscribed,),
                                                name="okgin-live", daemon=True)
                self._thread.start()
            subscribed = self._subscribed
        if not subscribed.wait(timeout):
            raise LiveUnavailable()

    def listening(self) -> bool:
        """True when this process's listener runs and is subscribed (no waiting, no Redis call)."""
        thread = self._thread
        return (thread is not None and thread.is_alive() and not self._pid_changed()
                and self._subscribed.is_set())

    def _listen(self, subscribed: threading.Event) -> None:
        import redis

        backoff = 0.5
        while not self._closed.is_set():
            pubsub = None
            try:
                pubsub = self._client().pubsub(ignore_subscribe_messages=False)
                pubsub.psubscribe(self.prefix + "*")
                while not self._closed.is_set():
                    message = pubsub.get_message(timeout=1.0)  # blocks on the socket
                    if message is None:
                        continue
                    kind = message.get("type")
                    if kind == "psubscribe":
                        for _prefix, _on_key, on_resubscribe in _key_listeners:
                            on_resubscribe()  # before anyone can rely on the listener again
                        subscribed.set()
                        backoff = 0.5
                        self.publish_all()  # anything published while we were away: read again
                    elif kind == "pmessage":
                        channel = message["channel"]
                        if isinstance(channel, bytes):
                            channel = channel.decode()
                        key = channel[len(self.prefix):]
                        for prefix, on_key, _on_resubscribe in _key_listeners:
                            if key.startswith(prefix):
                                on_key(key)
                        self.publish([key])
            except redis.RedisError as exc:
                subscribed.clear()
                logger.warning("live listener lost Redis (%s); reconnecting in %.1f s", exc, backoff)
            except Exception:  # keep the listener alive
                subscribed.clear()
                logger.exception("live listener failed; restarting")
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except Exception:  # noqa: BLE001 - closing a broken connection
                        pass
            self._closed.wait(backoff)  # only between reconnection attempts
            backoff = min(backoff * 2, 5.0)

    def close(self) -> None:
        """Stop this process's listener (tests)."""
        self._closed.set()


def _connection_release() -> None:
    """Close this thread's database connection before a long wait (outside a transaction), so
    that waiting requests do not hold PostgreSQL connections; the next query opens a new one."""
    from django.db import connection

    if not connection.in_atomic_block:
        connection.close()


_hub: LocalHub | None = None
_hub_lock = threading.Lock()


def hub() -> LocalHub:
    """This process's hub (``OKGIN_LIVE_BACKEND``: ``local`` or ``redis``)."""
    global _hub
    with _hub_lock:
        if _hub is None:
            if settings.OKGIN_LIVE_BACKEND == "redis":
                _hub = RedisHub(settings.OKGIN_LIVE_REDIS_URL)
            else:
                _hub = LocalHub()
        return _hub


_key_listeners: list = []  # (key prefix, on_key, on_resubscribe), see live_keys_listen


def live_keys_listen(prefix: str, on_key, on_resubscribe) -> None:
    """In every process whose Redis listener runs (``RedisHub``), call ``on_key(key)`` on the
    listener's thread for each published key that starts with ``prefix`` (in the process that
    published it also right after its commit, ``PublishAfterCommit``), and
    ``on_resubscribe()`` each time the listener (re)subscribes, before ``listening()`` is True
    again (keys published while it was away are lost). Used by ``players.authentication`` to
    forget changed accounts in every web process. Register once, at start-up."""
    _key_listeners.append((prefix, on_key, on_resubscribe))


def live_listening() -> bool:
    """True when this process receives every key published from now on: its hub is Redis's and
    its listener is subscribed (no Redis call). The local hub of the embedded default receives
    only this process's keys, so False there."""
    h = hub()
    return isinstance(h, RedisHub) and h.listening()


def live_listener_start() -> None:
    """Start this process's Redis listener if it is not running, without waiting for it (the
    local hub has none)."""
    h = hub()
    if isinstance(h, RedisHub) and not h.listening():
        try:
            h.ready(timeout=0)
        except LiveUnavailable:
            pass  # subscribing in the background


def live_publish(keys: Iterable[str]) -> None:
    """Wake the requests waiting on ``keys`` now (call it after the change committed)."""
    keys = sorted(set(keys))
    if keys:
        hub().send(keys)


def live_publish_after_commit(notices) -> None:
    """After the current transaction commits, wake the requests waiting on the feeds of the
    notices' recipients (people; ``notices``: objects with ``player``, e.g.
    ``notifications.services.Notice``). Requests waiting on a game are woken by the change of its
    version instead (:func:`live_game_publish_after_commit`): an event is not always a change of
    the game view, and a change of the game view (a withdrawn invitation) not always an event."""
    live_keys_publish_after_commit({player_key(n.player.pk) for n in notices
                                    if n.player is not None and not n.player.is_ai})


def live_game_publish_after_commit(game_id: int) -> None:
    """After the current transaction commits, wake the requests long-polling game ``game_id``'s
    view (``GET games/{id}/?wait=``). Called by ``games.services.common._version_bump``, through
    which every change a player of the game can see goes."""
    live_keys_publish_after_commit({game_key(game_id)})


def live_keys_publish_after_commit(keys: set[str]) -> None:
    """Publish ``keys`` once the current transaction commits (at once outside one), to this
    process's key listeners (``live_keys_listen``) and then to every process's hub, in one Redis
    round trip with the keys this transaction asked for before: they are added to the
    ``PublishAfterCommit`` registered earlier in this atomic block or in one around it, else a new
    one is registered (issue 14: an AI turn asked twice, for the game and for the person's feed).
    A rollback that drops the earlier callback rolls back the change of this call too; keys added
    from inside a savepoint that then rolls back are published anyway, which only wakes their
    waiters to read the database again."""
    from django.db import transaction

    if not keys:
        return
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        current = set(connection.savepoint_ids)
        for sids, func, _robust in connection.run_on_commit:  # Django's (savepoint ids, callback, robust)
            if type(func) is PublishAfterCommit and sids <= current:
                func.keys = set(func.keys) | keys
                return
    transaction.on_commit(PublishAfterCommit(set(keys)))


class PublishAfterCommit:
    """The after-commit callback of :func:`live_keys_publish_after_commit` (a class, so that tests
    counting the tasks queued after commit can tell it apart): this process's key listeners get
    the keys at once, whether or not the publish to Redis then succeeds (a process's own change
    is never left to the echo of its publish), then every process's hub."""

    def __init__(self, keys) -> None:
        self.keys = keys

    def __call__(self) -> None:
        for key in self.keys:
            for prefix, on_key, _on_resubscribe in _key_listeners:
                if key.startswith(prefix):
                    on_key(key)
        live_publish(self.keys)


def live_wait(key: str, *, timeout: float, check):
    """Call ``check()`` until it returns something truthy (returned) or ``timeout`` seconds pass
    (then the last falsy result is returned). ``check`` reads the database; between calls the
    request sleeps on the hub until ``key`` is published. With the hub listening the key's mark is
    taken before the first ``check``, so an unchanged read is not repeated before the first wait.
    Raises ``LiveUnavailable``."""
    h = hub()
    if timeout <= 0 or not h.listening():
        # No waiting asked, or this process's hub is not listening yet (its first long-poll, or
        # Redis away): an answer that is ready needs no hub; otherwise start it (or fail) below.
        result = check()
        if result or timeout <= 0:
            return result
        h.ready()
    deadline = time.monotonic() + timeout
    while True:
        mark = h.mark(key)
        try:
            result = check()
            left = deadline - time.monotonic()
            if result or left <= 0:
                return result
            _connection_release()
            h.wait(key, mark, left)
        finally:
            h.release(key)
