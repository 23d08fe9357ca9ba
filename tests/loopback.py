"""The HTTP servers the tests put on loopback in place of outside parties (webhook receivers, push
providers): a ``ThreadingHTTPServer`` on 127.0.0.1 at a free port, served on a daemon thread while
inside ``with``; ``refused_port()``, a port where nothing answers."""
from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing (the tests read what the server recorded)."""

    def log_message(self, *args):
        pass


class LoopbackServer:
    """Base of the fake servers: ``_listen(handler)`` binds; ``origin`` is ``http://127.0.0.1:<port>``."""

    def _listen(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


class Scripted:
    """What the fake providers record and may be told: ``script(token, [503, ...])`` answers the
    next sends to ``token`` with those statuses (``_scripted(token)`` takes the next, or None);
    ``received``: accepted sends ``{"token", "payload", ...}``. Call ``_recording()`` first."""

    def _recording(self) -> None:
        self.lock = threading.Lock()
        self.scripts: dict[str, list[int]] = {}
        self.received: list[dict] = []

    def script(self, token: str, statuses: list[int]) -> None:
        with self.lock:
            self.scripts[token] = list(statuses)

    def _scripted(self, token: str) -> int | None:
        with self.lock:
            scripted = self.scripts.get(token)
            return scripted.pop(0) if scripted else None

    def payloads(self, token: str) -> list[dict]:
        """What the accepted sends to ``token`` carried, oldest first."""
        with self.lock:
            return [r["payload"] for r in self.received if r["token"] == token]


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections while inside ``with``: bound but never listening
    (a connection is answered with a reset), and held, so no other server takes it meanwhile."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]
    finally:
        sock.close()
