"""Functions short enough to read at once: none of pbem's is over 60 lines (numbered migrations
aside: each is a frozen record of a schema change, written once)."""

from __future__ import annotations

import ast
from pathlib import Path

import pbem

ROOT = Path(pbem.__file__).resolve().parent
LIMIT = 60


def long_functions(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > LIMIT:
                    found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} "
                                 f"({length} lines)")
    return found


def test_no_function_is_over_sixty_lines() -> None:
    assert long_functions(ROOT) == [], "split these into named steps"


def test_the_count_finds_a_long_function_but_not_a_migration(tmp_path: Path) -> None:
    body = "".join(f"        x{n} = {n}\n" for n in range(LIMIT))
    (tmp_path / "rules.py").write_text(f"class Game:\n    def explain(self):\n{body}")
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "0001_initial.py").write_text(f"def up():\n{body}")
    assert long_functions(tmp_path) == [f"rules.py:2 explain ({LIMIT + 1} lines)"]
