"""What an installed pbem needs: every package it imports is declared in pyproject.toml."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {_normal(re.match(r"[A-Za-z0-9_.-]+", requirement)[0])  # type: ignore[index]
            for requirement in project["dependencies"]}


def _imported() -> set[str]:
    names = set()
    for path in (ROOT / "pbem").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"pbem", "__future__"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_a_declared_dependency() -> None:
    distributions = importlib.metadata.packages_distributions()
    needed = {_normal(dist) for module in _imported() for dist in distributions[module]}
    assert needed, "found no third-party imports: the scan is broken"
    assert needed <= _declared(), f"imported but not declared: {sorted(needed - _declared())}"


def test_the_time_zone_database_is_declared_where_zoneinfo_is_used() -> None:
    uses_zoneinfo = any("zoneinfo" in path.read_text() for path in (ROOT / "pbem").rglob("*.py"))
    assert uses_zoneinfo and "tzdata" in _declared()
