"""pbem/games must stay pure: no I/O, no services, no clock (DESIGN.md, "Layers")."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from pathlib import Path

import pbem.games
from pbem.games import GAMES
from pbem.games.description import GameType

GAMES_DIR = Path(pbem.games.__file__).parent
FORBIDDEN_MODULES = ("flask", "peewee", "smtplib", "socket", "sqlite3", "requests", "urllib",
                     "pbem.core", "pbem.web", "pbem.mail", "pbem.worker", "pbem.cli",
                     "datetime", "time", "os", "subprocess")
FORBIDDEN_CALLS = ("open", "input", "print")


def _imports(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def game_files(games: Iterable[GameType]) -> list[Path]:
    """pbem/games, and the folder of a game a test run registers from elsewhere (the toy)."""
    folders = {Path(sys.modules[type(game.rules).__module__].__file__).parent for game in games}
    elsewhere = sorted(folder for folder in folders if GAMES_DIR not in folder.parents)
    return [*sorted(GAMES_DIR.rglob("*.py")),
            *(path for folder in elsewhere for path in sorted(folder.rglob("*.py")))]


def test_games_import_nothing_impure() -> None:
    offences = []
    for path in game_files(GAMES):
        tree = ast.parse(path.read_text(), filename=str(path))
        for name in _imports(tree):
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN_MODULES):
                offences.append(f"{path.name} imports {name}")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in FORBIDDEN_CALLS):
                offences.append(f"{path.name}:{node.lineno} calls {node.func.id}()")
    assert not offences, offences


def test_the_purity_check_sees_an_impure_module(tmp_path: Path) -> None:
    tree = ast.parse("import peewee\nfrom pbem.core import play\n")
    assert _imports(tree) == ["peewee", "pbem.core"]
