"""The wheel (what ``pip install .`` and the Docker image install) holds the whole service: every
file of every source package, every project app that ``INSTALLED_APPS`` names, and a distribution
among the pinned dependencies for every other app."""
from __future__ import annotations

import importlib.metadata
import re
import zipfile
from pathlib import Path

import tomllib
from django.apps import apps
from django.conf import settings

from tests.deploy.conftest import ROOT, source_packages
from tests.sources import source_files


def _wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return {name for name in zf.namelist() if not name.endswith("/")}


def _source_files(package: str) -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in source_files(package, pattern="*", root=ROOT) if p.suffix != ".pyc"}


def test_source_packages_are_the_project_apps_and_the_project_package():
    # The list the wheel is checked against is found on disk, so it grows with the project; make
    # sure it really finds the packages (an empty list would make the checks below vacuous).
    assert {"okgin_project", "games", "players", "notifications"} <= set(source_packages())
    assert "tests" not in source_packages()


def test_every_file_of_every_source_package_is_in_the_wheel(okgin_wheel):
    in_wheel = _wheel_files(okgin_wheel)
    for package in source_packages():
        expected = _source_files(package)
        assert f"{package}/__init__.py" in expected
        missing = sorted(expected - in_wheel)
        assert not missing, f"{package}: not in {okgin_wheel.name}: {missing}"
    migrations = {f for f in in_wheel if re.search(r"/migrations/\d{4}_\w+\.py$", f)}
    assert {"notifications/migrations/0001_initial.py", "games/migrations/0001_initial.py",
            "players/migrations/0001_initial.py"} <= migrations


def test_the_wheel_ships_neither_tests_nor_benchmarks(okgin_wheel):
    tops = {name.split("/")[0] for name in _wheel_files(okgin_wheel)}
    assert "tests" not in tops and "benchmarks" not in tops
    assert {t for t in tops if not t.endswith(".dist-info")} == set(source_packages())


def _pinned_distributions() -> set[str]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = set()
    for dep in deps:
        name, sep, version = re.match(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(==)?\s*(\S*)", dep).groups()
        assert sep == "==" and version, f"dependency not pinned to an exact version: {dep}"
        names.add(re.sub(r"[-_.]+", "-", name).lower())
    return names


def test_every_installed_app_comes_from_the_wheel_or_a_pinned_dependency(okgin_wheel):
    in_wheel = _wheel_files(okgin_wheel)
    pinned = _pinned_distributions()
    providers = importlib.metadata.packages_distributions()
    ours = set(source_packages())
    assert len(settings.INSTALLED_APPS) == len(list(apps.get_app_configs()))
    for config in apps.get_app_configs():
        top = config.name.split(".")[0]
        if top in ours:
            init = config.name.replace(".", "/") + "/__init__.py"
            assert init in in_wheel, f"INSTALLED_APPS lists {config.name}, the wheel lacks {init}"
        else:
            dists = {re.sub(r"[-_.]+", "-", d).lower() for d in providers.get(top, [])}
            assert dists & pinned, f"{config.name} comes from {dists or 'nowhere'}, not a pinned dependency"
