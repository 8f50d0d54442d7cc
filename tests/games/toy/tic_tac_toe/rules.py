"""Tic-tac-toe, for two players on a 3x3 board.

Rules:

- The board has nine squares, files a to c and ranks 1 to 3. Seat 0 is X and moves first;
  seat 1 is O. The players take turns.
- A move puts the mover's mark on an empty square.
- Three marks of one player in a row, a column or a diagonal win at once.
- A full board without such a line is a draw.

Notation: the square, `b2`. Input is forgiving: any case, spaces around it.

Position text: the ranks from 3 down to 1 separated by `/`, each listed from a to c with `x`,
`o` or `.` for an empty square; then a space and the side to move (`x` or `o`). The start is
`.../.../... x`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.games.base import (
    Event,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    RulesBase,
    Seat,
    Transition,
    in_english,
)
from pbem.games.notation import normalize
from pbem.i18n import N_, _

SIZE = 3
FILES = "abc"
MARKS = "xo"  # seat 0's and seat 1's mark
EMPTY = "."
SQUARES = tuple(f"{FILES[f]}{r + 1}" for r in range(SIZE) for f in range(SIZE))
LINES = (
    *((r * SIZE, r * SIZE + 1, r * SIZE + 2) for r in range(SIZE)),
    *((f, f + SIZE, f + 2 * SIZE) for f in range(SIZE)),
    (0, 4, 8),
    (2, 4, 6),
)


class TicTacToeRules(RulesBase):
    slug = "tic-tac-toe"
    board_picture = True
    title = "Tic-tac-toe"
    rules_version = 1
    player_counts = frozenset({2})
    options = ()
    seat_names = (N_("X"), N_("O"))

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> TicTacToeState:
        self.check_player_count(players)
        self.resolve_options(options)
        return TicTacToeState(EMPTY * SIZE * SIZE, 0, None)

    def to_move(self, state: TicTacToeState) -> frozenset[Seat]:
        if _winner(state.board) is not None or EMPTY not in state.board:
            return frozenset()
        return frozenset({state.turn})

    def legal_moves(self, state: TicTacToeState, seat: Seat) -> Sequence[str]:
        if seat not in self.to_move(state):
            return []
        return [square for index, square in enumerate(SQUARES) if state.board[index] == EMPTY]

    def parse_move(self, state: TicTacToeState, seat: Seat, text: str) -> str:
        square = normalize(text).replace(" ", "")
        if square not in SQUARES:
            raise InvalidMoveError(_("%(text)r is not a square: write it like b2", text=text))
        if not self.to_move(state):
            raise IllegalMoveError(_("the game is over: no more moves can be made"))
        if seat != state.turn:
            raise IllegalMoveError(_("it is not your turn"))
        if state.board[SQUARES.index(square)] != EMPTY:
            raise IllegalMoveError(_("%(square)s is taken", square=square))
        return square

    def format_move(self, state: TicTacToeState, move: str) -> str:
        return move

    def apply_move(self, state: TicTacToeState, seat: Seat, move: str) -> Transition:
        index = SQUARES.index(move)
        board = state.board[:index] + MARKS[seat] + state.board[index + 1:]
        new = TicTacToeState(board, 1 - seat, move)
        return Transition(new, (Event("marked", {"seat": seat, "square": move}),))

    def outcome(self, state: TicTacToeState) -> Outcome | None:
        winner = _winner(state.board)
        with in_english():  # stored in the match's result
            if winner is not None:
                scores = (1.0, 0.0) if winner == 0 else (0.0, 1.0)
                return Outcome(frozenset({winner}), scores,
                               _("%(seat)s has three in a row", seat=_(self.seat_names[winner])))
            if EMPTY not in state.board:
                return Outcome(frozenset({0, 1}), (0.5, 0.5), _("the board is full"))
        return None

    def view(self, state: TicTacToeState, seat: Seat | None) -> dict[str, Any]:
        # Nothing is hidden: every seat and spectator sees the same board.
        over = self.outcome(state)
        return {
            "files": SIZE,
            "ranks": SIZE,
            "marks": {square: MARKS[MARKS.index(mark)] for square, mark
                      in zip(SQUARES, state.board, strict=True) if mark != EMPTY},
            "to_move": None if over else state.turn,
            "to_move_label": None if over else self.seat_label(state, state.turn),
            "last_move": state.last,
            "outcome": None if over is None else {"winners": sorted(over.winners),
                                                  "reason": over.reason},
        }

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        lines = ["   a b c"]
        for rank in range(SIZE, 0, -1):
            row = " ".join(view["marks"].get(f"{file}{rank}", EMPTY) for file in FILES)
            lines.append(f"{rank}  {row}")
        if view["last_move"]:
            lines.append(_("Last move: %(move)s", move=view["last_move"]))
        if view["outcome"] is not None:
            lines.append(_("Game over: %(reason)s.", reason=view["outcome"]["reason"]))
        elif over:
            lines.append(_("Match over."))
        else:
            lines.append(_("%(seat)s to move.", seat=view["to_move_label"]))
        return "\n".join(lines)

    def describe_event(self, event: Event) -> str:
        return _("%(seat)s takes %(square)s", seat=_(self.seat_names[event.data["seat"]]),
                 square=event.data["square"])

    def dump(self, state: TicTacToeState) -> dict[str, Any]:
        return {"board": state.board, "turn": state.turn, "last": state.last}

    def load(self, data: Mapping[str, Any]) -> TicTacToeState:
        return TicTacToeState(data["board"], data["turn"], data["last"])

    def position(self, state: TicTacToeState) -> str:
        ranks = [state.board[r * SIZE:(r + 1) * SIZE] for r in range(SIZE - 1, -1, -1)]
        return f"{'/'.join(ranks)} {MARKS[state.turn]}"

    def from_position(self, text: str) -> TicTacToeState:
        ranks, _space, turn = text.strip().partition(" ")
        rows = ranks.split("/")
        if (len(rows) != SIZE or any(len(row) != SIZE or set(row) - {*MARKS, EMPTY}
                                     for row in rows) or turn not in MARKS):
            raise InvalidMoveError(_("%(text)r is not a tic-tac-toe position", text=text))
        return TicTacToeState("".join(reversed(rows)), MARKS.index(turn), None)


@dataclass(frozen=True)
class TicTacToeState:
    board: str  # nine characters, a1 b1 c1 a2 … c3
    turn: Seat
    last: str | None


def _winner(board: str) -> Seat | None:
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return MARKS.index(board[a])
    return None
