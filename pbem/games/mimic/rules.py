"""Mimic, by Andrew Bressette: race a checker to the far row while your opponent copies you.

Rules (rules/mimic.txt with the rulings in rules/RULINGS.md):

- A 10x10 board, files a-j, ranks 1-10. Blue (seat 0) starts with 8 checkers on b2-i2 and
  moves north towards its goal row 10; Red (seat 1) starts on b9-i9 and moves south towards
  its goal row 1. Blue moves first, then the players alternate.
- A turn is an *original move*: the top checker of one of your squares steps like a chess king
  to an adjacent **empty** square. It may not leave the board and may not stack.
- Orthogonal visibility is counted from the moving checker **before** it moves: each of the
  four arrows (N, E, S, W) stops at the first occupied square, and counts when the top checker
  of that square is the opponent's. Two or more visible opponents: the checker is *frozen* and
  cannot make an original move. Exactly one: that opponent checker *mimics* the move with the
  mirrored step (Blue e4-e5 makes Red e7-e6; Blue e4-f5 makes Red e7-d6). It mimics even when
  it is itself frozen, lands on top of whatever stack is at its destination (stacks have no
  height limit), and is removed from play if the step takes it off the board. None: no mimic.
- Only top checkers move, by original move or by mimic; stacks never move as a whole.
- An original move onto the mover's goal row wins at once, and its mimic is not made.
- Option `mimic_goal_wins` (default on): a checker mimicked onto its owner's goal row wins for
  its owner. Off: only original moves win, and a checker mimicked there simply stays.
- No immediate repetition: a turn is illegal if the board after it (all stacks; the side to
  move is then the same too) equals the board before the opponent's last turn.
- A player with no legal move on their turn loses. The module adds no move cap: endless games
  are for draw offers, resignation and the admin (RULINGS.md, "All games").

Notation: the original move from-to, `e2-e3`; the mimic is automatic and reported as an event.
`parse_move` also takes `E2E3`, `e2 e3`, `e2 - e3`, en-dashes, and a lone destination (`e3`)
when exactly one legal move ends there.

Position text, one line of five space-separated fields:

    <board> <to move> <before> <goal rule> <result>

- board: ranks 10 down to 1 separated by `/`, each rank read from file a to j; a digit count
  stands for that many empty squares, `b` / `r` for a single Blue / Red checker, and a stack of
  two or more checkers is written in parentheses from bottom to top, e.g. `(brb)`.
- to move: `b` or `r`.
- before: the board (same form) before the opponent's last turn, used by the no-repetition
  rule, or `-` when there is none (the first turn).
- goal rule: `goal:any` (mimicked checkers win on their goal row) or `goal:original`.
- result: `-` while the game goes on, else `won:<b|r>:<goal|mimic|no-move>`: the winner and
  how (an original move reached the goal row, a mimic did, or the loser had no legal move).

The start: `10/1rrrrrrrr1/10/10/10/10/10/10/1bbbbbbbb1/10 b - goal:any -`.

Legal moves are listed by origin square, then destination, each in the order a1, b1 ... j1,
a2 ... j10; the autoplayed move for an absent player (`default_move`) is the first of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter, not_
from typing import Any

from pbem.games.base import (
    AmbiguousMoveError,
    Event,
    IllegalMoveError,
    InvalidMoveError,
    Option,
    Outcome,
    RulesBase,
    RulesError,
    Seat,
    Transition,
    in_english,
)
from pbem.games.notation import FILES, KING_STEPS, ORTHOGONAL_STEPS, normalize
from pbem.i18n import N_, _

SIZE = 10
SQUARES = SIZE * SIZE
PIECES = ("b", "r")  # the letter of each seat's checkers
GOAL_RANK = (SIZE - 1, 0)  # 0-based goal rank of each seat
COLOURS = ("#2a5db0", "#c0392b")
START_RANK = (1, SIZE - 2)
START_FILES = range(1, SIZE - 1)

RESULT_GOAL = "goal"
RESULT_MIMIC = "mimic"
RESULT_NO_MOVE = "no-move"
RESULTS = (RESULT_GOAL, RESULT_MIMIC, RESULT_NO_MOVE)

Board = tuple[str, ...]  # SQUARES stacks indexed rank * SIZE + file, each bottom to top
Move = tuple[int, int]  # (from index, to index) of the original move


class MimicRules(RulesBase):
    slug = "mimic"
    board_picture = True
    title = "Mimic"
    options = (
        Option("mimic_goal_wins", True,
               N_("a checker mimicked onto its owner's goal row wins for its owner "
                  "(off: only an original move onto the goal row wins)"),
               label_text=N_("mimic goal wins")),
    )
    seat_names = (N_("Blue"), N_("Red"))

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> MimicState:
        self.check_player_count(players)
        resolved = self.resolve_options(options)
        board = [""] * SQUARES
        for seat, rank in enumerate(START_RANK):
            for file in START_FILES:
                board[rank * SIZE + file] = PIECES[seat]
        return MimicState(tuple(board), 0, None, resolved["mimic_goal_wins"], None, None)

    def to_move(self, state: MimicState) -> frozenset[Seat]:
        return frozenset() if state.result is not None else frozenset({state.turn})

    def legal_moves(self, state: MimicState, seat: Seat) -> Sequence[Move]:
        if state.result is not None or seat != state.turn:
            return []
        return list(_turn_moves(state))  # a copy: the caller may change it

    def parse_move(self, state: MimicState, seat: Seat, text: str) -> Move:
        squares = _parse_text(text)
        if not _on_board(squares[0]):
            raise InvalidMoveError(
                _("%(text)r names %(square)s, which is not on the board (a1 to j10)",
                  text=text, square=_square_text(squares[0])))
        self._check_turn(state, seat)
        if len(squares) == 1:
            return self._move_to(state, seat, squares[0], text)
        origin, target = squares
        self._check_original_move(state, seat, origin, target)
        return (_index(origin), _index(target))

    def format_move(self, state: MimicState, move: Move) -> str:
        try:
            return MOVE_TEXTS[move]  # every step to a neighbour, written once
        except (KeyError, TypeError):
            return f"{_name(move[0])}-{_name(move[1])}"

    def next_state(self, state: MimicState, seat: Seat, move: Move) -> MimicState:
        return _after(state, seat, move,
                      _play(state.board, seat, move[0], move[1], state.mimic_goal_wins))

    def apply_move(self, state: MimicState, seat: Seat, move: Move) -> Transition:
        self._check_turn(state, seat)
        turn = _play(state.board, seat, move[0], move[1], state.mimic_goal_wins)
        events = [Event("move", {"seat": seat, "from": _name(move[0]), "to": _name(move[1])})]
        if turn.mimic_from is not None:
            events.append(Event("mimic", {
                "seat": 1 - seat,
                "from": _name(turn.mimic_from),
                "to": None if turn.mimic_to is None else _name(turn.mimic_to),
                "onto": [PIECES.index(p) for p in turn.mimic_onto],
            }))
        new = _after(state, seat, move, turn)
        if new.result is not None:
            events.append(Event("won", {"seat": new.result[0], "reason": new.result[1]}))
        return Transition(new, tuple(events))

    def outcome(self, state: MimicState) -> Outcome | None:
        if state.result is None:
            return None
        winner, how = state.result
        scores = tuple(1.0 if seat == winner else 0.0 for seat in (0, 1))
        with in_english():  # stored in the match's result
            reason = self._result_reason(winner, how)
        return Outcome(frozenset({winner}), scores, reason)

    def view(self, state: MimicState, seat: Seat | None) -> dict[str, Any]:
        # Mimic has no hidden information: every seat and spectator sees the same board.
        over = self.outcome(state)
        last = state.last
        frozen = _frozen_squares(state.board)
        checkers = "".join(state.board)
        return {
            "files": SIZE,
            "ranks": SIZE,
            "seat": seat,
            "seats": [
                {"name": self.seat_label(state, s), "letter": PIECES[s].upper(),
                 "colour": COLOURS[s],
                 "goal_rank": GOAL_RANK[s] + 1,
                 "checkers": checkers.count(PIECES[s])}
                for s in (0, 1)
            ],
            "stacks": [
                {"square": _name(i), "stack": [PIECES.index(p) for p in stack],
                 "frozen": i in frozen}
                for i, stack in enumerate(state.board) if stack
            ],
            "to_move": None if over else state.turn,
            "last_move": None if last is None else {
                "seat": last.seat,
                "from": _name(last.origin),
                "to": _name(last.target),
                "mimic_from": None if last.mimic_from is None else _name(last.mimic_from),
                "mimic_to": None if last.mimic_to is None else _name(last.mimic_to),
            },
            "highlight": [] if last is None else [_name(last.origin), _name(last.target)],
            "marked": [] if last is None else [
                _name(i) for i in (last.mimic_from, last.mimic_to) if i is not None],
            "outcome": None if over is None else {
                "winners": sorted(over.winners), "reason": self._shown_reason(state)},
            "mimic_goal_wins": state.mimic_goal_wins,
            "position": self.position(state),
        }

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        seats = view["seats"]
        cells: dict[str, str] = {}
        tall = []
        for entry in view["stacks"]:
            letters = "".join(seats[s]["letter"] for s in entry["stack"])
            top = letters[-1]
            cells[entry["square"]] = top + (str(len(letters)) if len(letters) > 1 else " ")
            if len(letters) > 1:
                tall.append(f"{entry['square']} {letters}")
        files = view["files"]
        # Red (seat 1) sees the board turned, as on its web page: row 1 on top, file a right.
        flip = view.get("seat") == 1
        file_order = range(files - 1, -1, -1) if flip else range(files)
        rank_order = range(1, view["ranks"] + 1) if flip else range(view["ranks"], 0, -1)
        footer = "    " + "  ".join(FILES[f] for f in file_order)
        lines = [footer]
        for rank in rank_order:
            row = " ".join(cells.get(f"{FILES[f]}{rank}", ". ") for f in file_order)
            lines.append(f"{rank:>2}  {row} {rank:>2}")
        lines.append(footer)
        blue, red = seats
        lines.append(_("%(b)s = %(blue)s (to row %(blue_row)s), %(r)s = %(red)s (to row "
                       "%(red_row)s); %(r)s3 = a stack of 3 with %(r)s on top.",
                       b=blue["letter"], blue=blue["name"], blue_row=blue["goal_rank"],
                       r=red["letter"], red=red["name"], red_row=red["goal_rank"]))
        if tall:
            lines.append(_("Stacks, bottom to top: %(stacks)s", stacks=", ".join(tall)))
        last = view["last_move"]
        if last is not None:
            lines.append(_("Last move: %(move)s", move=_describe_last(seats, last)))
        if view["outcome"] is not None:
            lines.append(_("Game over: %(reason)s.", reason=view["outcome"]["reason"]))
        elif over:
            lines.append(_("Match over."))
        else:
            lines.append(_("%(seat)s to move.", seat=seats[view["to_move"]]["name"]))
        return "\n".join(lines)

    def describe_event(self, event: Event) -> str:
        data = event.data
        who = _(self.seat_names[data["seat"]])
        if event.kind == "move":
            return _("%(who)s %(origin)s-%(target)s", who=who, origin=data["from"],
                     target=data["to"])
        if event.kind == "mimic":
            if data["to"] is None:
                return _("%(who)s %(origin)s mimicked off the board and is removed from play",
                         who=who, origin=data["from"])
            if not data["onto"]:
                return _("%(who)s %(origin)s-%(target)s mimicked", who=who,
                         origin=data["from"], target=data["to"])
            below = ", ".join(_(self.seat_names[s]) for s in data["onto"])
            if len(data["onto"]) > 1:
                return _("%(who)s %(origin)s-%(target)s mimicked, stacked on %(below)s "
                         "(bottom to top)", who=who, origin=data["from"], target=data["to"],
                         below=below)
            return _("%(who)s %(origin)s-%(target)s mimicked, stacked on %(below)s", who=who,
                     origin=data["from"], target=data["to"], below=below)
        if event.kind == "won":
            return self._result_reason(data["seat"], data["reason"])
        return super().describe_event(event)

    def dump(self, state: MimicState) -> dict[str, Any]:
        last = state.last
        return {
            "position": self.position(state),
            "last": None if last is None else [
                last.seat, last.origin, last.target, last.mimic_from, last.mimic_to],
        }

    def load(self, data: Mapping[str, Any]) -> MimicState:
        state = self.from_position(data["position"])
        last = data["last"]
        if last is None:
            return state
        return MimicState(state.board, state.turn, state.before, state.mimic_goal_wins,
                          state.result, LastTurn(*last))

    def position(self, state: MimicState) -> str:
        before = "-" if state.before is None else _board_text(state.before)
        rule = "goal:any" if state.mimic_goal_wins else "goal:original"
        result = "-"
        if state.result is not None:
            result = f"won:{PIECES[state.result[0]]}:{state.result[1]}"
        return f"{_board_text(state.board)} {PIECES[state.turn]} {before} {rule} {result}"

    def from_position(self, text: str) -> MimicState:
        """Build a state from its position text; raise RulesError saying what is wrong.

        A position left open (`-`) whose side to move has no legal move is read as the loss
        the rules make of it, so hand-built positions need not spell that out.
        """
        fields = text.split()
        if len(fields) != 5:
            raise RulesError(f"a Mimic position has 5 fields, not {len(fields)}: {text!r}")
        board_text, side, before_text, rule, result_text = fields
        if side not in PIECES:
            raise RulesError(f"the side to move must be b or r, not {side!r}")
        if rule not in ("goal:any", "goal:original"):
            raise RulesError(f"the goal rule must be goal:any or goal:original, not {rule!r}")
        board = _parse_board(board_text)
        before = None if before_text == "-" else _parse_board(before_text)
        turn = PIECES.index(side)
        result = _parse_result(result_text)
        if result is None and not _has_legal_move(board, turn, before):
            result = (1 - turn, RESULT_NO_MOVE)
        return MimicState(board, turn, before, rule == "goal:any", result, None)

    # -- checks behind parse_move, each naming the rule that refuses the move ------------------

    def _check_turn(self, state: MimicState, seat: Seat) -> None:
        if state.result is not None:
            raise IllegalMoveError(_("the game is over: no more moves can be made"))
        if seat != state.turn:
            raise IllegalMoveError(_("it is %(turn)s's turn, not %(seat)s's",
                                     turn=self.seat_label(state, state.turn),
                                     seat=self.seat_label(state, seat)))

    def _check_original_move(self, state: MimicState, seat: Seat,
                             origin: tuple[int, int], target: tuple[int, int]) -> None:
        board = state.board
        here = _square_text(origin)
        there = _square_text(target)
        stack = board[_index(origin)]
        mine = PIECES[seat]
        other = self.seat_label(state, 1 - seat)
        if not stack:
            raise IllegalMoveError(_("there is no checker on %(square)s", square=here))
        if stack[-1] != mine:
            if mine in stack:
                raise IllegalMoveError(
                    _("your checker on %(square)s is buried under a %(other)s checker: only "
                      "the top checker of a stack can move", square=here, other=other))
            raise IllegalMoveError(_("the checker on %(square)s is %(other)s's, not yours",
                                     square=here, other=other))
        step = (target[0] - origin[0], target[1] - origin[1])
        if step not in KING_STEPS:
            raise IllegalMoveError(
                _("%(origin)s-%(target)s is not a move: a checker steps to an adjacent "
                  "square, like a chess king", origin=here, target=there))
        if not _on_board(target):
            raise IllegalMoveError(
                _("%(origin)s-%(target)s leaves the board: an original move cannot go off the "
                  "edge (only a mimicked checker can fall off)", origin=here, target=there))
        if board[_index(target)]:
            raise IllegalMoveError(
                _("%(target)s is occupied: an original move goes to an empty square (only a "
                  "mimic may stack)", target=there))
        visible = _visible(board, _index(origin), PIECES[1 - seat])
        if len(visible) >= 2:
            names = ", ".join(_name(i) for i in visible)
            count = (_("two"), _("three"), _("four"))[len(visible) - 2]
            raise IllegalMoveError(
                _("%(square)s cannot move: it sees %(count)s opposing checkers (%(names)s), "
                  "so it is frozen", square=here, count=count, names=names))
        if state.before is not None:
            after = _play(board, seat, _index(origin), _index(target), True).board
            if after == state.before:
                raise IllegalMoveError(
                    _("%(origin)s-%(target)s would repeat the position before %(other)s's "
                      "last turn: immediate repetition is not allowed", origin=here,
                      target=there, other=other))

    def _move_to(self, state: MimicState, seat: Seat, target: tuple[int, int],
                 text: str) -> Move:
        """A lone destination square names the one legal move ending there."""
        there = _square_text(target)
        found = [m for m in _legal_moves(state.board, seat, state.before)
                 if m[1] == _index(target)]
        if not found:
            raise IllegalMoveError(_("none of your checkers can move to %(square)s now",
                                     square=there))
        if len(found) > 1:
            options = ", ".join(self.format_move(state, m) for m in found)
            raise AmbiguousMoveError(_("%(text)r could mean %(options)s: write the move "
                                       "from-to", text=text.strip(), options=options))
        return found[0]

    def _shown_reason(self, state: MimicState) -> str | None:
        """The result in the reader's language (the outcome's own reason is English)."""
        return None if state.result is None else self._result_reason(*state.result)

    def _result_reason(self, winner: Seat, how: str) -> str:
        name = _(self.seat_names[winner])
        if how == RESULT_GOAL:
            return _("%(name)s reached row %(row)s with an original move and wins", name=name,
                     row=GOAL_RANK[winner] + 1)
        if how == RESULT_MIMIC:
            return _("%(name)s was mimicked onto row %(row)s, its goal row, and wins",
                     name=name, row=GOAL_RANK[winner] + 1)
        return _("%(loser)s has no legal move and loses; %(name)s wins",
                 loser=_(self.seat_names[1 - winner]), name=name)


@dataclass(frozen=True)
class LastTurn:
    """The squares of the last turn, for highlighting: the original move and its mimic."""

    seat: Seat
    origin: int
    target: int
    mimic_from: int | None
    mimic_to: int | None  # None when the mimicked checker fell off the board


@dataclass(frozen=True)
class MimicState:
    board: Board
    turn: Seat
    before: Board | None  # the board before the opponent's last turn (no-repetition rule)
    mimic_goal_wins: bool
    result: tuple[Seat, str] | None  # (winner, one of RESULTS)
    last: LastTurn | None
    # The legal moves of the seat to move, found once (`_turn_moves`): `apply_move` asks
    # whether there are any, then the search asks for them. Not part of the state's value.
    moves: tuple[Move, ...] | None = field(default=None, init=False, repr=False, compare=False)


def _turn_moves(state: MimicState) -> tuple[Move, ...]:
    moves = state.moves
    if moves is None:
        moves = tuple(_legal_moves(state.board, state.turn, state.before))
        # Frozen, but this field only caches a pure function of the others.
        object.__setattr__(state, "moves", moves)
    return moves


def _after(state: MimicState, seat: Seat, move: Move, turn: _Turn) -> MimicState:
    """The state after `seat`'s legal `move`, played out as `turn`; a seat left without a
    legal move has lost."""
    last = LastTurn(seat, move[0], move[1], turn.mimic_from, turn.mimic_to)
    new = MimicState(turn.board, 1 - seat, state.board, state.mimic_goal_wins, turn.result,
                     last)
    if turn.result is None and not _turn_moves(new):
        new = MimicState(turn.board, 1 - seat, state.board, state.mimic_goal_wins,
                         (seat, RESULT_NO_MOVE), last)
    return new


@dataclass(frozen=True)
class _Turn:
    board: Board
    mimic_from: int | None
    mimic_to: int | None
    mimic_onto: str  # what the mimicked checker landed on, bottom to top
    result: tuple[Seat, str] | None


# -- board geometry, precomputed: a server may replay a whole match on every request ----------

def _build_neighbours() -> tuple[tuple[int, ...], ...]:
    table = []
    for i in range(SQUARES):
        file, rank = i % SIZE, i // SIZE
        table.append(tuple(sorted(
            (rank + dr) * SIZE + file + df for df, dr in KING_STEPS
            if _on_board((file + df, rank + dr)))))
    return tuple(table)


def _build_rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    table = []
    for i in range(SQUARES):
        file, rank = i % SIZE, i // SIZE
        rays = []
        for df, dr in ORTHOGONAL_STEPS:
            ray = []
            f, r = file + df, rank + dr
            while _on_board((f, r)):
                ray.append(r * SIZE + f)
                f, r = f + df, r + dr
            rays.append(tuple(ray))
        table.append(tuple(rays))
    return tuple(table)


def _on_board(square: tuple[int, int]) -> bool:
    return 0 <= square[0] < SIZE and 0 <= square[1] < SIZE


NEIGHBOURS = _build_neighbours()
RAYS = _build_rays()
SQUARE_RANGE = range(SQUARES)
RANK_OF = tuple(i // SIZE for i in SQUARE_RANGE)
FILE_OF = tuple(i % SIZE for i in SQUARE_RANGE)
# For each square, the moves to its neighbours (built once) and a getter of their stacks.
STEPS = tuple(tuple((i, j) for j in NEIGHBOURS[i]) for i in SQUARE_RANGE)
NEIGHBOURS_OF = tuple(itemgetter(*NEIGHBOURS[i]) for i in SQUARE_RANGE)
_MOVE_TEXT = re.compile(r"([a-z])([0-9]{1,2})(?:\s*(?:-|to)?\s*([a-z])([0-9]{1,2}))?")
_RANK_TOKEN = re.compile(r"[0-9]{1,2}|[br]|\([br]+\)")
_RANK = re.compile(r"(?:[0-9]{1,2}|[br]|\([br]+\))*")


# -- the rules proper ---------------------------------------------------------------------------

def _visible(board: Board, square: int, opponent: str) -> list[int]:
    """Squares whose top checker is the opponent's and is orthogonally visible from `square`."""
    seen = []
    for ray in RAYS[square]:
        for j in ray:
            stack = board[j]
            if stack:
                if stack[-1] == opponent:
                    seen.append(j)
                break
    return seen


def _legal_moves(board: Board, seat: Seat, before: Board | None) -> list[Move]:
    mine = PIECES[seat]
    moves: list[Move] = []
    for i in _movable(board, seat):
        if before is not None and before[i] == board[i][:-1]:
            # A move from i can only repeat `before` if i held there what it will hold after
            # the move (no mimic ever lands on the square just left), and j what it will
            # hold: the seat's checker at the bottom (perhaps a mimic on top of it). Only
            # then is the move played out to compare the whole board.
            moves.extend([(i, j) for j in NEIGHBOURS[i] if not board[j] and (
                before[j][:1] != mine or _play(board, seat, i, j, True).board != before)])
        else:  # the moves from i to its empty neighbours, picked without a Python loop
            moves.extend(compress(STEPS[i], map(not_, NEIGHBOURS_OF[i](board))))
    return moves


def _has_legal_move(board: Board, seat: Seat, before: Board | None) -> bool:
    # Whether a side is stuck: the first legal move found settles it (as in _legal_moves).
    mine = PIECES[seat]
    for i in _movable(board, seat):
        if before is None or before[i] != board[i][:-1]:
            if any(not board[j] for j in NEIGHBOURS[i]):
                return True
            continue
        for j in NEIGHBOURS[i]:
            if not board[j] and (before[j][:1] != mine
                                 or _play(board, seat, i, j, True).board != before):
                return True
    return False


def _movable(board: Board, seat: Seat) -> list[int]:
    """The squares, in order, whose top checker is the seat's and is not frozen.

    Visibility is worked out in one pass over the occupied squares, in order, rather than by
    walking four rays from each checker: the checker seen looking west from a square is the
    previous occupied square if it is on the same rank, looking south the last one seen on
    the same file (and the other way round for east and north)."""
    mine, theirs = PIECES[seat], PIECES[1 - seat]
    seen = [0] * SQUARES  # opponents visible from each of the seat's checkers
    owned = []
    last_in_file = [0] * SIZE
    top_in_file = [""] * SIZE
    west, west_top, west_rank = 0, "", -1
    for i in compress(SQUARE_RANGE, board):
        top = board[i][-1]
        rank, file = RANK_OF[i], FILE_OF[i]
        if top == mine:
            owned.append(i)
            if west_rank == rank and west_top == theirs:
                seen[i] += 1
            if top_in_file[file] == theirs:
                seen[i] += 1
        else:
            if west_rank == rank and west_top == mine:
                seen[west] += 1
            if top_in_file[file] == mine:
                seen[last_in_file[file]] += 1
        last_in_file[file], top_in_file[file] = i, top
        west, west_top, west_rank = i, top, rank
    return [i for i in owned if seen[i] < 2]


def _play(board: Board, seat: Seat, origin: int, target: int, mimic_goal_wins: bool) -> _Turn:
    """Make a legal original move and its mimic; report what the mimic did and who won."""
    mine, theirs = PIECES[seat], PIECES[1 - seat]
    visible = _visible(board, origin, theirs)
    new = list(board)
    new[origin] = board[origin][:-1]
    new[target] = mine
    if target // SIZE == GOAL_RANK[seat]:
        # An original move onto the goal row wins at once; its mimic is not made.
        return _Turn(tuple(new), None, None, "", (seat, RESULT_GOAL))
    if len(visible) != 1:
        return _Turn(tuple(new), None, None, "", None)
    source = visible[0]
    # The mimic mirrors the step: Blue's north (and north-east) is Red's north (south-west).
    df = target % SIZE - origin % SIZE
    dr = target // SIZE - origin // SIZE
    file, rank = source % SIZE - df, source // SIZE - dr
    new[source] = new[source][:-1]
    if not _on_board((file, rank)):
        return _Turn(tuple(new), source, None, "", None)
    landing = rank * SIZE + file
    onto = new[landing]
    new[landing] = onto + theirs
    result = None
    if mimic_goal_wins and rank == GOAL_RANK[1 - seat]:
        result = (1 - seat, RESULT_MIMIC)
    return _Turn(tuple(new), source, landing, onto, result)


def _frozen_squares(board: Board) -> set[int]:
    frozen = set()
    for i, stack in enumerate(board):
        if stack:
            opponent = PIECES[1 - PIECES.index(stack[-1])]
            if len(_visible(board, i, opponent)) >= 2:
                frozen.add(i)
    return frozen


# -- notation and position text -----------------------------------------------------------------

def _index(square: tuple[int, int]) -> int:
    return square[1] * SIZE + square[0]


def _name(index: int) -> str:
    return f"{FILES[index % SIZE]}{index // SIZE + 1}"


# The text of every step to a neighbour, written once (format_move).
MOVE_TEXTS = {move: f"{_name(move[0])}-{_name(move[1])}" for steps in STEPS for move in steps}


def _square_text(square: tuple[int, int]) -> str:
    return f"{FILES[square[0]]}{square[1] + 1}"


def _parse_text(text: str) -> list[tuple[int, int]]:
    """The one or two squares of a move text as (file, rank) pairs, possibly off the board."""
    found = _MOVE_TEXT.fullmatch(normalize(text))
    if found is None:
        raise InvalidMoveError(
            _("%(text)r is not a Mimic move: write the checker's square and where it goes, "
              "like e2-e3", text=text))
    letters_digits = [g for g in found.groups() if g is not None]
    squares = []
    for letter, digits in zip(letters_digits[::2], letters_digits[1::2], strict=True):
        squares.append((FILES.index(letter), int(digits) - 1))
    return squares


def _board_text(board: Board) -> str:
    ranks = []
    for rank in range(SIZE - 1, -1, -1):
        out = []
        empty = 0
        for file in range(SIZE):
            stack = board[rank * SIZE + file]
            if not stack:
                empty += 1
                continue
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(stack if len(stack) == 1 else f"({stack})")
        if empty:
            out.append(str(empty))
        ranks.append("".join(out))
    return "/".join(ranks)


def _parse_board(text: str) -> Board:
    rows = text.split("/")
    if len(rows) != SIZE:
        raise RulesError(f"a Mimic board has {SIZE} ranks separated by /, not {len(rows)}: "
                         f"{text!r}")
    board: list[str] = []
    for row in reversed(rows):
        squares: list[str] = []
        wellformed = _RANK.fullmatch(row) is not None
        if wellformed:
            for value in _RANK_TOKEN.findall(row):
                if value[0] in "0123456789":
                    squares.extend([""] * int(value))
                else:
                    squares.append(value.strip("()"))
        if not wellformed or len(squares) != SIZE:
            raise RulesError(f"the rank {row!r} does not describe {SIZE} squares "
                             "(digits for empty squares, b, r, or a stack like (brb))")
        board.extend(squares)
    return tuple(board)


def _parse_result(text: str) -> tuple[Seat, str] | None:
    if text == "-":
        return None
    parts = text.split(":")
    if len(parts) != 3 or parts[0] != "won" or parts[1] not in PIECES or parts[2] not in RESULTS:
        raise RulesError(f"the result must be - or like won:b:goal, not {text!r}")
    return PIECES.index(parts[1]), parts[2]


def _describe_last(seats: Sequence[Mapping[str, Any]], last: Mapping[str, Any]) -> str:
    who = seats[last["seat"]]["name"]
    if last["mimic_from"] is None:
        return _("%(who)s %(origin)s-%(target)s", who=who, origin=last["from"],
                 target=last["to"])
    other = seats[1 - last["seat"]]["name"]
    if last["mimic_to"] is None:
        return _("%(who)s %(origin)s-%(target)s; %(other)s %(mimic)s mimicked off the board",
                 who=who, origin=last["from"], target=last["to"], other=other,
                 mimic=last["mimic_from"])
    return _("%(who)s %(origin)s-%(target)s; %(other)s %(mimic)s-%(landing)s mimicked",
             who=who, origin=last["from"], target=last["to"], other=other,
             mimic=last["mimic_from"], landing=last["mimic_to"])
