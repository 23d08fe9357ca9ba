"""Every rule number in RULES.md is named by at least one engine test (name or docstring).

The repository carries its own copy of the rules (``RULES.md`` at the top level, so users of a
clone can read them); when the project's shared rule page sits beside the clone, the copy must
be identical to it.
"""
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "RULES.md"
SHARED_RULES = REPO.parent / "shared" / "RULES.md"
RULE_RE = re.compile(r"\bR\d+\.\d+(?!\d)")


def rule_numbers() -> list[str]:
    text = RULES.read_text()
    numbers = re.findall(r"^- (R\d+\.\d+) ", text, flags=re.M)
    return sorted(set(numbers), key=lambda r: tuple(int(x) for x in r[1:].split(".")))


def test_every_rule_in_rules_md_is_named_by_an_engine_test():
    numbers = rule_numbers()
    assert len(numbers) >= 30, numbers  # R1.1 ... R10.1
    assert "R1.1" in numbers and "R10.1" in numbers
    named = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        if path.name == Path(__file__).name:
            continue
        named |= set(RULE_RE.findall(path.read_text()))
    missing = [r for r in numbers if r not in named]
    assert not missing, f"rules with no engine test naming them: {missing}"


def test_rules_md_has_the_worked_examples_section():
    assert "## Worked examples" in RULES.read_text()


@pytest.mark.skipif(not SHARED_RULES.exists(), reason=f"{SHARED_RULES} not found (shared/ is not beside the clone)")
def test_the_repository_copy_of_rules_md_matches_the_shared_rules():
    assert RULES.read_text() == SHARED_RULES.read_text(), "RULES.md is out of date: copy ../shared/RULES.md"
