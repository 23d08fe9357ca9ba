"""The documentation stays true: the README's size and first commands; the route table of docs/api.md
(every route) and the table of docs/configuration.md (every environment variable the settings read);
links between the pages;
benchmarks/README.md (every script, with a dated measurement); docs/architecture.md (every rule
section, every module it names). The error table of docs/errors.md: test_error_codes.py."""
import re
import subprocess
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver

from okgin_project import api_urls
from okgin_project.settings import base as base_settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
API_DOC = ROOT / "docs" / "api.md"
CONFIGURATION_DOC = ROOT / "docs" / "configuration.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "README.md"]


def _section(text: str, heading: str) -> str:
    """The text of the ``## heading`` section (up to the next ``## ``)."""
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start:] if end == -1 else text[start:end]


def _table_rows(text: str) -> list[list[str]]:
    """The body rows of the Markdown tables in ``text`` (header rows left out), as lists of cells."""
    lines = text.splitlines()
    return [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for i, line in enumerate(lines)
            if line.startswith("| ") and not line.startswith("| ---")
            and not (i + 1 < len(lines) and lines[i + 1].startswith("| ---"))]


def test_readme_is_short_and_starts_with_the_two_commands():
    text = README.read_text()
    assert len(text.encode()) < 12_000  # for users: run, call, deploy; reference tables live in docs/
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    assert text.index("```sh\n") < text.index("\n## ")  # before any section
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands == ["./scripts/run.sh", "./scripts/test.sh"]


def _routes(patterns, prefix=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _routes(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern) and p.name:  # unnamed: aliases left out of the schema
            yield prefix + str(p.pattern), p.callback.view_class


def test_api_doc_route_table_lists_every_route_and_method():
    rows = _table_rows(_section(API_DOC.read_text(), "Routes"))
    listed = {(method, path.strip("`").split("?")[0].removeprefix("/"))  # "/": the API root
              for methods, paths, _what in rows for method in methods.split(", ")
              for path in paths.split(", ")}
    routes = list(_routes(api_urls.urlpatterns))
    assert len(routes) >= 20
    for route, view_class in routes:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view_class, method):
                assert (method.upper(), path) in listed, (method.upper(), path)
    assert {path for _method, path in listed} <= {re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r) for r, _ in routes}


def _settings_variables() -> set[str]:
    names = set()
    for path in (ROOT / "okgin_project" / "settings").glob("*.py"):
        text = path.read_text()
        names |= set(re.findall(r'env(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]*)"', text))
        names |= set(re.findall(r'"([A-Z][A-Z0-9_]*)" (?:not )?in env\.ENVIRON', text))
    names |= {f"THROTTLE_{scope.upper()}" for scope in base_settings._RATE_DEFAULTS}
    return names


def test_configuration_doc_lists_every_environment_variable():
    rows = _table_rows(CONFIGURATION_DOC.read_text())
    documented = {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", row[0])}
    variables = _settings_variables()
    assert {"DATABASE_URL", "SECRET_KEY", "AI_TIME_BUDGET", "THROTTLE_AUTH", "CACHE_URL"} <= variables
    assert variables - documented == set()
    assert documented - variables - {"DJANGO_SETTINGS_MODULE"} == set()  # nothing that is not read


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_to_files(page):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
        if "://" in target:
            continue
        assert (page.parent / target).exists(), f"{page.name}: {target}"


def test_readme_links_every_docs_page():
    text = README.read_text()
    for page in ("docs/architecture.md", "docs/operations.md", "docs/ai.md", "docs/errors.md",
                 "docs/api.md", "docs/configuration.md", "benchmarks/README.md", "RULES.md"):
        assert f"]({page})" in text, page


def _git_knows(commit: str) -> bool | None:
    """True/False whether ``commit`` is in this clone's history; None without git or a clone."""
    try:
        result = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}^{{commit}}"],
                                capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    if not (ROOT / ".git").exists():
        return None
    return result.returncode == 0


def test_benchmarks_readme_has_each_script_with_its_command_and_a_dated_measurement():
    text = (ROOT / "benchmarks" / "README.md").read_text()
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if p.name != "__init__.py")
    assert len(scripts) >= 4
    for script in scripts:
        section = _section(text, script)
        assert f".venv/bin/python benchmarks/{script}" in section, script
        match = re.search(r"Latest figures: (\d{4}-\d{2}-\d{2}),[^\n]*?commit ([0-9a-f]{7,40})", section)
        assert match, script
        assert _git_knows(match.group(2)) in (True, None), (script, match.group(2))


def test_architecture_names_every_rule_section_and_only_modules_that_exist():
    text = (ROOT / "docs" / "architecture.md").read_text()
    assert "```mermaid\nflowchart" in text
    rule_sections = re.findall(r"^## (R\d+) ", (ROOT / "RULES.md").read_text(), re.M)
    assert len(rule_sections) == 10
    table = _table_rows(text.split("Where the rules of")[1].split("\n\n", 2)[1])
    assert [row[0].split()[0] for row in table] == rule_sections
    for page in (ROOT / "docs").glob("*.md"):
        for path in set(re.findall(r"`((?:okgin_project|games|players|notifications)/[\w/]*(?:\.py)?)", page.read_text())):
            assert (ROOT / path).exists(), f"{page.name}: {path}"


def test_operations_without_docker_runs_the_compose_commands():
    """docs/operations.md's "Without Docker" block runs migrate, web, worker and beat with
    docker-compose.yml's own commands (only the worker's hostname and beat's schedule file differ)."""
    import shlex

    from tests.deploy.compose import compose_services, with_defaults

    section = (ROOT / "docs" / "operations.md").read_text().split("\n### Without Docker\n", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    documented = [shlex.split(line, comments=True) for line in block.splitlines()]

    def essential(argv):
        return [a for a in argv if not a.startswith(("--hostname=", "--schedule="))]

    for name in ("migrate", "web", "worker", "beat"):
        command = essential(with_defaults(compose_services()[name]["command"]))
        assert command in [essential(argv) for argv in documented], (name, command)
