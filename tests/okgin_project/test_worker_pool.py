"""The worker's pool (``okgin_project.worker_pool``): a pool child that exited and was untracked,
but not yet reaped, does not crash the worker when the consumer re-registers the pool with its
event loop after a broker outage (``Unrecoverable error: ValueError('file descriptor is None')``,
celery 5.7.0 with kombu 5.7.0; docs/faults.md). Real pools with real child processes."""
from __future__ import annotations

import os
import signal
import time

import pytest
from celery.concurrency import asynpool, get_implementation
from kombu.asynchronous import Hub

from okgin_project import worker_pool
from okgin_project.celery import app


def _pool_with_an_untracked_dead_child(cls):
    """A pool of ``cls`` with 2 children, registered with a hub; then one child is SIGKILLed and
    untracked as the pool does when a child goes down, while it is still in the pool's list (the
    window before ``maintain_pool`` reaps it). Returns ``(pool, dead child)``."""
    pool = cls(processes=2, threads=False)
    pool.register_with_event_loop(Hub())
    dead = pool._pool[0]
    os.kill(dead.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while dead.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert dead.exitcode == -signal.SIGKILL
    pool._untrack_child_process(dead, Hub())
    assert dead._sentinel_poll is None and dead in pool._pool
    return pool, dead


def test_celerys_own_pool_crashes_on_re_registration_in_these_versions():
    """Why the fix exists: Celery's pool raises here. If this starts failing after an upgrade of
    celery or kombu, the upstream bug is fixed and okgin_project/worker_pool.py can go."""
    pool, _dead = _pool_with_an_untracked_dead_child(asynpool.AsynPool)
    try:
        with pytest.raises(ValueError, match="file descriptor is None"):
            pool.register_with_event_loop(Hub())
    finally:
        pool.terminate()


def test_okgin_pool_re_registers_and_replaces_the_dead_child():
    pool, dead = _pool_with_an_untracked_dead_child(worker_pool.AsynPool)
    try:
        hub = Hub()
        pool.register_with_event_loop(hub)  # does not raise
        live = [p for p in pool._pool if p is not dead]
        assert len(live) == 1
        # The live child's exit is watched on the new hub; nothing is watched for the dead one.
        assert live[0]._sentinel_poll in hub.readers
        pool.maintain_pool()  # what the pool's 5 s timer does: reap and replace
        assert dead not in pool._pool
        assert len(pool._pool) == 2 and all(p.exitcode is None for p in pool._pool)
    finally:
        pool.terminate()


def test_workers_use_the_okgin_pool_by_default():
    """``celery worker`` with no ``--pool`` (docker-compose.yml, docs/systemd) or ``--pool=prefork``
    uses the configured pool: Celery's CLI maps its default ``prefork`` to ``worker_pool``."""
    from types import SimpleNamespace

    import click
    from celery.bin.worker import WorkersPool

    ctx = click.Context(click.Command("worker"), obj=SimpleNamespace(app=app))  # the CLI reads ctx.obj.app
    assert WorkersPool().convert("prefork", None, ctx) is worker_pool.TaskPool
    assert get_implementation(app.conf.worker_pool) is worker_pool.TaskPool
    assert worker_pool.TaskPool.Pool is worker_pool.AsynPool
