"""A child process in its own process group, so that a signal reaches its children too (a Celery
worker's pool, gunicorn's workers): used by the e2e worker fixture and the fault tests."""
from __future__ import annotations

import os
import signal
import subprocess
import time


class ProcessGroup:
    """Holds ``proc`` (a ``subprocess.Popen`` started with ``start_new_session=True``) and signals
    its whole group."""

    proc: subprocess.Popen | None = None
    stop_timeout = 10.0  # seconds a warm shutdown may take before SIGKILL

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig) -> None:
        if self.alive():
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        """SIGKILL the process and its children at once (nothing is acknowledged or cleaned up)."""
        self.signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=20)

    def stop(self) -> None:
        """SIGTERM (warm shutdown), then SIGKILL after ``stop_timeout`` seconds."""
        self.signal(signal.SIGTERM)
        if self.proc is not None:
            try:
                self.proc.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_for(predicate, *, timeout: float = 20.0, interval: float = 0.02, what="condition"):
    """Poll ``predicate`` until it returns a truthy value (returned); AssertionError after ``timeout`` s
    naming ``what`` (a string, or a function returning one, called only then: logs read at the
    time of the failure)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")
        time.sleep(interval)
