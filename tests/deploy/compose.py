"""docker-compose.yml read as data, so tests can check it and run its commands without Docker."""
from __future__ import annotations

import re

import yaml

from tests.deploy.conftest import ROOT

_DEFAULT = re.compile(r"\$\{(\w+):-([^}]*)\}")


def compose_services() -> dict[str, dict]:
    """The ``services`` of docker-compose.yml (YAML anchors and merge keys resolved)."""
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def with_defaults(argv: list[str]) -> list[str]:
    """``argv`` with compose's ``${NAME:-default}`` replaced by the default and ``$$`` by ``$``."""
    return [_DEFAULT.sub(lambda m: m.group(2), a).replace("$$", "$") for a in argv]
