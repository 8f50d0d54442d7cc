"""The toy game (tests/games/toy: a tic-tac-toe written by docs/ADDING_A_GAME.md alone) passes
every test that reads the registry, in a run of its own with the toy registered
(tests/games/toy/plugin.py); and the guide names what the toy has and shows its description,
so a step the guide leaves out, or one it no longer needs, fails here."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pbem.games
from pbem.games import DESCRIPTIONS, REGISTRY, describe, get_rules, register
from tests.games.toy.tic_tac_toe import GAME
from tests.support.render import SUPPORT_TEMPLATES

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "ADDING_A_GAME.md"
TOY = Path(__file__).resolve().parent / "toy" / "tic_tac_toe"
# The names a test module reads the registry by.
REGISTRY_NAMES = frozenset({"REGISTRY", "GAMES", "DESCRIPTIONS", "describe", "get_rules"})
# Tests the run must have passed: one of each kind that failed for a new game before the
# guide and the tests were made generic (click data, strength entry, a game under 12 plies).
EXPECTED = (
    "tests/games/test_contract.py::test_random_playout_keeps_the_contract[tic-tac-toe-2p-seed1]",
    "tests/games/test_description.py::test_the_description_matches_its_rules[tic-tac-toe]",
    "tests/web/matches/test_clicks.py::test_every_clickable_square_or_card_is_described"
    "[tic-tac-toe]",
    "tests/bots/test_strength.py::test_every_game_has_measured_levels_from_the_bench",
    "tests/core/records/test_version_parts.py::test_the_version_parts_are_the_same_at_any_time"
    "[sqlite-tic-tac-toe]",
)


def registry_readers() -> list[str]:
    """Every test module that imports the registry's names from `pbem.games` (but this one,
    which holds that the toy is not registered)."""
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path == Path(__file__).resolve():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.ImportFrom) and node.module == "pbem.games"
               and {alias.name for alias in node.names} & REGISTRY_NAMES
               for node in ast.walk(tree)):
            found.append(path.relative_to(ROOT).as_posix())
    return found


def test_the_toy_is_not_in_the_production_registry() -> None:
    assert GAME.slug not in REGISTRY


def test_register_lists_a_game_as_its_line_in_folders_would(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GAMES", "DESCRIPTIONS", "REGISTRY"):  # copies, so the run's stay as they are
        monkeypatch.setattr(pbem.games, name, type(getattr(pbem.games, name))(
            getattr(pbem.games, name)))
    register(GAME)
    assert pbem.games.GAMES[-1] is GAME and describe(GAME.slug) is GAME
    assert get_rules("Tic-Tac-Toe") is GAME.rules
    with pytest.raises(ValueError, match="already registered"):
        register(DESCRIPTIONS["mimic"])
    assert len(pbem.games.GAMES) == len(DESCRIPTIONS) + 1


def test_the_toy_passes_every_test_that_reads_the_registry() -> None:
    modules = registry_readers()
    assert {"tests/games/test_contract.py", "tests/web/test_pages.py"} <= set(modules)
    # Not xdist's worker variables: the run is a session of its own. SQLite alone: what a
    # game adds does not depend on the database (its own tests run on every backend).
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env.update(PBEM_TEST_BACKENDS="sqlite", PYTHONPATH=str(ROOT))
    # The browser tests need Chromium and are run by themselves (`-m browser`).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.games.toy.plugin", "-p", "no:cacheprovider",
         "-n", "0", "-m", "not browser", "-rA", "-q", *modules],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    report, code = done.stdout + done.stderr, done.returncode
    assert code == 0, report[-8000:]
    passed = set(re.findall(r"^PASSED (\S+)", done.stdout, re.MULTILINE))
    missing = [name for name in EXPECTED if name not in passed]
    assert not missing, f"not run with the toy: {missing}\n{report[-4000:]}"


def test_the_guide_names_the_files_the_toy_has() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    folder = guide.split("\n## 1. ", 1)[1].split("\n## 2. ", 1)[0]
    named = set(re.findall(r"^- `(\w+\.py)`", folder, re.MULTILINE))
    optional = set(re.findall(r"^- `(\w+\.py)` \(optional", folder, re.MULTILINE))
    has = {path.name for path in TOY.glob("*.py")}
    assert named - optional <= has <= named, (named, optional, has)
    templates = guide.split("\n## 2. ", 1)[1].split("\n## 3. ", 1)[0]
    assert set(re.findall(r"^- `(\w+\.html)`", templates, re.MULTILINE)) == {
        path.name for path in (Path(SUPPORT_TEMPLATES) / "games" / GAME.slug).iterdir()}


def test_the_guides_description_is_the_toys() -> None:
    """The guide's worked `__init__.py` is the toy's, its package under pbem/games."""
    guide = GUIDE.read_text(encoding="utf-8")
    shown = re.search(r"```python\n(\"\"\"Tic-tac-toe.*?)```", guide, re.DOTALL)
    assert shown is not None, "the guide shows the toy's __init__.py"
    toy = (TOY / "__init__.py").read_text(encoding="utf-8")
    assert shown.group(1) == toy.replace("tests.games.toy.", "pbem.games.")
