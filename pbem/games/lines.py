"""Hypothetical lines of play: conditional-move trees and the analysis board.

Pure, like the rules it replays: a line is a list of notations played one after the other from
a position, each by the single seat the rules say is to move then. Nothing here touches the
database; `pbem/core/matches/conditional.py` stores trees and plays their answers.

A conditional tree is nested dicts of canonical notations, `{"their move": {"my answer":
{"their next move": {…}}}}`: at a node where the opponent is to move, each key is a move they
might make; where the owner is to move, the one key is the owner's answer (one answer per
position, or it would not be an answer). Every move is checked as legal in the position where
it would arise, so a stored answer can always be played when its branch is reached.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.games.base import GameRules, RulesError, State
from pbem.i18n import _

Tree = dict[str, Any]

MAX_LINES = 40
MAX_PLIES = 40  # per line: a forced sequence long enough for any endgame worth storing


class LineError(RulesError):
    """A line that cannot arise or cannot be stored; the message says which and why."""


@dataclass(frozen=True)
class Ply:
    seat: int
    text: str  # canonical notation
    state: State  # the position after it


def replay(rules: GameRules, state: State, texts: Sequence[str], first: int = 1) -> list[Ply]:
    """Play `texts` from `state`, each by the seat to move; raise LineError naming the first
    move that is not legal where it would be played (with the rules' reason). Moves are
    counted from `first` in the message."""
    plies: list[Ply] = []
    for index, text in enumerate(texts, start=first):
        seats = rules.to_move(state)
        if not seats:
            raise LineError(_("move %(index)s (%(text)s): the game is already over there",
                              index=index, text=text))
        if len(seats) > 1:
            raise LineError(_("move %(index)s (%(text)s): the position there is a simultaneous "
                              "decision, which conditional moves cannot answer", index=index,
                              text=text))
        (seat,) = seats
        try:
            move = rules.parse_move(state, seat, text)
        except RulesError as error:
            label = rules.seat_label(state, seat)
            raise LineError(_("move %(index)s (%(text)s, %(label)s): %(error)s", index=index,
                              text=text, label=label, error=error)) from None
        canonical = rules.format_move(state, move)
        state = rules.apply_move(state, seat, move).state
        plies.append(Ply(seat, canonical, state))
    return plies


def build_tree(rules: GameRules, state: State, owner: int,
               lines: Sequence[Sequence[str]]) -> Tree:
    """The tree of `owner`'s conditional lines from `state`, where the opponent is to move.
    Each line is their move, the owner's answer, and so on; raise LineError saying which line
    cannot arise or conflicts with another."""
    if len(lines) > MAX_LINES:
        raise LineError(_("at most %(max)s lines can be stored, not %(count)s", max=MAX_LINES,
                          count=len(lines)))
    check_waiting(rules, state, owner)
    tree: Tree = {}
    for number, line in enumerate(lines, start=1):
        if not line:
            raise LineError(_("line %(number)s is empty", number=number))
        if len(line) > MAX_PLIES:
            raise LineError(_("line %(number)s has %(count)s moves; at most %(max)s",
                              number=number, count=len(line), max=MAX_PLIES))
        try:
            plies = replay(rules, state, line)
        except LineError as error:
            raise LineError(_("line %(number)s, %(error)s", number=number,
                              error=error)) from None
        if plies[-1].seat != owner:
            raise LineError(_("line %(number)s ends with your opponent's move %(move)s: add "
                              "your answer to it", number=number, move=plies[-1].text))
        node = tree
        for ply in plies:
            if ply.seat == owner and node and ply.text not in node:
                other = next(iter(node))
                raise LineError(_("line %(number)s answers with %(move)s where another line "
                                  "answers with %(other)s: one answer per position",
                                  number=number, move=ply.text, other=other))
            node = node.setdefault(ply.text, {})
    return tree


def check_waiting(rules: GameRules, state: State, owner: int) -> None:
    """Raise LineError unless `owner` waits for its opponent's move in `state`."""
    seats = rules.to_move(state)
    if not seats:
        raise LineError(_("the game is over: there is nothing left to answer"))
    if owner in seats:
        raise LineError(_("it is your turn: make your move first; conditional moves answer "
                          "the moves your opponent makes after it"))


def tree_lines(tree: Mapping[str, Any]) -> list[list[str]]:
    """Every line of a tree, root to leaf, in a stable order."""
    found: list[list[str]] = []
    for move, below in tree.items():
        tails = tree_lines(below)
        found.extend([[move, *tail] for tail in tails] if tails else [[move]])
    return found


def count_moves(tree: Mapping[str, Any]) -> int:
    return sum(1 + count_moves(below) for below in tree.values())


# -- the reply grammar -----------------------------------------------------------------------

# `if c2-c3 then d4-d5, if b1-b2 then a3-a2 e5-e6`: each clause is "if <their move> then <my
# answer>", optionally followed by more moves alternating (their move, my answer, …).
# Forgiving: case, "when"/"on" for "if", "then"/"play"/"->"/"=>"/":" between, commas,
# semicolons or new lines between clauses, "and"/commas inside a clause.
_CLAUSE_START = re.compile(r"(?i)(?:^|(?<=[\s,;]))(?:if|when|on)\s+")
_THEN = re.compile(r"(?i)\s*(?:\bthen\b|\bplay\b|->|=>|:)\s*")
_SEPARATORS = re.compile(r"(?i)[\s,]+|\band\b")
_LINE_START = re.compile(r"(?i)^\s*(?:if|when|on)\s+\S")


def is_conditional_text(line: str) -> bool:
    """Whether a line of a reply is conditional moves (it starts "if …"/"when …")."""
    return bool(_LINE_START.match(line)) and bool(_THEN.search(line))


@dataclass(frozen=True)
class Clause:
    """One `if … then …` of a reply: the opponent's move and the words after `then` (the
    answer and any further moves, grouped into moves by `read_clauses` with the rules)."""

    condition: str
    words: tuple[str, ...]


def parse_conditional_text(text: str) -> list[Clause]:
    """The clauses a reply's conditional text names (not yet checked against the rules);
    raise LineError saying what part cannot be read."""
    before, *clauses = (c.strip(" \t,;.") for c in _CLAUSE_START.split(text.replace(";", ",")))
    if not clauses:
        raise LineError(_("no 'if <their move> then <your answer>' found"))
    if before:
        raise LineError(_("'%(before)s' comes before the first 'if': write 'if <their move> "
                          "then <your answer>'", before=before))
    found: list[Clause] = []
    for clause in clauses:
        if not clause:
            continue
        parts = _THEN.split(clause, maxsplit=1)
        if len(parts) != 2:
            raise LineError(_("'if %(clause)s': write 'if <their move> then <your answer>'",
                              clause=clause))
        condition, answer = (_words(part) for part in parts)
        if not condition:
            raise LineError(_("'if %(clause)s': name your opponent's move after 'if'",
                              clause=clause))
        if not answer:
            raise LineError(_("'if %(clause)s': say your answer after 'then'", clause=clause))
        found.append(Clause(" ".join(condition), tuple(answer)))
    if not found:
        raise LineError(_("no 'if <their move> then <your answer>' found"))
    return found


MAX_WORDS_PER_MOVE = 6


def read_clauses(rules: GameRules, state: State, clauses: Sequence[Clause]) -> list[list[str]]:
    """Group each clause's words into moves: at each step the longest run of words the rules
    read as a legal move there (a move may be several words, like EXIMO's `d6xd8 drop c1
    d1`). Raise LineError naming the clause and the words no move starts with."""
    lines: list[list[str]] = []
    for number, clause in enumerate(clauses, start=1):
        try:
            plies = replay(rules, state, [clause.condition])
        except LineError as error:
            raise LineError(_("'if %(condition)s' (clause %(number)s): %(error)s",
                              condition=clause.condition, number=number,
                              error=error)) from None
        moves, position, words = [clause.condition], plies[-1].state, list(clause.words)
        while words:
            for size in range(min(MAX_WORDS_PER_MOVE, len(words)), 0, -1):
                try:
                    ply = replay(rules, position, [" ".join(words[:size])],
                                 first=len(moves) + 1)[0]
                except LineError as error:
                    if size == 1:
                        raise LineError(_("'if %(condition)s then %(answer)s' (clause "
                                          "%(number)s), %(error)s",
                                          condition=clause.condition,
                                          answer=" ".join(clause.words), number=number,
                                          error=error)) from None
                    continue
                moves.append(" ".join(words[:size]))
                position, words = ply.state, words[size:]
                break
        lines.append(moves)
    return lines


def _words(text: str) -> list[str]:
    return [word for word in _SEPARATORS.split(text.strip(" .")) if word and word.strip()]


# -- the analysis board ----------------------------------------------------------------------

def analyse(rules: GameRules, state: State, viewer: int,
            texts: Sequence[str]) -> dict[str, Any]:
    """A hypothetical line from `state` as `viewer` would see it: each position's view, the
    seat to move and its legal moves at the end, and the outcome if the line ends the game.
    Raise LineError naming the first move that is not legal."""
    plies = replay(rules, state, texts)
    positions: list[dict[str, Any]] = [{"ply": 0, "move": None, "seat": None,
                  "view": rules.view(state, viewer)}]
    for index, ply in enumerate(plies, start=1):
        positions.append({"ply": index, "move": ply.text, "seat": ply.seat,
                          "view": rules.view(ply.state, viewer)})
    last = plies[-1].state if plies else state
    seats = sorted(rules.to_move(last))
    legal = ([rules.format_move(last, m) for m in rules.legal_moves(last, seats[0])]
             if len(seats) == 1 else [])
    outcome = rules.outcome(last)
    return {"moves": [ply.text for ply in plies], "positions": positions,
            "to_move": seats,
            "to_move_label": rules.seat_label(last, seats[0]) if len(seats) == 1 else None,
            "legal_moves": legal, "board_text": rules.render_text(positions[-1]["view"]),
            "outcome": None if outcome is None else {
                "winners": sorted(outcome.winners), "scores": list(outcome.scores),
                "reason": outcome.reason},
            "final_state": last}
