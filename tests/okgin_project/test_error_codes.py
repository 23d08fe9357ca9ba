"""The error code list is complete (every code the code raises) and the README's table is it."""
import re
from pathlib import Path

from okgin_project.error_codes import ERROR_CODES, markdown_table
from okgin_project.errors import _ENGINE_STATUS
from okgin_project.middleware import _BY_STATUS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["okgin_project", "players", "games", "notifications"]
BASE_CLASS_DEFAULTS = {"error", "conflict"}  # ServiceError/Conflict defaults, always overridden


def _codes_in_source() -> set[str]:
    found = set()
    for top in SOURCES:
        for path in (ROOT / top).rglob("*.py"):
            if "migrations" in path.parts or path.parts[-3:-1] == ("engine", "ai"):
                continue
            found |= set(re.findall(r'code\s*=\s*"([a-z_]+)"', path.read_text()))
    return found - BASE_CLASS_DEFAULTS


def test_every_code_raised_is_listed():
    assert _codes_in_source() - set(ERROR_CODES) == set()
    assert {code for code, _message in _BY_STATUS.values()} - set(ERROR_CODES) == set()


def test_statuses_match_the_handlers():
    for code, status in _ENGINE_STATUS.items():
        assert ERROR_CODES[code][0] == status, code
    for status, (code, _message) in _BY_STATUS.items():
        assert ERROR_CODES[code][0] == status, code


def test_readme_table_is_generated_from_the_list():
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- error-codes:start -->\n")[1].split("\n<!-- error-codes:end -->")[0]
    assert table == markdown_table()
