"""Fixtures of the deployment tests: the wheel of this checkout, built once per session.

The wheel is built from a copy of the source tree in a temporary folder (never from the checkout
itself, whose ``build/`` folder could hold modules deleted since an earlier build), with pip's
ordinary build isolation, exactly as ``pip install .`` and the Dockerfile build it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Not part of the source: the checkout's virtualenv, build output, caches and local state.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".hypothesis",
    ".pytest_cache", "var", "staticfiles", "*.sqlite3", ".okgin-secret",
)


def source_packages(root: Path = ROOT) -> list[str]:
    """Names of the checkout's top-level Python packages (folders with ``__init__.py``) that are
    meant to ship: every one except the test suite."""
    return sorted(
        p.name for p in root.iterdir()
        if p.is_dir() and (p / "__init__.py").is_file() and p.name not in {"tests", "benchmarks"}
    )


def build_wheel(dest: Path) -> Path:
    """Build the project's wheel into ``dest`` (a fresh folder) from a copy of the source tree.

    Returns the path of the ``.whl`` file; raises ``AssertionError`` with pip's output if the
    build fails."""
    src = dest / "src"
    shutil.copytree(ROOT, src, ignore=_NOT_SOURCE)
    out = dest / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out), str(src)],
        cwd=dest, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, f"pip wheel failed:\n{proc.stdout}\n{proc.stderr}"
    wheels = list(out.glob("okgin-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="session")
def okgin_wheel(tmp_path_factory) -> Path:
    """The path of the wheel built from this checkout (once per test session)."""
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def install_wheel(wheel: Path, home: Path) -> Path:
    """A fresh virtualenv ``home/venv`` (outside the checkout) with ``wheel`` and its pinned
    dependencies installed by pip; returns the virtualenv's folder. Raises ``AssertionError`` with
    pip's output if the install fails, or if okgin's packages would be imported from anywhere but
    that virtualenv."""
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, cwd=home, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
                         cwd=home, capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, f"pip install of the wheel failed:\n{pip.stdout}\n{pip.stderr}"
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import okgin_project, games, players, notifications; "
         "print('\\n'.join(m.__file__ for m in (okgin_project, games, players, notifications)))"],
        cwd=home, capture_output=True, text=True, timeout=120, env={"PATH": os.environ["PATH"]},
    )
    assert where.returncode == 0, where.stderr
    for path in where.stdout.split():
        assert Path(path).is_relative_to(venv) and not Path(path).is_relative_to(ROOT), path
    return venv
