"""The tests that read the project's source files see the real source tree only: a mutated copy
left in the checkout (``build/mutation/<target>/``, from an older ``scripts/mutation.sh``; mutmut's
``mutants/``) or installed files are never scanned, and the mutation script works outside the
checkout."""
import os
import re
import subprocess
from pathlib import Path

from tests.notifications.test_live import version_writes
from tests.okgin_project.test_error_codes import _codes_in_source, _marked_error_codes
from tests.okgin_project.test_import_cycles import _modules
from tests.sources import REPO, source_files

BUMP = "def bump(game):\n    game.version += 1\n"
RAISES = 'class Stale(Exception):\n    code = "{}"\n'
MARKED = 'import pytest\n\n\n@pytest.mark.error_code("{}")\ndef test_it():\n    assert True\n'


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _checkout_with_stray_copies(root: Path) -> None:
    """A small checkout (one service bumping a version, one error code, one marked test) and the
    same files changed in every kind of generated folder (each would add a line, a code or a
    marker if it were read)."""
    real = {"games/__init__.py": "", "games/services/common.py": BUMP, "games/errors.py": RAISES.format("real_code"),
            "tests/test_real.py": MARKED.format("real_code")}
    _tree(root, real)
    for prefix in ("build/mutation/services/", "mutants/", ".venv/lib/python3.11/site-packages/", "dist/okgin/",
                   "okgin.egg-info/", "games/__pycache__/", "var/"):
        _tree(root, {prefix + rel: text.replace("real_code", "stray_code") + BUMP for rel, text in real.items()})


def test_source_files_skips_generated_folders(tmp_path):
    _checkout_with_stray_copies(tmp_path)
    rel = [p.relative_to(tmp_path).as_posix() for p in source_files(root=tmp_path)]
    assert rel == ["games/__init__.py", "games/errors.py", "games/services/common.py", "tests/test_real.py"]
    assert [p.relative_to(tmp_path).as_posix() for p in source_files("games", pattern="c*.py", root=tmp_path)] == [
        "games/services/common.py"]
    assert source_files("build", root=tmp_path) == [] and source_files("nowhere", root=tmp_path) == []


def test_scanning_tests_ignore_a_stray_mutation_copy(tmp_path):
    """Each scanner the suite uses, pointed at a checkout holding stray copies, finds the real
    file's line, code, marker and module only (the whole-tree glob of the version-bump test read
    ``build/mutation/.../common.py:2`` too before it used ``source_files``)."""
    _checkout_with_stray_copies(tmp_path)
    assert version_writes(tmp_path) == ["games/services/common.py:2"]
    assert _codes_in_source(tmp_path) == {"real_code"}
    assert set(_marked_error_codes(tmp_path)) == {"real_code"}
    assert set(_modules(tmp_path, ["games"])) == {"games", "games.errors", "games.services.common"}


def test_no_test_walks_the_tree_but_through_source_files():
    """A test that globs recursively (``rglob``, a ``**`` pattern) or walks folders itself would
    read generated copies again: only tests/sources.py does, pruning them."""
    walking = re.compile(r"\.rglob\(|glob\([^)]*\*\*|os\.walk\(")
    found = [f"{p.relative_to(REPO)}:{n}" for p in source_files("tests") if p.name != "sources.py"
             for n, line in enumerate(p.read_text().splitlines(), 1) if walking.search(line)]
    assert found == []


def test_mutation_copies_are_made_outside_the_checkout(tmp_path):
    """scripts/mutation.sh copies the tree to the user's cache folder by default and refuses a
    work folder inside the checkout before writing anything (checked with a virtualenv that does
    not exist: the script stops before using it)."""
    script = (REPO / "scripts" / "mutation.sh").read_text()
    assert 'work="${MUTATION_WORK_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/okgin-mutation/' in script
    inside = REPO / "build" / "mutation-refused"
    env = {**os.environ, "MUTATION_VENV": str(tmp_path / "no-venv"), "MUTATION_WORK_DIR": str(inside)}
    proc = subprocess.run([str(REPO / "scripts" / "mutation.sh"), "sample"], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "MUTATION_WORK_DIR must be outside the checkout" in proc.stderr
    assert not inside.exists()
