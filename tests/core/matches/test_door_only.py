"""Only the door writes match and seat rows, and only its package writes a match's draw
offers, rulings, moves and positions, read from the code.

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

A match's draw offers (`DrawOffer`), rulings (`Adjudication`), moves and positions are written
only in the door's package (`core/matches/`), and the few `HISTORY_ASIDE` writers: what
pages keep per match version (`core/db/memo.py`) follows from the version because the door
counts every such write. Module-level statements (a `Prepared` query built at import) are
read as well as functions.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
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
    ("core/records/imports.py", "_write_history"): "with the history its record tells",
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


# --- a match's offers, rulings, moves and positions ------------------------------------------

DOOR_PACKAGE = "core/matches/"
HISTORY = {"DrawOffer", "Adjudication", "Move", "Position"}
# Names such rows are held by where `.save()`, `delete_instance` or `update_columns` is met.
HISTORY_ROW_NAMES = {"offer", "draw_offer", "ruling", "adjudication", "move", "position"}
ROW_WRITES = {"save", "delete_instance"}
HISTORY_ASIDE = {
    ("core/records/imports.py", "_write_history"): "an imported match is born with its moves, "
                                                  "positions and rulings",
}


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(ROOT.rglob("*.py")):
        if "migrations" not in path.parts:
            yield (str(path.relative_to(ROOT)),
                   ast.parse(path.read_text(encoding="utf-8")))


def _calls_by_owner(tree: ast.Module) -> Iterator[tuple[str, ast.Call]]:
    """Every call, with the outermost function holding it ("<module>" at import time)."""
    for node in tree.body:
        owner = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else "<module>"
        for call in ast.walk(node):
            if isinstance(call, ast.Call):
                yield owner, call


def history_writes(call: ast.Call, tables: set[str] = HISTORY,
                   row_names: set[str] = HISTORY_ROW_NAMES) -> str | None:
    """What `call` writes of `tables`, if anything: `Move.update(…)`, `add_row(Position, …)`,
    `offer.save()`, `update_columns(ruling, …)`."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id in tables and func.attr in WRITES | {"delete_by_id"}:
            return f"{func.value.id}.{func.attr}"
        if func.value.id in row_names and func.attr in ROW_WRITES:
            return f"{func.value.id}.{func.attr}()"
    if (isinstance(func, ast.Name) and func.id in ("add_row", "insert_row", "update_columns")
            and call.args and ast.unparse(call.args[0]) in tables | row_names):
        return f"{func.id}({ast.unparse(call.args[0])})"
    return None


def history_strays() -> list[str]:
    strays = []
    for module, tree in _modules():
        if module.startswith(DOOR_PACKAGE):
            continue
        for owner, call in _calls_by_owner(tree):
            what = history_writes(call)
            if what and (module, owner) not in HISTORY_ASIDE:
                strays.append(f"{module}:{call.lineno} {owner}: {what}")
    return strays


def test_only_the_door_package_writes_offers_rulings_moves_and_positions() -> None:
    assert history_strays() == []


def test_the_history_check_finds_writes_made_outside_the_door() -> None:
    """The scan is not blind: each kind of write of each table is found, in a function and at
    import time."""
    source = ("def sneak(offer, move):\n"
              "    DrawOffer.update(status='lapsed').execute()\n"
              "    Adjudication.create(match=1, seat=0)\n"
              "    add_row(Move, match=1, ply=2)\n"
              "    Position.delete().execute()\n"
              "    offer.save()\n"
              "    update_columns(move, ['text'])\n"
              "LATER = Prepared(lambda: Move.update(text='x'))\n")
    found = [history_writes(call) for _, call in _calls_by_owner(ast.parse(source))]
    assert sorted(what for what in found if what) == sorted([
        "DrawOffer.update", "Adjudication.create", "add_row(Move)", "Position.delete",
        "offer.save()", "update_columns(move)", "Move.update"])


def test_the_asides_still_write() -> None:
    """Each exception is still needed (a stale one would hide a new write in its place)."""
    writers = {(module, owner) for module, tree in _modules()
               for owner, call in _calls_by_owner(tree) if history_writes(call)}
    assert set(HISTORY_ASIDE) <= writers
