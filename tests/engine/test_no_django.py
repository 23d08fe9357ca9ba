"""The engine is framework-free: no module under games/engine imports Django, DRF or Celery."""
import ast
import subprocess
import sys
from pathlib import Path

from tests.sources import REPO, source_files

ENGINE = REPO / "games" / "engine"
FORBIDDEN = ("django", "rest_framework", "celery")


def imported_modules(path: Path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                yield node.module
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                "__import__", "import_module") and node.args and isinstance(node.args[0], ast.Constant):
            yield str(node.args[0].value)


def test_no_framework_import_in_engine_sources():
    files = source_files("games/engine")
    assert len(files) >= 8
    for path in files:
        for module in imported_modules(path):
            assert module.split(".")[0] not in FORBIDDEN, f"{path.relative_to(ENGINE.parent.parent)} imports {module}"
        text = path.read_text()
        for name in FORBIDDEN:
            assert f"import {name}" not in text and f"from {name}" not in text, f"{path} mentions {name}"


def test_importing_the_engine_loads_no_framework():
    """In a fresh interpreter (no Django settings), importing games.engine and playing a round loads
    none of the frameworks."""
    code = (
        "import sys, random\n"
        "import games.engine as e\n"
        "s = e.new_match()\n"
        "s, _ = e.deal(s, e.shuffled_deck(random.Random(1)))\n"
        "s, _ = e.apply(s, s.to_act, e.legal_actions(s)[0])\n"
        "e.player_view(s, 0).to_dict()\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ENGINE.parent.parent)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=str(ENGINE.parent.parent), timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip() == "[]"
    assert "django" not in out.stdout
