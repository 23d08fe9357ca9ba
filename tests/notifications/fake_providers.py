"""Fake FCM and APNs on loopback, speaking the providers' HTTP APIs for the calls okgin makes, so
the real libraries (firebase-admin through django-push-notifications, aioapns through
django-push-notifications) can be pointed at them (docs/mobile.md, "Tested against fakes").

``FakeFCM`` (plain HTTP/1.1): the OAuth 2.0 token exchange of a Google service account
(``POST /token``, form ``grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`` with an RS256 JWT
assertion, checked with the service account's public key) and FCM HTTP v1
``POST /v1/projects/{project}/messages:send`` with ``Authorization: Bearer <issued token>``:
200 ``{"name": "projects/{project}/messages/{id}"}``, 404 ``UNREGISTERED`` for a token it does not
know, 401 without a valid access token; when scripted, 400 ``INVALID_ARGUMENT``, 403
``PERMISSION_DENIED``, 429 ``RESOURCE_EXHAUSTED`` (``QUOTA_EXCEEDED``), 500 ``INTERNAL`` or 503
``UNAVAILABLE`` (``FCM_ERRORS``; another status answers like 500).

``FakeAPNs`` (HTTP/2 over TLS, a self-signed certificate for 127.0.0.1 and localhost):
``POST /3/device/<token>`` with ``apns-topic`` and an ES256 provider token
(``authorization: bearer <JWT>``, ``kid`` the key id, ``iss`` the team id) checked with the key's
public half: 200 with ``apns-id``; 400 ``BadDeviceToken``; 410 ``Unregistered`` (a token that
was known and was dropped); 403 ``InvalidProviderToken``; 503 ``ServiceUnavailable`` when scripted.
"""
from __future__ import annotations

import datetime as dt
import ipaddress
import json
import socket
import ssl
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from tests.loopback import LoopbackServer, QuietHandler, Scripted

GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"  # the "aud" Google's token endpoint wants
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
CLOUD_SCOPE = "https://www.googleapis.com/auth/cloud-platform"


def _pem_private(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


class FakeFCM(LoopbackServer, Scripted):
    """FCM HTTP v1 and Google's OAuth token endpoint on loopback. ``credentials_file(dir)`` writes
    a service-account JSON whose ``token_uri`` is this fake; ``base_url`` is what
    ``FCM_ENDPOINT`` names. ``register(token)`` makes a token valid; ``script(token, [503, ...])``
    answers the next sends to it with those statuses. ``received``: accepted messages (the FCM
    ``message`` objects); ``requests``: every send ``(token, status)``."""

    def __init__(self, project_id: str = "okgin-test"):
        self.project_id = project_id
        self.client_email = f"firebase-adminsdk@{project_id}.iam.gserviceaccount.com"
        self.private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._recording()  # received: accepted messages {"token", "payload": the FCM message}
        self.tokens: set[str] = set()
        self.access_tokens: set[str] = set()
        self.token_exchanges = 0
        self.requests: list[tuple[str, int]] = []
        fake = self

        class Handler(QuietHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status, answer = fake._handle(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._listen(Handler)
        self.base_url = self.origin

    def credentials_file(self, directory: Path) -> Path:
        """A Firebase service-account key file (as the Firebase console downloads it) whose
        ``token_uri`` is this fake's token endpoint."""
        path = Path(directory) / "firebase-service-account.json"
        path.write_text(json.dumps({
            "type": "service_account", "project_id": self.project_id, "private_key_id": "fake-key-1",
            "private_key": _pem_private(self.private_key).decode(), "client_email": self.client_email,
            "client_id": "1234567890", "token_uri": f"{self.base_url}/token",
            "auth_uri": f"{self.base_url}/auth", "universe_domain": "googleapis.com",
        }))
        return path

    def register(self, token: str) -> None:
        with self.lock:
            self.tokens.add(token)

    def messages(self, token: str) -> list[dict]:
        """The accepted messages to ``token`` (FCM v1 ``message`` objects), oldest first."""
        return self.payloads(token)

    def kinds(self, token: str) -> list[str]:
        """The event kinds of the accepted messages to ``token``, oldest first."""
        return [m["data"]["kind"] for m in self.messages(token)]

    def sends(self, token: str) -> list[int]:
        """The status answered to each send to ``token``, in order."""
        with self.lock:
            return [status for t, status in self.requests if t == token]

    def _handle(self, path: str, headers: dict, body: bytes) -> tuple[int, dict]:
        if path == "/token":
            return self._token(headers, body)
        if path == f"/v1/projects/{self.project_id}/messages:send":
            return self._send(headers, body)
        return 404, _google_error(404, "NOT_FOUND", f"No such method {path}")

    def _token(self, headers: dict, body: bytes) -> tuple[int, dict]:
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return 400, {"error": "unsupported_grant_type"}
        try:
            claims = jwt.decode(form.get("assertion", ""), self.private_key.public_key(), algorithms=["RS256"],
                                audience=GOOGLE_TOKEN_AUDIENCE, issuer=self.client_email,
                                options={"require": ["exp", "iat", "iss", "aud"]})
        except jwt.PyJWTError as exc:
            return 400, {"error": "invalid_grant", "error_description": str(exc)}
        scopes = set(claims.get("scope", "").split())
        if not scopes & {FCM_SCOPE, CLOUD_SCOPE}:
            return 400, {"error": "invalid_scope"}
        token = "ya29.fake-" + uuid.uuid4().hex
        with self.lock:
            self.access_tokens.add(token)
            self.token_exchanges += 1
        return 200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"}

    def _send(self, headers: dict, body: bytes) -> tuple[int, dict]:
        auth = headers.get("authorization", "")
        with self.lock:
            authorized = auth.startswith("Bearer ") and auth[len("Bearer "):] in self.access_tokens
        if not authorized:
            return 401, _google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        message = json.loads(body).get("message", {})
        token = message.get("token", "")
        status = self._scripted(token)
        with self.lock:
            if status is None:
                status = 200 if token in self.tokens else 404
            self.requests.append((token, status))
            if status == 200:
                self.received.append({"token": token, "payload": message})
        if status == 200:
            return 200, {"name": f"projects/{self.project_id}/messages/{uuid.uuid4().int % 10**19}"}
        return status, _google_error(status, *FCM_ERRORS.get(status, FCM_ERRORS[500]))


# The error answers of FCM HTTP v1 by HTTP status: (google.rpc status, message, FCM error code or None)
FCM_ERRORS = {
    400: ("INVALID_ARGUMENT", "Request contains an invalid argument.", "INVALID_ARGUMENT"),
    403: ("PERMISSION_DENIED", "The caller does not have permission.", None),
    404: ("NOT_FOUND", "Requested entity was not found.", "UNREGISTERED"),
    429: ("RESOURCE_EXHAUSTED", "Quota exceeded for the message target.", "QUOTA_EXCEEDED"),
    500: ("INTERNAL", "Internal error encountered.", "INTERNAL"),
    503: ("UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE"),
}


def _google_error(code: int, status: str, message: str, fcm: str | None = None) -> dict:
    """The error body of Google APIs (google.rpc.Status), with FCM's error code in ``details``."""
    error = {"code": code, "message": message, "status": status}
    if fcm:
        error["details"] = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": fcm}]
    return {"error": error}


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed TLS certificate for ``127.0.0.1`` and ``localhost`` and its key, written to
    ``directory``: ``(cert.pem, key.pem)``. The certificate file is also the CA a client trusts."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fake-apns.okgin.test")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = Path(directory) / "fake-apns-cert.pem", Path(directory) / "fake-apns-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(_pem_private(key))
    return cert_path, key_path


class FakeAPNs(Scripted):
    """APNs' provider API (HTTP/2 over TLS) on loopback. ``auth_key_file(dir)`` writes the .p8
    signing key the provider token is made with (``key_id``, ``team_id``, ``topic`` to configure);
    ``endpoint`` (``127.0.0.1:<port>``) is what ``APNS_ENDPOINT`` names and ``ca_file`` what the
    client must trust. ``register(token)`` makes a device token valid; ``unregister(token)`` makes
    it answer 410 ``Unregistered``; ``script(token, [503, ...])``. ``received``: accepted
    notifications ``{"token", "payload", "headers"}``; ``requests``: every send ``(token, status)``."""

    def __init__(self, directory: Path, topic: str = "test.okgin.app", team_id: str = "TEAM123456",
                 key_id: str = "KEY1234567"):
        self.topic, self.team_id, self.key_id = topic, team_id, key_id
        self.signing_key = ec.generate_private_key(ec.SECP256R1())
        self.ca_file, key_path = self_signed_certificate(directory)
        self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls.load_cert_chain(self.ca_file, key_path)
        self.tls.set_alpn_protocols(["h2"])
        self._recording()  # received: accepted notifications {"token", "payload", "headers"}
        self.tokens: set[str] = set()
        self.dropped: set[str] = set()
        self.requests: list[tuple[str, int]] = []
        self.refused: list[dict] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self._closed = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def auth_key_file(self, directory: Path) -> Path:
        path = Path(directory) / f"AuthKey_{self.key_id}.p8"
        path.write_bytes(_pem_private(self.signing_key))
        return path

    def register(self, token: str) -> None:
        with self.lock:
            self.tokens.add(token)
            self.dropped.discard(token)

    def unregister(self, token: str) -> None:
        with self.lock:
            self.tokens.discard(token)
            self.dropped.add(token)

    def kinds(self, token: str) -> list[str]:
        """The event kinds of the accepted notifications to ``token``, oldest first."""
        return [p["kind"] for p in self.payloads(token)]

    def sends(self, token: str) -> list[int]:
        with self.lock:
            return [status for t, status in self.requests if t == token]

    # --- the server ------------------------------------------------------------------------

    def _accept(self) -> None:
        self.sock.settimeout(0.5)
        while not self._closed.is_set():
            try:
                raw, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        import h2.config
        import h2.connection
        import h2.events

        try:
            conn_sock = self.tls.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            return
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        streams: dict[int, dict] = {}
        try:
            conn_sock.sendall(conn.data_to_send())
            conn_sock.settimeout(0.5)
            while not self._closed.is_set():
                try:
                    data = conn_sock.recv(65535)
                except socket.timeout:
                    continue
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
                    elif isinstance(event, h2.events.DataReceived):
                        streams[event.stream_id]["body"] += event.data
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        request = streams.pop(event.stream_id)
                        status, headers, body = self._handle(request["headers"], request["body"])
                        conn.send_headers(event.stream_id, [(":status", str(status)), *headers],
                                          end_stream=not body)
                        if body:
                            conn.send_data(event.stream_id, body, end_stream=True)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        return
                conn_sock.sendall(conn.data_to_send())
        except (OSError, ssl.SSLError):
            pass
        finally:
            conn_sock.close()

    def _provider_token_problem(self, header: str) -> str | None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            return "MissingProviderToken"
        try:
            if jwt.get_unverified_header(token).get("kid") != self.key_id:
                return "InvalidProviderToken"
            claims = jwt.decode(token, self.signing_key.public_key(), algorithms=["ES256"],
                                options={"require": ["iss", "iat"]})
        except jwt.PyJWTError:
            return "InvalidProviderToken"
        if claims["iss"] != self.team_id or abs(time.time() - claims["iat"]) > 3600:
            return "InvalidProviderToken"
        return None

    def _handle(self, headers: dict, body: bytes) -> tuple[int, list, bytes]:
        apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
        path = headers.get(":path", "")
        token = path.removeprefix("/3/device/")

        def error(status, reason):
            with self.lock:
                self.requests.append((token, status))
                self.refused.append({"token": token, "status": status, "reason": reason})
            answer = {"reason": reason}
            if status == 410:
                answer["timestamp"] = int(time.time() * 1000)
            return status, [("apns-id", apns_id)], json.dumps(answer).encode()

        if headers.get(":method") != "POST" or not path.startswith("/3/device/"):
            return error(405 if headers.get(":method") != "POST" else 404, "BadPath")
        problem = self._provider_token_problem(headers.get("authorization", ""))
        if problem:
            return error(403, problem)
        if headers.get("apns-topic") != self.topic:
            return error(400, "TopicDisallowed")
        try:
            payload = json.loads(body)
        except ValueError:
            return error(400, "PayloadEmpty")
        status = self._scripted(token)
        with self.lock:
            known, dropped = token in self.tokens, token in self.dropped
        if status is not None and status >= 300:
            return error(status, {500: "InternalServerError", 503: "ServiceUnavailable"}.get(status, "BadRequest"))
        if dropped:
            return error(410, "Unregistered")
        if not known:
            return error(400, "BadDeviceToken")
        with self.lock:
            self.requests.append((token, 200))
            self.received.append({"token": token, "payload": payload, "headers": dict(headers)})
        return 200, [("apns-id", apns_id)], b""

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self._closed.set()
        self.sock.close()
