"""The project's own source files, for the tests that read them (error codes raised, rule markers,
imports, version bumps...): every scanning test lists files through ``source_files`` so that
generated copies never count: ``build/`` (where an older ``scripts/mutation.sh`` left a mutated
copy of the whole tree), ``mutants/`` (mutmut's), ``dist/``, the virtualenv, caches and local
state. No Django import here: the engine's tests use it too."""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Folder names that hold generated or installed files, at any depth.
GENERATED_DIRS = frozenset({
    ".git", ".venv", "venv", "build", "dist", "mutants", "__pycache__", ".pytest_cache", ".hypothesis",
    ".mypy_cache", ".ruff_cache", ".tox", "node_modules", "staticfiles", "var",
})


def is_generated(path: Path, root: Path = REPO) -> bool:
    """True when ``path`` (a file under ``root``) lies in a generated folder (``GENERATED_DIRS`` or an
    ``*.egg-info``) at any depth below ``root``."""
    parts = path.relative_to(root).parts[:-1]
    return any(part in GENERATED_DIRS or part.endswith(".egg-info") for part in parts)


def source_files(*folders: str, pattern: str = "*.py", root: Path = REPO) -> list[Path]:
    """The files matching ``pattern`` (a glob on the file name) under ``folders`` (paths relative
    to ``root``; the whole of ``root`` when none is given), at any depth, sorted, without those in
    generated folders (see ``is_generated``). A folder that does not exist gives nothing."""
    found: set[Path] = set()
    for folder in folders or (".",):
        base = root / folder
        if is_generated(base / "x", root):
            continue
        for dirpath, dirnames, filenames in os.walk(base):  # generated folders pruned, not walked
            dirnames[:] = [d for d in dirnames if d not in GENERATED_DIRS and not d.endswith(".egg-info")]
            found |= {Path(dirpath, name) for name in fnmatch.filter(filenames, pattern)}
    return sorted(found)
