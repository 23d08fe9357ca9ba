"""A fake Web Push service on loopback, speaking the protocol pywebpush (django-push-notifications'
Web Push sender) uses: ``POST /wp/<token>`` with an RFC 8291 ``aes128gcm`` encrypted body, a
``TTL`` header and RFC 8292 VAPID authorization (``vapid t=<ES256 JWT>, k=<public key>``).

Each subscription is made here like a browser makes it (``subscribe()``: a P-256 key pair and a
16-byte auth secret); the service checks the VAPID signature and audience, decrypts every push
with the subscription's private key (as the browser would) and records the JSON it carried.
Answers: 201 Created; 410 Gone for an unknown or expired subscription; scripted statuses per
token (``script(token, [503, 201])``) for retries.
"""
from __future__ import annotations

import base64
import json
import os
import time

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.loopback import LoopbackServer, QuietHandler, Scripted


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_private_key_b64() -> str:
    """A new VAPID private key as pywebpush/py_vapid read it (base64url of the raw 32 bytes)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def _verify_vapid(header: str, origin: str) -> str | None:
    """None if ``header`` is a valid ``vapid t=..., k=...`` authorization for ``origin``, else why not."""
    if not header.startswith("vapid "):
        return "no vapid authorization"
    parts = dict(p.strip().split("=", 1) for p in header[len("vapid "):].split(","))
    token, key = parts.get("t", ""), parts.get("k", "")
    try:
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64url_decode(key))
        head, payload, signature = token.split(".")
        raw = b64url_decode(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        public.verify(der, f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
    except Exception as exc:  # noqa: BLE001 - any failure is a refusal
        return f"bad vapid signature: {exc!r}"
    claims = json.loads(b64url_decode(payload))
    if claims.get("aud") != origin:
        return f"bad audience {claims.get('aud')!r}"
    if not claims.get("sub") or claims.get("exp", 0) < time.time():
        return "bad claims"
    return None


class Subscription:
    """What a browser's ``pushManager.subscribe()`` gives a web app: the token (last part of the
    endpoint) and the keys ``p256dh`` (public, base64url) and ``auth``; the private key stays here."""

    def __init__(self, token: str):
        self.token = token
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.b64auth = b64url(self.auth)
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.p256dh = b64url(point)

    def decrypt(self, body: bytes) -> bytes:
        return http_ece.decrypt(body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm")


class FakeWebPush(LoopbackServer, Scripted):
    def __init__(self):
        self._recording()  # received: accepted pushes {"token", "payload", "ttl"}
        self.subscriptions: dict[str, Subscription] = {}
        self.refused: list[dict] = []  # {"token", "status", "why"}
        fake = self

        class Handler(QuietHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                token = self.path.rsplit("/", 1)[-1]
                headers = {k.lower(): v for k, v in self.headers.items()}  # names are case-insensitive
                status, why = fake._handle(token, body, headers)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self._listen(Handler)
        self.base_url = f"{self.origin}/wp"  # the WP_POST_URL the library is pointed at

    def subscribe(self, token: str) -> Subscription:
        with self.lock:
            sub = self.subscriptions[token] = Subscription(token)
        return sub

    def unsubscribe(self, token: str) -> None:
        with self.lock:
            self.subscriptions.pop(token, None)

    def _handle(self, token: str, body: bytes, headers: dict) -> tuple[int, str]:
        status = self._scripted(token)
        with self.lock:
            sub = self.subscriptions.get(token)
        why = _verify_vapid(headers.get("authorization", ""), self.origin)
        if why is None and headers.get("content-encoding") != "aes128gcm":
            why = "not aes128gcm"
        if why is None and not headers.get("ttl", "").isdigit():
            why = "no TTL"
        if why is not None:
            return self._refuse(token, 400, why)
        if sub is None:
            return self._refuse(token, 410, "unknown subscription")
        if status is not None and status >= 300:
            return self._refuse(token, status, "scripted")
        payload = json.loads(sub.decrypt(body))
        with self.lock:
            self.received.append({"token": token, "payload": payload, "ttl": int(headers["ttl"])})
        return 201, ""

    def _refuse(self, token, status, why):
        with self.lock:
            self.refused.append({"token": token, "status": status, "why": why})
        return status, why
