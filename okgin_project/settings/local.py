"""Local development and the embedded default (``./scripts/run.sh``): SQLite unless DATABASE_URL.

No secret comes from the repository: without ``SECRET_KEY`` in the environment, a random key is
generated on the first start into ``var/secret_key`` of the checkout (ignored by git, mode 0600)
and read back on every later start, so tokens stay valid across restarts.

DEBUG (Django's technical error pages, which show settings and source) is on only while the server
is bound to a loopback address: ``HOST`` (the address ``run.sh`` serves, default
``127.0.0.1``) must be ``localhost``, ``127.x.x.x`` or ``::1``. Bound to ``0.0.0.0`` or a LAN
address (a phone on the same network), DEBUG is off even if ``DEBUG=true`` is set, and the host
names the phone uses must be in ``ALLOWED_HOSTS``. Static files are then served by WhiteNoise from
the apps' folders (no collectstatic needed).
"""
import ipaddress
import os
import secrets
from pathlib import Path

from .base import *  # noqa: F401,F403
from .base import BASE_DIR, env


def bound_to_loopback(host: str) -> bool:
    """True when ``host`` (a name or an IP address, IPv6 optionally in brackets) is loopback-only."""
    host = host.strip().strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_secret_key(path: Path) -> str:
    """The secret key stored in ``path``, generated (``secrets.token_urlsafe(50)``, 67 characters)
    and stored with mode 0600 when the file does not exist yet. Safe when two processes start at
    once (runserver and its autoreloader): the first file linked into place wins, both read it.
    Raises ``OSError`` if the folder cannot be written."""
    try:
        key = path.read_text().strip()
        if key:
            return key
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(50) + "\n")
    try:
        os.link(draft, path)  # atomic; fails if another process got there first
    except FileExistsError:
        pass
    finally:
        draft.unlink()
    return path.read_text().strip()


OKGIN_BIND_HOST = env.str("HOST", default="127.0.0.1")
DEBUG = env.bool("DEBUG", default=True) and bound_to_loopback(OKGIN_BIND_HOST)
SECRET_KEY = env.str("SECRET_KEY", default="") or local_secret_key(BASE_DIR / "var" / "secret_key")
# Static files straight from the apps' folders (no collectstatic), also with DEBUG off.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
