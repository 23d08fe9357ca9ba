"""A webhook receiver on loopback for tests: records each POST (body, headers) and answers the
status codes it is told to, in order (then 200), with the extra ``headers`` given;
``on_post(body, headers)`` (optional) runs in the handler thread before the answer."""
from __future__ import annotations

import hashlib
import hmac
import json
import threading

from tests.loopback import LoopbackServer, QuietHandler


class Receiver(LoopbackServer):
    def __init__(self, statuses=(), headers=None, on_post=None):
        self.statuses = list(statuses)
        self.on_post = on_post
        self.headers = dict(headers or {})
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(QuietHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.requests.append({"body": body, "headers": dict(self.headers)})
                    status = receiver.statuses.pop(0) if receiver.statuses else 200
                if receiver.on_post is not None:
                    receiver.on_post(body, dict(self.headers))
                self.send_response(status)
                for name, value in receiver.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._listen(Handler)
        self.url = f"{self.origin}/hook"

    def verified(self, secret: str) -> list[dict]:
        """The JSON bodies of requests whose X-Okgin-Signature is the HMAC-SHA256 of the body with
        ``secret`` (computed here independently); raises AssertionError on a bad signature."""
        out = []
        for req in self.requests:
            expected = "sha256=" + hmac.new(secret.encode(), req["body"], hashlib.sha256).hexdigest()
            assert hmac.compare_digest(req["headers"]["X-Okgin-Signature"], expected), "bad signature"
            out.append(json.loads(req["body"]))
        return out
