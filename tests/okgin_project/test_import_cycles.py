"""No import cycles among the project's modules (okgin_project, games, players, notifications).

The graph is read from the source with ``ast``: every ``import`` and ``from ... import`` anywhere in a
module (inside functions too: a function-level import is still a dependency, only a later one)
is an edge to the project module it names. ``from package import name`` is an edge to the
submodule ``package.name`` when that is a module, else to ``package``. Importing a submodule is not
counted as importing its parent package (``__init__``), as Python resolves those without running
into each other. ``if TYPE_CHECKING:`` blocks are skipped: they never run.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.sources import source_files

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("okgin_project", "games", "players", "notifications")


def _modules(root: Path, packages) -> dict[str, Path]:
    """``{"games.services.actions": path, "games.services": path/__init__.py, ...}``."""
    found = {}
    for package in packages:
        for path in source_files(package, root=root):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if "migrations" in parts:
                continue
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every Import/ImportFrom node of ``tree`` at any depth, except under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    """``{module: {project modules it imports}}`` for every module of ``packages`` under ``root``."""
    modules = _modules(root, packages)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = name.split(".")
                    base = base[: len(base) - node.level + (1 if is_package else 0)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module
                targets = [f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in modules else prefix
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:  # `import a.b.c` of a non-module attribute
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan), each sorted:
    every module in one can reach every other, so each is at least one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(components)


def test_the_project_has_no_import_cycles():
    graph = import_graph(ROOT)
    assert {"games.services", "games.tasks", "notifications.services", "okgin_project.settings.base"} <= set(graph)
    assert "games.services" in graph["games.tasks"]  # tasks import services, never the other way
    assert import_cycles(graph) == []


def test_services_import_no_task_module():
    graph = import_graph(ROOT)
    for module, imported in graph.items():
        if ".services" in module or module.endswith("services"):
            assert not {m for m in imported if m.endswith(".tasks")}, module


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_check_finds_a_cycle_through_a_function_level_import(tmp_path):
    _write(tmp_path, {
        "app/__init__.py": "",
        "app/services.py": "def f():\n    from .tasks import t\n    return t\n",
        "app/tasks.py": "from app import services\n",
        "app/views.py": "from . import services\n",
    })
    graph = import_graph(tmp_path, packages=("app",))
    assert graph["app.services"] == {"app.tasks"} and graph["app.tasks"] == {"app.services"}
    assert import_cycles(graph) == [["app.services", "app.tasks"]]


def test_the_check_resolves_relative_imports_in_packages_and_skips_type_checking(tmp_path):
    _write(tmp_path, {
        "app/__init__.py": "",
        "app/svc/__init__.py": "from .a import x\nfrom . import b\n",
        "app/svc/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.svc import b\nx = 1\n",
        "app/svc/b.py": "from ..svc.a import x\nimport app.svc.a\n",
        "app/c.py": "import app.svc.b.something\nfrom app.svc import a, b\n",
    })
    graph = import_graph(tmp_path, packages=("app",))
    assert graph["app.svc"] == {"app.svc.a", "app.svc.b"}
    assert graph["app.svc.a"] == set()
    assert graph["app.svc.b"] == {"app.svc.a"}
    assert graph["app.c"] == {"app.svc.a", "app.svc.b"}
    assert import_cycles(graph) == []
    _write(tmp_path, {"app/svc/a.py": "from app.c import y\n"})
    assert import_cycles(import_graph(tmp_path, packages=("app",))) == [["app.c", "app.svc.a", "app.svc.b"]]
