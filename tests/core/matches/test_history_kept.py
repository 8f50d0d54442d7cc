"""No code path deletes a match or rewrites a move, read from the code (migrations aside).

What pages keep per match version (`core/db/memo.py`: a position, a page of moves) stays true
because a match's moves only ever grow, each counted by the door, and a match id never comes
back with other moves. So nothing in `pbem/` may:
- delete a match: `Match.delete`, `delete_by_id`, `match.delete_instance()`, a raw
  `DELETE FROM match`, nor delete a row a match hangs from by a cascading key (a match has
  none);
- rewrite a move: `Move.update` / `delete` / `replace`, an insert that replaces on conflict,
  `move.save()` or `move.delete_instance()`, `update_columns(move, …)`, a raw `UPDATE move`,
  `DELETE FROM move` or `REPLACE INTO move`.
Appending a move (`add_row(Move, …)`, an imported match's `Move.insert_many`) is fine.
`EXCEPTIONS` lists what may, each with why (an accepted takeback).
"""

from __future__ import annotations

import ast
import re

from pbem.core.matches.models import Match, Move
from tests.core.matches.test_door_only import _calls_by_owner, _modules, history_writes

APPENDS = {"insert", "insert_many", "create", "bulk_create", "insert_from"}
REPLACING = {"on_conflict", "on_conflict_replace"}
# (module, function): why it may delete a match or rewrite a move.
EXCEPTIONS: dict[tuple[str, str], str] = {
    # A takeback (core/takebacks) removes the match's last move after its change-log row has
    # kept all of it, in the same change, which bumps the version: what was derived from any
    # version stays true of that version (the memos are keyed by it), and the history shows
    # the move and its takeback.
    ("core/matches/play.py", "unmove"): "an accepted takeback, logged whole",
}
_RAW = re.compile(r"\b(?:UPDATE|DELETE\s+FROM|REPLACE\s+INTO|TRUNCATE(?:\s+TABLE)?)\s+"
                  r"[\"`]?(?:match|move)[\"`]?(?=[\s;)]|$)", re.IGNORECASE)


def match_or_move_rewrite(call: ast.Call) -> str | None:
    """What `call` does that deletes a match or rewrites a move, if anything."""
    deleted = history_writes(call, {"Match"}, {"match"})
    if deleted and ("delete" in deleted or deleted.endswith(".delete_instance()")):
        return deleted
    changed = history_writes(call, {"Move"}, {"move"})
    if changed and changed.split(".")[-1] not in APPENDS and not changed.startswith("add_row"):
        return changed
    func = call.func
    if (isinstance(func, ast.Attribute) and func.attr in REPLACING
            and "Move." in ast.unparse(func.value)):
        return f"{ast.unparse(func.value)}.{func.attr}"
    return None


def raw_rewrites(tree: ast.Module) -> list[tuple[int, str]]:
    """SQL text in the module that updates or deletes moves or deletes matches."""
    return [(node.lineno, found.group(0)) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            for found in [_RAW.search(node.value)] if found]


def test_no_code_deletes_a_match_or_rewrites_a_move() -> None:
    found = []
    for module, tree in _modules():
        for owner, call in _calls_by_owner(tree):
            what = match_or_move_rewrite(call)
            if what and (module, owner) not in EXCEPTIONS:
                found.append(f"{module}:{call.lineno} {owner}: {what}")
        found += [f"{module}:{line}: {text!r}" for line, text in raw_rewrites(tree)]
    assert found == []


def test_no_row_a_match_hangs_from_deletes_it() -> None:
    """Deleting another row (a player, a tournament) never takes a match with it."""
    keys = [field for field in Match._meta.sorted_fields if hasattr(field, "rel_model")]
    assert [field.name for field in keys if field.on_delete == "CASCADE"] == []
    assert Move._meta.fields["match"].rel_model is Match


def test_the_check_finds_a_deleted_match_and_a_rewritten_move() -> None:
    """The scan is not blind, and leaves appending alone."""
    source = ("def sneak(match, move):\n"
              "    Match.delete().where(Match.id == 1).execute()\n"
              "    match.delete_instance()\n"
              "    Move.update(text='x').execute()\n"
              "    Move.insert(match=1, ply=1).on_conflict_replace().execute()\n"
              "    move.save()\n"
              "    update_columns(move, ['text'])\n"
              "    add_row(Move, match=1, ply=2)\n"
              "    Move.insert_many([]).execute()\n"
              "    Match.update(version=2).execute()\n"
              "    db.execute_sql('UPDATE \"move\" SET text = %s')\n"
              "    db.execute_sql('DELETE FROM match WHERE id = 1')\n")
    tree = ast.parse(source)
    found = [match_or_move_rewrite(call) for _, call in _calls_by_owner(tree)]
    assert sorted(what for what in found if what) == sorted([
        "Match.delete", "match.delete_instance()", "Move.update",
        "Move.insert(match=1, ply=1).on_conflict_replace", "move.save()",
        "update_columns(move)"])
    assert [text for _, text in raw_rewrites(tree)] == ['UPDATE "move"', "DELETE FROM match"]


def test_prose_about_updates_is_not_sql() -> None:
    tree = ast.parse('"""An UPDATE of the match row, and the move to delete from matches."""')
    assert raw_rewrites(tree) == []
