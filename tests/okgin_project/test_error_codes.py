"""The error code list is complete (every code the code raises), docs/errors.md's table is it, and
every listed code is produced by a test that checks its status, code and shape."""
import ast
import re
from pathlib import Path

from okgin_project.error_codes import ERROR_CODES, markdown_table
from okgin_project.errors import _ENGINE_STATUS
from okgin_project.middleware import _BY_STATUS
from tests.helpers import mark_args
from tests.sources import source_files

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["okgin_project", "players", "games", "notifications"]
BASE_CLASS_DEFAULTS = {"error", "conflict"}  # ServiceError/Conflict defaults, always overridden


def _codes_in_source(root: Path = ROOT) -> set[str]:
    """The error codes the project's code under ``root`` raises (``code = "..."``), never read from a
    generated copy (tests/sources.py)."""
    found = set()
    for top in SOURCES:
        for path in source_files(top, root=root):
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


def test_docs_errors_table_is_generated_from_the_list():
    page = (ROOT / "docs" / "errors.md").read_text()
    table = page.split("<!-- error-codes:start -->\n")[1].split("\n<!-- error-codes:end -->")[0]
    assert table == markdown_table()


def _marked_error_codes(root: Path = ROOT) -> dict[str, list[str]]:
    """``code -> [where]`` from ``@pytest.mark.error_code(...)`` decorators on test functions and
    ``pytest.param(..., marks=pytest.mark.error_code(...))`` cases under tests/, read from the syntax
    tree (a comment or a string does not count). The conftest hook fails each marked test that does
    not check its codes with ``assert_error``."""
    marked: dict[str, list[str]] = {}
    for path in source_files("tests", pattern="test_*.py", root=root):
        for node in ast.walk(ast.parse(path.read_text())):
            found = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                found = [c for dec in node.decorator_list for c in mark_args(dec, "error_code")]
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.param":
                found = [c for kw in node.keywords if kw.arg == "marks" for c in mark_args(kw.value, "error_code")]
            for code in found:
                marked.setdefault(code, []).append(f"{path.name}:{node.lineno}")
    return marked


def test_every_listed_code_is_produced_and_checked_by_a_test():
    marked = _marked_error_codes()
    assert set(ERROR_CODES) - set(marked) == set(), "codes no test produces (mark it error_code + assert_error)"
    assert set(marked) - set(ERROR_CODES) == set()
