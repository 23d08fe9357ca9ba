"""Every rule number in RULES.md is checked by at least one test that names it with the marker
``@pytest.mark.rule("R7.2", ...)`` on a test function (or a ``pytest.param`` case) that asserts
something. Names, docstrings and comments do not count.

The repository carries its own copy of the rules (``RULES.md`` at the top level, so users of a
clone can read them): the project's shared rule page followed by this server's notes (a section
of its own, e.g. the knocker's default arrangement under R7.4). When the shared page sits beside
the clone, the copy must be it, word for word, before the notes.
"""
import ast
import re
from pathlib import Path

import pytest

from tests.helpers import mark_args
from tests.sources import source_files

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "RULES.md"
SHARED_RULES = REPO.parent / "shared" / "RULES.md"
NOTES = "\n## Notes (this server's choices where the rules leave one)\n"
MARKED_RE = re.compile(r"^R\d+(\.\d+)?$")


def rule_numbers() -> list[str]:
    text = RULES.read_text()
    numbers = re.findall(r"^- (R\d+\.\d+) ", text, flags=re.M)
    return sorted(set(numbers), key=lambda r: tuple(int(x) for x in r[1:].split(".")))


def _asserting_helpers() -> set[str]:
    """Names of the non-test functions under tests/ whose body asserts (shared checks such as
    ``rejected`` or ``assert_error``)."""
    names = set()
    for path in source_files("tests", root=REPO):
        for func in ast.walk(ast.parse(path.read_text())):
            if isinstance(func, ast.FunctionDef) and not func.name.startswith("test") and _asserts(func, set()):
                names.add(func.name)
    return names


def _asserts(func, helpers: set[str]) -> bool:
    """The body asserts: an ``assert`` statement, a ``pytest.raises`` block, or a call of a helper
    that asserts."""
    for n in ast.walk(func):
        if isinstance(n, ast.Assert):
            return True
        if isinstance(n, ast.withitem) and ast.unparse(n.context_expr).startswith("pytest.raises("):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in helpers:
            return True
    return False


def marked_rules() -> dict[str, list[str]]:
    """``rule -> [test]`` from rule markers on asserting test functions under tests/."""
    marked: dict[str, list[str]] = {}
    helpers = _asserting_helpers()
    for path in source_files("tests", pattern="test_*.py", root=REPO):
        tree = ast.parse(path.read_text())
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or not func.name.startswith("test"):
                continue
            rules = [r for dec in func.decorator_list for r in mark_args(dec, "rule")]
            if rules and not _asserts(func, helpers):
                raise AssertionError(f"{path.name}::{func.name} is marked {rules} but asserts nothing")
            for rule in rules:
                marked.setdefault(rule, []).append(f"{path.name}::{func.name}")
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and ast.unparse(call.func) == "pytest.param":
                for kw in call.keywords:
                    for rule in (mark_args(kw.value, "rule") if kw.arg == "marks" else []):
                        marked.setdefault(rule, []).append(f"{path.name}:{call.lineno}")
    return marked


def test_every_rule_in_rules_md_is_checked_by_a_marked_test():
    numbers = rule_numbers()
    assert len(numbers) >= 30, numbers  # R1.1 ... R10.1
    assert "R1.1" in numbers and "R10.1" in numbers
    marked = marked_rules()
    missing = [r for r in numbers if r not in marked]
    assert not missing, f"rules no test marks with @pytest.mark.rule: {missing}"


def test_rule_markers_name_rules_that_exist():
    numbers = set(rule_numbers())
    sections = {r.split(".")[0] for r in numbers}
    for rule, tests in marked_rules().items():
        assert MARKED_RE.match(rule) and (rule in numbers or rule in sections), (rule, tests)


def test_rules_md_has_the_worked_examples_section():
    assert "## Worked examples" in RULES.read_text()


@pytest.mark.skipif(not SHARED_RULES.exists(), reason=f"{SHARED_RULES} not found (shared/ is not beside the clone)")
def test_the_repository_copy_of_rules_md_matches_the_shared_rules():
    rules, shared = RULES.read_text(), SHARED_RULES.read_text()
    assert rules.split(NOTES)[0] == shared, "RULES.md is out of date: copy ../shared/RULES.md before the notes"


def test_the_notes_follow_the_rules_and_cite_them():
    text = RULES.read_text()
    assert text.count(NOTES) == 1
    notes = text.split(NOTES)[1]
    assert "## " not in notes  # the last section
    assert "Note to R7.4" in notes
