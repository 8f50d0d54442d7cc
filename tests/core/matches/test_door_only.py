"""Only the door writes match and seat rows, read from the code.

Every call that writes a `match` or `seat` row (`Match.update`, `Seat.create`, a seat's
`.save()`, `update_columns(seat, …)`, …) must be in one of these places:
- the door itself (`core/matches/changes.py`);
- a function that takes the locked match (a parameter annotated `Locked`): it runs inside a
  change, under the door's locks (every change's `apply`, and what they call); or a settler
  (a parameter annotated `Settled`), which the door (or a match's creation) calls with a
  change it has just written (`core/matches/changes.py`);
- a helper in `DOOR_HELPERS`, whose every call is itself in one of these places (checked);
- one of the few `BORN_OR_ASIDE` writers, each with its reason.
A new write anywhere else fails here: route it through a change, or add it with a reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pbem

ROOT = Path(pbem.__file__).resolve().parent
TABLES = {"Match", "Seat"}
WRITES = {"update", "insert", "insert_many", "create", "delete", "replace", "get_or_create",
          "bulk_create", "bulk_update", "insert_from"}
# Written only on a seat or a match (by these names) when `.save()` or `update_columns` is met.
ROW_NAMES = {"seat", "row", "mover", "match"}
DOOR = "core/matches/changes.py"
# Helpers that write seats for the door: every call to them must be door-bound too.
DOOR_HELPERS = {
    ("core/matches/deadlines.py", "start_clock"), ("core/matches/deadlines.py", "stop_clock"),
    ("core/matches/deadlines.py", "stop_all_clocks"),
    ("core/matches/deadlines.py", "refresh_deadline"),
    ("core/records/standings.py", "settle"),
    ("core/matches/sweep.py", "_clear_stray_times"),
}
BORN_OR_ASIDE = {
    # A match is born: its creation is the first row of its change log.
    ("core/matches/creation.py", "create_match"): "creation",
    ("core/matches/creation.py", "_seat"): "creation: the new match's seats",
    ("core/records/imports.py", "import_record"): "an imported match is born likewise",
    # The seat's link credential (its generation): not the match's state, no history.
    ("core/matches/seat_links.py", "reissue"): "a seat link re-issued",
    # A read receipt on the seat, written on page views: it changes nothing in the match.
    ("core/matches/visits.py", "note_visit"): "a seat's last visit",
}


def _functions() -> list[tuple[str, ast.FunctionDef, bool]]:
    """Every function: (module path, node, takes a `Locked` or a `Settled`)."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        module = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                arguments = node.args.args + node.args.kwonlyargs
                locked = any(a.annotation is not None
                             and ("Locked" in ast.unparse(a.annotation)
                                  or ast.unparse(a.annotation).endswith("Settled"))
                             for a in arguments)
                found.append((module, node, locked))
    return found


FUNCTIONS = _functions()


def _writes(node: ast.FunctionDef) -> list[str]:
    out = []
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in TABLES and func.attr in WRITES):
            out.append(f"{func.value.id}.{func.attr}")
        elif (isinstance(func, ast.Attribute) and func.attr == "save"
              and isinstance(func.value, ast.Name) and func.value.id in ROW_NAMES):
            out.append(f"{func.value.id}.save()")
        elif (isinstance(func, ast.Name) and func.id in ("update_columns", "insert_row")
              and call.args and ast.unparse(call.args[0]) in ROW_NAMES | TABLES):
            out.append(f"{func.id}({ast.unparse(call.args[0])})")
    return out


def test_only_the_door_writes_match_and_seat_rows() -> None:
    strays = []
    for module, node, locked in FUNCTIONS:
        if module == DOOR or locked or (module, node.name) in DOOR_HELPERS \
                or (module, node.name) in BORN_OR_ASIDE:
            continue
        strays += [f"{module}:{node.lineno} {node.name}: {what}" for what in _writes(node)]
    assert strays == []


def test_the_door_helpers_are_called_only_under_the_door() -> None:
    names = {name for _, name in DOOR_HELPERS}
    outside = []
    for module, node, locked in FUNCTIONS:
        if module == DOOR or locked or (module, node.name) in DOOR_HELPERS \
                or (module, node.name) in BORN_OR_ASIDE:
            continue
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                called = call.func.attr if isinstance(call.func, ast.Attribute) else (
                    call.func.id if isinstance(call.func, ast.Name) else "")
                if called in names:
                    outside.append(f"{module}:{call.lineno} {node.name} calls {called}")
    assert outside == []


def test_the_check_finds_a_write_made_outside_the_door() -> None:
    """The scan is not blind: a seat saved in an ordinary function is found."""
    tree = ast.parse("def sneak(seat):\n    seat.deadline = None\n    seat.save()\n")
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    assert _writes(function) == ["seat.save()"]
