"""Conditional moves: a seat's stored answers to its opponent's next moves.

A seat waiting for its opponent may store a tree of lines (their move, my answer, their next
move, my next answer, …; see `pbem.games.lines`), each move checked as legal in the position
where it would arise. Only games whose description says `conditional_moves` offer it: a game
with hidden information would leak through the answers or see them go stale, and a
simultaneous decision has nothing to answer.

The tree is one row per seat (`ConditionalTree`), replaced whole under the match's lock, the
same lock the door takes first: a tree change and the opponent's move queue, so the move meets
either the old tree or the new one, never half of each. The door asks `answer_after` after
every move (play.py's `MakeMove.follow_up`): a matching branch gives the answer, which the
door applies as a second change (`ConditionalAnswer`) in the same transaction; a move no
branch expected clears the tree and tells its owner.

Only the owner ever reads a tree: no page, mail, API answer or record shows another seat's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.core.db.connection import locking, write_transaction
from pbem.core.db.prepared import Prepared
from pbem.core.db.retry import retrying
from pbem.core.matches.changes import Locked, lock_match
from pbem.core.matches.models import ConditionalTree, Match
from pbem.errors import ConflictError, MatchNotLiveError
from pbem.games import describe, get_rules
from pbem.games.base import RulesError
from pbem.games.lines import (
    Clause,
    LineError,
    Tree,
    build_tree,
    check_waiting,
    count_moves,
    read_clauses,
    tree_lines,
)
from pbem.i18n import _

MAX_LINE_TEXT = 4000  # all of a request's lines together, in characters


@dataclass(frozen=True)
class StoredLines:
    """A seat's conditional lines as its owner sees them."""

    lines: list[list[str]]
    ply: int  # the match's ply the tree starts from
    version: int  # 0: none stored
    offered: bool  # whether this match's game offers conditional moves at all

    def as_json(self) -> dict[str, Any]:
        return {"lines": self.lines, "ply": self.ply, "version": self.version,
                "offered": self.offered, "moves": sum(len(line) for line in self.lines)}


def offered(game: str) -> bool:
    """Whether the game's description offers conditional moves."""
    return describe(game).conditional_moves


def stored(match: Match, seat: int) -> StoredLines:
    """The seat's lines as they stand (a tree left from an earlier position counts as none)."""
    row = _SEAT_TREE.first(match.id, seat)
    return as_stored(match, None if row is None else (row.ply, row.tree, row.version))


def as_stored(match: Match, found: tuple[int, Tree, int] | None) -> StoredLines:
    """The seat's lines from its tree as read elsewhere (its ply, tree and version; None when
    it has none): `stored` without the query."""
    if found is None or found[0] != match.ply or not match.is_live:
        return StoredLines([], match.ply, 0, offered(match.game))
    ply, tree, version = found
    return StoredLines(tree_lines(tree), ply, version, offered(match.game))


def store(match_id: int, seat: int, lines: Sequence[Sequence[str]], now: datetime,
          expected_ply: int | None = None, clauses: Sequence[Clause] = ()) -> StoredLines:
    """Replace the seat's lines (none: clear them). Every move is checked in the position
    where it would arise; raise LineError (a RulesError) saying which line cannot, or a
    ConflictError when the match moved on from `expected_ply`. `clauses` (a reply's `if …
    then …`, whose words the rules group into moves) are read in that same position."""
    if (sum(len(text) for line in lines for text in line)
            + sum(len(" ".join(c.words)) for c in clauses)) > MAX_LINE_TEXT:
        raise LineError(_("the lines are too long together (at most %(limit)s characters of "
                          "moves)", limit=MAX_LINE_TEXT))
    result: StoredLines = retrying(
        lambda: _store_once(match_id, seat, lines, now, expected_ply, clauses),
        _("The server is very busy with this match right now; your conditional moves were not "
          "changed. Try again in a moment."))
    return result


def _store_once(match_id: int, seat: int, lines: Sequence[Sequence[str]], now: datetime,
                expected_ply: int | None, clauses: Sequence[Clause]) -> StoredLines:
    with write_transaction():
        # The door's own first lock: a tree change and a move on this match queue.
        match = lock_match(match_id)
        if not match.is_live:
            raise MatchNotLiveError(_("Match %(id)s is over: there is nothing to answer.",
                                      id=match.id))
        if not offered(match.game):
            raise LineError(_("%(game)s does not offer conditional moves (its moves are "
                              "hidden or simultaneous decisions)",
                              game=describe(match.game).title))
        if expected_ply is not None and expected_ply > match.ply:
            # Not a match that moved on: a move number it has not reached.
            raise ConflictError(_("These lines were written for move %(expected)s, but the "
                                  "match is at move %(ply)s; nothing was stored. Look at the "
                                  "position again.", expected=expected_ply, ply=match.ply))
        if expected_ply is not None and expected_ply != match.ply:
            raise ConflictError(_("The match moved on (move %(expected)s → %(ply)s) while you "
                                  "prepared these lines; nothing was stored. Look at the "
                                  "position again.", expected=expected_ply, ply=match.ply))
        rules = get_rules(match.game)
        state = rules.load(match.state)
        if clauses:
            check_waiting(rules, state, seat)
            lines = read_clauses(rules, state, clauses)
        tree = build_tree(rules, state, seat, lines) if lines else {}
        row = locking(ConditionalTree.select().where(
            (ConditionalTree.match == match.id) & (ConditionalTree.seat == seat))).first()
        if not tree:
            if row is not None:
                row.delete_instance()
            return StoredLines([], match.ply, 0, True)
        if row is None:
            row = ConditionalTree.create(match=match.id, seat=seat, ply=match.ply, tree=tree,
                                         version=1, updated_at=now)
        else:
            _replace(row, tree, match.ply, now)
        return StoredLines(tree_lines(tree), match.ply, row.version, True)


@dataclass(frozen=True)
class Answer:
    owner: int
    text: str  # the owner's answer, canonical
    answering: str  # the move it answers
    left: int  # moves still stored below it


def answer_after(door: Locked, mover: int, move: str, ply_before: int) -> Answer | None:
    """After `mover` played `move` (the match now one ply on), follow every tree: the branch
    that expected the move gives an answer if its owner is now to move (and a tree whose next
    stored move is its owner's own, after an answer of theirs, gives that one); a move no
    branch expected clears the tree and queues a word for its owner (`door.mail_notes`)."""
    if not offered(door.match.game) or not door.pending.conditional_moves:
        return None  # no tree exists (the door read so): no query on the hot path of moves
    rows = _LOCK_TREES.rows(door.match.id)
    if not rows:
        return None
    if not door.match.is_live:
        for row in rows:
            row.delete_instance()
        return None
    rules, state, ply = door.rules, door.state, door.match.ply
    seats = rules.to_move(state)
    found: Answer | None = None
    for row in rows:
        node: Tree | None
        if row.ply == ply:
            node = row.tree  # already here: the rest of its owner's own answers
        elif row.ply == ply_before and row.seat != mover:
            node = row.tree.get(move)
            if node is None:
                row.delete_instance()
                door.mail_notes.setdefault(row.seat, []).append(
                    f"Your conditional moves did not expect {rules.seat_label(state, mover)}'s"
                    f" {move}, so they were cleared.")
                continue
        else:
            row.delete_instance()  # left from an earlier position (a ruling moved it on)
            continue
        if not node or len(seats) != 1:
            row.delete_instance()
            continue
        if row.seat not in seats:
            if row.ply != ply or row.tree != node:
                _replace(row, node, ply, door.now)  # their move again: wait for it
            continue
        answer, rest = next(iter(node.items()))
        try:
            rules.parse_move(state, row.seat, answer)
        except RulesError:
            # Checked when stored, at this very ply; should a ruling have changed the position
            # without moving the ply on, the tree is dropped rather than the move refused.
            row.delete_instance()
            door.mail_notes.setdefault(row.seat, []).append(
                f"Your conditional answer {answer} is no longer legal, so your conditional "
                "moves were cleared.")
            continue
        if rest:
            _replace(row, rest, ply + 1, door.now)
        else:
            row.delete_instance()
        door.quiet.add(row.seat)  # its answer follows at once: no "your turn" mail for it
        found = Answer(row.seat, answer, move, count_moves(rest))
    return found


def _replace(row: ConditionalTree, tree: Tree, ply: int, now: datetime) -> None:
    """One statement replaces the whole tree: a reader sees the old one or the new one."""
    (ConditionalTree.update(tree=tree, ply=ply, version=ConditionalTree.version + 1,
                            updated_at=now)
     .where(ConditionalTree.id == row.id).execute())
    row.tree, row.ply, row.version = tree, ply, row.version + 1


# A seat's tree (its play page) and the match's trees under the lock (after every move of a
# game that offers them): compiled once, not on each page and move.
_SEAT_TREE = Prepared(lambda match_id, seat: ConditionalTree.select().where(
    (ConditionalTree.match == match_id) & (ConditionalTree.seat == seat)).limit(1))
_LOCK_TREES = Prepared(lambda match_id: locking(ConditionalTree.select().where(
    ConditionalTree.match == match_id).order_by(ConditionalTree.seat)))
