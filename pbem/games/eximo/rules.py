"""EXIMO, a checkers-family game by Matteo Perlini (2013), for two players on an 8x8 board.

Rules (rules/eximo.txt) and the rulings applied (rules/RULINGS.md, "EXIMO"):

- Setup: seat 0 is Black on b1-g1, b2-g2, b3, c3, f3, g3 and moves north (towards rank 8);
  seat 1 is White on b8-g8, b7-g7, b6, c6, f6, g6 and moves south. Black moves first.
- A turn is either a capture sequence or a move (ordinary or jumping), never a mix.
- Ordinary move: one step forward or diagonally forward to an empty square.
- Jumping move: over an adjacent friendly checker, forward or diagonally forward, onto the empty
  square just beyond. While the checker can jump again it must; the player picks the branch.
- Capture: over an adjacent opponent's checker forward, diagonally forward, right or left (five
  directions) onto the empty square beyond; the captured checker leaves the board at once. While
  the checker can capture again it must; the player picks the branch (the longest is not
  required). Capturing is mandatory: if any checker can capture, the turn must be a capture.
- A checker that reaches the far row (by step, jump or capture) leaves the board at once and its
  sequence ends there. In the same turn its owner drops two new checkers on empty squares of
  their own first two rows except the a and h files (Black: b1-g2, White: b7-g8), or one if only
  one such square is empty, or none if none is. The two drops are an unordered pair.
- A player with no legal move (or no checkers) on their turn loses. No move cap (draws are the
  server's business).

Notation: the full path. Ordinary move `c2-c3`; jumping move `c1-c3-c5`; capture `e4xe6xg6`;
drops written after the move in file-then-rank order: `d6xd8 drop c1 d1`, or `d7-d8 drop c1`
when one square is free. Input is forgiving: any case, spaces, en-dashes, `c2c3`, and the drops
may be given in any order, without the word `drop`, or left out when they are forced.

Position text: the eight ranks from 8 down to 1 separated by `/`, each rank listed from a to h
with `b` for a Black checker, `w` for a White checker and a digit for a run of empty squares;
then a space and the side to move (`b` or `w`). The start is
`1wwwwww1/1wwwwww1/1ww2ww1/8/8/1bb2bb1/1bbbbbb1/1bbbbbb1 b`. Nothing else decides the moves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations, compress, pairwise
from typing import Any

from pbem.games.base import (
    AmbiguousMoveError,
    Event,
    IllegalMoveError,
    InvalidMoveError,
    Outcome,
    RulesBase,
    RulesError,
    Seat,
    Transition,
    in_english,
)
from pbem.games.notation import normalize, parse_square
from pbem.i18n import N_, _, ngettext

SIZE = 8
EMPTY = "."
PIECES = "bw"  # the character of seat 0's and seat 1's checkers
COLOURS = ("black", "white")
FORWARD = (1, -1)  # rank step towards the far row, by seat
FAR_RANK = (SIZE - 1, 0)
START_POSITION = "1wwwwww1/1wwwwww1/1ww2ww1/8/8/1bb2bb1/1bbbbbb1/1bbbbbb1 b"
FILES = "abcdefgh"

# Moves and friendly jumps go in three directions; captures also go right and left.
MOVE_DIRECTIONS = tuple(((-1, f), (0, f), (1, f)) for f in FORWARD)
CAPTURE_DIRECTIONS = tuple((*dirs, (-1, 0), (1, 0)) for dirs in MOVE_DIRECTIONS)
DIRECTION_NAMES = {
    (0, 1): N_("north"), (1, 1): N_("north-east"), (-1, 1): N_("north-west"),
    (0, -1): N_("south"), (1, -1): N_("south-east"), (-1, -1): N_("south-west"),
    (1, 0): N_("east"), (-1, 0): N_("west"),
}

# Drop zones, listed in file-then-rank order (the order drops are written in).
DROP_ZONES = tuple(
    tuple(rank * SIZE + file for file in range(1, SIZE - 1) for rank in ranks)
    for ranks in ((0, 1), (SIZE - 2, SIZE - 1))
)
# For each seat and square: (adjacent square, square beyond it or -1, direction is forward)
# in the five capture directions that stay on the board. Built once: moves are generated often.
NEIGHBOURS = tuple(
    tuple(
        tuple(
            (index + d_rank * SIZE + d_file,
             index + 2 * (d_rank * SIZE + d_file)
             if 0 <= file + 2 * d_file < SIZE and 0 <= rank + 2 * d_rank < SIZE else -1,
             d_rank != 0)
            for d_file, d_rank in CAPTURE_DIRECTIONS[seat]
            if 0 <= file + d_file < SIZE and 0 <= rank + d_rank < SIZE
        )
        for index in range(SIZE * SIZE)
        for file, rank in [(index % SIZE, index // SIZE)]
    )
    for seat in (0, 1)
)

SQUARE_RANGE = range(SIZE * SIZE)
# For each seat and square, the (adjacent square, square beyond) pairs on the board in the
# five capture directions, and in the three forward ones (in NEIGHBOURS' order).
HOPS = tuple(tuple(tuple((near, beyond) for near, beyond, _forward in NEIGHBOURS[seat][index]
                         if beyond >= 0) for index in SQUARE_RANGE) for seat in (0, 1))
FORWARD_HOPS = tuple(tuple(tuple((near, beyond) for near, beyond, forward
                                 in NEIGHBOURS[seat][index] if forward and beyond >= 0)
                           for index in SQUARE_RANGE) for seat in (0, 1))



_SQ = r"[a-z][0-9]{1,2}"
_PATH = re.compile(rf"{_SQ}(?:\s*[-x:]?\s*{_SQ})*")
_DROPS = re.compile(rf"(?:{_SQ}(?:\s*(?:,|and)?\s*{_SQ})*)?")
_DROP_WORD = re.compile(r"drops?")


class EximoRules(RulesBase):
    slug = "eximo"
    board_picture = True
    title = "EXIMO"
    seat_names = (N_("Black"), N_("White"))

    # -- game flow -----------------------------------------------------------------------------

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> EximoState:
        self.check_player_count(players)
        self.resolve_options(options)
        return self.from_position(START_POSITION)

    def to_move(self, state: EximoState) -> frozenset[Seat]:
        # A player with no legal move on their turn has lost (ruling), so the game is over.
        if _turn_moves(state):
            return frozenset({state.turn})
        return frozenset()

    def legal_moves(self, state: EximoState, seat: Seat) -> Sequence[EximoMove]:
        if seat != state.turn:
            return []
        return list(_turn_moves(state))  # a copy: the caller may change it

    def next_state(self, state: EximoState, seat: Seat, move: EximoMove) -> EximoState:
        return EximoState(_after(state.board, seat, move), 1 - seat, move, seat)

    def apply_move(self, state: EximoState, seat: Seat, move: EximoMove) -> Transition:
        new = self.next_state(state, seat, move)
        text = self.format_move(state, move)
        end = move.path[-1]
        data = {
            "seat": seat,
            "move": text,
            "path": [_name(i) for i in move.path],
            "captured": [_name(i) for i in move.captured],
            "removed_at": _name(end) if end // SIZE == FAR_RANK[seat] else None,
            "drops": [_name(i) for i in move.drops],
        }
        events = [Event("moved", data)]
        over = self.outcome(new)
        if over is not None:
            events.append(Event("game_over", {"winners": sorted(over.winners),
                                              "reason": over.reason}))
        return Transition(new, tuple(events))

    def outcome(self, state: EximoState) -> Outcome | None:
        loser = state.turn
        if _turn_moves(state):
            return None
        winner = 1 - loser
        scores = (1.0, 0.0) if winner == 0 else (0.0, 1.0)
        with in_english():  # stored in the match's result and in the game_over event
            reason = self._reason(winner, PIECES[loser] not in state.board)
        return Outcome(frozenset({winner}), scores, reason)

    def _reason(self, winner: Seat, no_checkers: bool) -> str:
        lost, won = _(self.seat_names[1 - winner]), _(self.seat_names[winner])
        if no_checkers:
            return _("%(loser)s has no checkers left, so %(winner)s wins", loser=lost,
                     winner=won)
        return _("%(loser)s has no legal move, so %(winner)s wins", loser=lost, winner=won)

    def _shown_reason(self, reason: str, winners: Sequence[Seat]) -> str:
        """A stored (English) reason in the reader's language, re-derived when it is one of
        ours (a ruling's reason is shown as written)."""
        if len(winners) == 1:
            for no_checkers in (True, False):
                with in_english():
                    english = self._reason(winners[0], no_checkers)
                if english == reason:
                    return self._reason(winners[0], no_checkers)
        return reason

    # -- notation ------------------------------------------------------------------------------

    def format_move(self, state: EximoState, move: EximoMove) -> str:
        text = ("x" if move.is_capture else "-").join(_name(i) for i in move.path)
        if move.drops:
            text += " drop " + " ".join(_name(i) for i in move.drops)
        return text

    def parse_move(self, state: EximoState, seat: Seat, text: str) -> EximoMove:
        path, drops, has_word = _read_notation(text)
        if self.outcome(state) is not None:
            raise IllegalMoveError(_("the game is over: no more moves can be made"))
        if seat != state.turn:
            raise IllegalMoveError(_("it is not your turn: %(seat)s is to move",
                                     seat=self.seat_label(state, state.turn)))
        legal = _legal_moves(state.board, seat)
        if not has_word:
            path, drops = _path_then_drops(legal, path + drops, seat)
        found = _written(legal, path, drops)
        if not found:
            raise IllegalMoveError(_explain(state.board, seat, path, drops, legal, text))
        return self._only_one(state, seat, found, text)

    def _only_one(self, state: EximoState, seat: Seat, found: list[EximoMove],
                  text: str) -> EximoMove:
        """The one legal move the text names; AmbiguousMoveError saying what to add when it
        names several paths, or a far-row arrival without its drops."""
        by_path: dict[tuple[int, ...], EximoMove] = {}
        for move in found:
            by_path.setdefault(move.path, move)
        if len(by_path) > 1:
            options = ", ".join(_format_path(move) for move in by_path.values())
            raise AmbiguousMoveError(
                _("%(text)r could be several paths: %(options)s; write the whole path",
                  text=text.strip(), options=options))
        if len(found) > 1:
            free = ", ".join(_name(i) for i in _free_drops(
                _after_path(state.board, seat, found[0]), seat))
            raise AmbiguousMoveError(
                _("%(text)r: %(path)s reaches the far row, so say where your two new checkers "
                  "go, choosing two of %(free)s (for example %(example)r)", text=text.strip(),
                  path=_format_path(found[0]), free=free,
                  example=self.format_move(state, found[0])))
        return found[0]

    # -- position text and storage -------------------------------------------------------------

    def position(self, state: EximoState) -> str:
        ranks = []
        for rank in range(SIZE - 1, -1, -1):
            row = state.board[rank * SIZE:(rank + 1) * SIZE]
            ranks.append(re.sub(r"\.+", lambda run: str(len(run.group())), row))
        return "/".join(ranks) + " " + PIECES[state.turn]

    def from_position(self, text: str) -> EximoState:
        parts = text.strip().lower().split()
        if len(parts) != 2 or parts[1] not in ("b", "w"):
            raise RulesError(f"{text!r} is not an EXIMO position: write eight ranks from 8 "
                             f"down to 1 separated by '/', a space and the side to move (b or w)")
        rows = parts[0].split("/")
        if len(rows) != SIZE:
            raise RulesError(f"{text!r} does not have eight ranks")
        board = []
        for number, row in zip(range(SIZE, 0, -1), rows, strict=True):
            cells = re.sub(r"[1-8]", lambda run: EMPTY * int(run.group()), row)
            if len(cells) != SIZE or set(cells) - {"b", "w", EMPTY}:
                raise RulesError(f"rank {number} in {text!r} must describe eight squares "
                                 f"with b, w and digits")
            board.append(cells)
        flat = "".join(reversed(board))
        if "b" in flat[(SIZE - 1) * SIZE:] or "w" in flat[:SIZE]:
            raise RulesError(f"{text!r} has a checker on its far row, where none can stand")
        return EximoState(flat, PIECES.index(parts[1]))

    def dump(self, state: EximoState) -> dict[str, Any]:
        last = state.last
        return {
            "board": state.board,
            "turn": state.turn,
            "last": None if last is None else {
                "path": list(last.path), "captured": list(last.captured),
                "drops": list(last.drops)},
            "last_seat": state.last_seat,
        }

    def load(self, data: Mapping[str, Any]) -> EximoState:
        last = data["last"]
        move = None if last is None else EximoMove(
            tuple(last["path"]), tuple(last["captured"]), tuple(last["drops"]))
        return EximoState(data["board"], data["turn"], move, data["last_seat"])

    # -- views ---------------------------------------------------------------------------------

    def view(self, state: EximoState, seat: Seat | None) -> dict[str, Any]:
        # Nothing is hidden in EXIMO: every seat and spectator sees the same board.
        over = self.outcome(state)
        last = state.last
        last_view = None
        if last is not None and state.last_seat is not None:
            end = last.path[-1]
            last_view = {
                "seat": state.last_seat,
                "label": self.seat_label(state, state.last_seat),
                "text": self.format_move(state, last),
                "squares": [_name(i) for i in last.path],
                "captured": [_name(i) for i in last.captured],
                "drops": [_name(i) for i in last.drops],
                "removed_at": _name(end) if end // SIZE == FAR_RANK[state.last_seat] else None,
            }
        return {
            "files": SIZE,
            "ranks": SIZE,
            "rows": [state.board[r * SIZE:(r + 1) * SIZE] for r in range(SIZE - 1, -1, -1)],
            "pieces": [{"square": _name(i), "seat": PIECES.index(c), "colour": COLOURS[
                PIECES.index(c)]} for i, c in enumerate(state.board) if c != EMPTY],
            "seats": [{"seat": s, "label": self.seat_label(state, s), "colour": COLOURS[s],
                       "symbol": PIECES[s], "checkers": state.board.count(PIECES[s])}
                      for s in (0, 1)],
            "viewer": seat,
            "to_move": None if over else state.turn,
            "to_move_label": None if over else self.seat_label(state, state.turn),
            "last_move": last_view,
            "outcome": None if over is None else {
                "winners": sorted(over.winners),
                "reason": self._shown_reason(over.reason, sorted(over.winners))},
            "position": self.position(state),
        }

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        # White (seat 1) sees the board turned, as on its web page: row 1 on top, file a right.
        flip = view.get("viewer") == 1
        files = "    " + " ".join(reversed(FILES) if flip else FILES) + "\n"
        lines = [files.rstrip()]
        numbered = list(zip(range(SIZE, 0, -1), view["rows"], strict=True))
        for number, row in reversed(numbered) if flip else numbered:
            lines.append(f" {number}  {' '.join(reversed(row) if flip else row)}  {number}")
        lines.append(files.rstrip())
        black, white = view["seats"]
        lines.append(ngettext("%(label)s (b): %(num)s checker, moving up.",
                              "%(label)s (b): %(num)s checkers, moving up.",
                              black["checkers"], label=black["label"]) + " " +
                     ngettext("%(label)s (w): %(num)s checker, moving down.",
                              "%(label)s (w): %(num)s checkers, moving down.",
                              white["checkers"], label=white["label"]))
        last = view["last_move"]
        if last is not None:
            move = f"{last['label']} {last['text']}"
            lines.append(_("Last move: %(move)s", move=move))
        if view["outcome"] is not None:
            lines.append(_("Game over: %(reason)s.", reason=view["outcome"]["reason"]))
        elif over:
            lines.append(_("Match over."))
        else:
            lines.append(_("%(seat)s to move.", seat=view["to_move_label"]))
        return "\n".join(lines)

    def describe_event(self, event: Event) -> str:
        data = event.data
        if event.kind == "game_over":
            return _("Game over: %(reason)s",
                     reason=self._shown_reason(data["reason"], data["winners"]))
        name = _(self.seat_names[data["seat"]])
        move = data["move"].split(" drop ")[0]
        if data["captured"]:
            text = _("%(who)s %(move)s, capturing %(captured)s", who=name, move=move,
                     captured=_and(data["captured"]))
        else:
            text = _("%(who)s %(move)s", who=name, move=move)
        if data["removed_at"]:
            if not data["drops"]:
                return _("%(text)s; the checker reached %(square)s and left the board, with no "
                         "free square to drop on", text=text, square=data["removed_at"])
            if len(data["drops"]) == 1:
                return _("%(text)s; the checker reached %(square)s and left the board, and a "
                         "new checker was dropped on %(drops)s", text=text,
                         square=data["removed_at"], drops=_and(data["drops"]))
            return _("%(text)s; the checker reached %(square)s and left the board, and new "
                     "checkers were dropped on %(drops)s", text=text, square=data["removed_at"],
                     drops=_and(data["drops"]))
        return text


# -- state -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EximoMove:
    """A whole turn: the path of the moving checker, what it captured, and the drops."""

    path: tuple[int, ...]
    captured: tuple[int, ...] = ()
    drops: tuple[int, ...] = ()

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)


@dataclass(frozen=True)
class EximoState:
    """`board` holds 64 characters, a1..h1 then a2..h2 and so on up to h8."""

    board: str
    turn: Seat
    last: EximoMove | None = None
    last_seat: Seat | None = None
    # The side to move's legal moves, found once (`_turn_moves`): the search asks `to_move`
    # and then `legal_moves` of every state it reaches. Not part of the state's value.
    moves: tuple[EximoMove, ...] | None = field(default=None, init=False, repr=False,
                                                compare=False)


def _turn_moves(state: EximoState) -> tuple[EximoMove, ...]:
    moves = state.moves
    if moves is None:
        moves = tuple(_legal_moves(state.board, state.turn))
        # Frozen, but this field only caches a pure function of the others.
        object.__setattr__(state, "moves", moves)
    return moves


# For each seat and square, (forward square, the step there) in ascending order; the step is
# None onto the far row, where the drops make the moves. The steps are built once.
STEPS = tuple(
    tuple(
        tuple((near, None if near // SIZE == FAR_RANK[seat] else EximoMove((index, near)))
              for near, _beyond, forward in NEIGHBOURS[seat][index] if forward)
        for index in SQUARE_RANGE)
    for seat in (0, 1))


# For each seat and square, the first hops of its jumping moves (in FORWARD_HOPS' order) with
# the one-hop move each makes, or None onto the far row (the drops make those moves).
FIRST_JUMPS = tuple(
    tuple(tuple((near, beyond, None if beyond // SIZE == FAR_RANK[seat]
                 else EximoMove((index, beyond))) for near, beyond in FORWARD_HOPS[seat][index])
          for index in SQUARE_RANGE)
    for seat in (0, 1))


# -- private helpers ---------------------------------------------------------------------------


def _index(file: int, rank: int) -> int:
    return rank * SIZE + file


def _name(index: int) -> str:
    return f"{FILES[index % SIZE]}{index // SIZE + 1}"


def _and(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    return _("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1])


def _legal_moves(board: str, seat: Seat) -> list[EximoMove]:
    """Every whole turn, ordered by path (then drops, in file-then-rank order)."""
    mine, theirs = PIECES[seat], PIECES[1 - seat]
    owned = list(compress(SQUARE_RANGE, map(mine.__eq__, board)))
    paths: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for index in owned:
        for near, beyond in HOPS[seat][index]:  # any capture from here? Then play them out
            if board[near] == theirs and board[beyond] == EMPTY:
                _capture_paths(board, seat, (index,), (), paths)
                break
    if paths:  # capturing is mandatory, so moves count only when no capture exists
        moves = []
        for path, captured in sorted(paths):
            moves.extend(_with_drops(board, seat, path, captured))
        return moves
    # Steps and jumping moves, already in order: from each checker (in order), Black's steps
    # go to squares below its jumps' and White's above (both listed in ascending order, and
    # the jumps' depth-first search follows its directions in ascending order too).
    moves = []
    steps, forward_hops = STEPS[seat], FORWARD_HOPS[seat]
    for index in owned:
        jumps = None
        for near, beyond in forward_hops[index]:
            if board[near] == mine and board[beyond] == EMPTY:
                jumps = _jump_moves(board, seat, index)
                break
        if jumps and seat == 1:
            moves.extend(jumps)
        for near, move in steps[index]:
            if board[near] == EMPTY:
                if move is None:  # onto the far row: the drops make the moves
                    moves.extend(_with_drops(board, seat, (index, near), ()))
                else:
                    moves.append(move)
        if jumps and seat == 0:
            moves.extend(jumps)
    return moves


def _jump_moves(board: str, seat: Seat, index: int) -> list[EximoMove]:
    """The jumping moves from `index`, in the order of the depth-first search from it."""
    mine = PIECES[seat]
    hops = FORWARD_HOPS[seat]
    moves: list[EximoMove] = []
    for near, beyond, single in FIRST_JUMPS[seat][index]:
        if board[near] != mine or board[beyond] != EMPTY:
            continue
        if single is None:  # removed at the far row: the sequence ends, the drops follow
            moves.extend(_with_drops(board, seat, (index, beyond), ()))
            continue
        for next_near, next_beyond in hops[beyond]:
            if board[next_near] == mine and board[next_beyond] == EMPTY:
                _add_long_jumps(board, seat, (index, beyond), moves)
                break
        else:  # the common case: one hop, and no further one from there
            moves.append(single)
    return moves


def _add_long_jumps(board: str, seat: Seat, path: tuple[int, ...],
                    moves: list[EximoMove]) -> None:
    paths: list[tuple[int, ...]] = []
    _jump_paths(board, seat, path, paths)
    far = FAR_RANK[seat]
    for found in paths:
        if found[-1] // SIZE == far:
            moves.extend(_with_drops(board, seat, found, ()))
        else:
            moves.append(_jumping_move(found))


@cache
def _jumping_move(path: tuple[int, ...]) -> EximoMove:
    """Jumping moves are kept once made: there are few (every hop goes forward)."""
    return EximoMove(path)


def _capture_paths(board: str, seat: Seat, path: tuple[int, ...], captured: tuple[int, ...],
                   out: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> None:
    here = path[-1]
    theirs = PIECES[1 - seat]
    extended = False
    for near, beyond, _forward in NEIGHBOURS[seat][here]:  # all five directions
        if beyond < 0 or board[near] != theirs or board[beyond] != EMPTY:
            continue
        extended = True
        # The captured checker leaves at once, so it can neither be jumped again nor block.
        cells = list(board)
        cells[here], cells[near], cells[beyond] = EMPTY, EMPTY, PIECES[seat]
        step_path, step_captured = (*path, beyond), (*captured, near)
        if beyond // SIZE == FAR_RANK[seat]:
            out.append((step_path, step_captured))  # removed at the far row: the sequence ends
        else:
            _capture_paths("".join(cells), seat, step_path, step_captured, out)
    if not extended and len(path) > 1:
        out.append((path, captured))


def _jump_paths(board: str, seat: Seat, path: tuple[int, ...], out: list[tuple[int, ...]]) -> None:
    # Friendly checkers are jumped forward or diagonally forward only, so every square looked
    # at lies ahead of every square the jumping checker has left or crossed: the board it
    # sees is the one at the start of the turn, and no copy of it is needed.
    mine = PIECES[seat]
    extended = False
    for near, beyond in FORWARD_HOPS[seat][path[-1]]:
        if board[near] != mine or board[beyond] != EMPTY:
            continue
        extended = True
        step_path = (*path, beyond)
        if beyond // SIZE == FAR_RANK[seat]:
            out.append(step_path)  # removed at the far row: the sequence ends
        else:
            _jump_paths(board, seat, step_path, out)
    if not extended and len(path) > 1:
        out.append(path)


def _with_drops(board: str, seat: Seat, path: tuple[int, ...],
                captured: tuple[int, ...]) -> list[EximoMove]:
    if path[-1] // SIZE != FAR_RANK[seat]:
        return [EximoMove(path, captured)]
    free = _free_drops(_after_path(board, seat, EximoMove(path, captured)), seat)
    if len(free) <= 2:
        return [EximoMove(path, captured, free)]
    return [EximoMove(path, captured, pair) for pair in combinations(free, 2)]


def _free_drops(board: str, seat: Seat) -> tuple[int, ...]:
    return tuple(i for i in DROP_ZONES[seat] if board[i] == EMPTY)


def _after_path(board: str, seat: Seat, move: EximoMove) -> str:
    """The board after the move's path and captures, before any drop."""
    return _after(board, seat, move, with_drops=False)


def _after(board: str, seat: Seat, move: EximoMove, with_drops: bool = True) -> str:
    # The path, the captures and the drops in one copy of the board: the playouts make many.
    cells = list(board)
    cells[move.path[0]] = EMPTY
    for index in move.captured:
        cells[index] = EMPTY
    end = move.path[-1]
    cells[end] = EMPTY if end // SIZE == FAR_RANK[seat] else PIECES[seat]
    for index in move.drops if with_drops else ():
        cells[index] = PIECES[seat]
    return "".join(cells)


def _read_notation(text: str) -> tuple[list[int], list[int], bool]:
    """Split move text into path squares and drop squares; raise InvalidMoveError if garbled."""
    clean = normalize(text)
    parts = _DROP_WORD.split(clean, maxsplit=1)
    head = parts[0].strip()
    tail = parts[1].strip() if len(parts) > 1 else ""
    if not head:
        raise InvalidMoveError(
            _("%(text)r is not a move: write the path first, like c2-c3, e4xe6xg6 or d6xd8 "
              "drop c1 d1", text=text.strip()))
    if not _PATH.fullmatch(head) or not _DROPS.fullmatch(tail):
        raise InvalidMoveError(
            _("%(text)r is not a move: write it like c2-c3, c1-c3-c5, e4xe6xg6 or d6xd8 drop "
              "c1 d1", text=text.strip()))
    path = [_parse(token, text) for token in re.findall(_SQ, head)]
    drops = [_parse(token, text) for token in re.findall(_SQ, tail)]
    if len(path) < 2 and not drops:
        raise InvalidMoveError(
            _("%(text)r names only one square: write where the checker goes too, like c2-c3",
              text=text.strip()))
    return path, drops, len(parts) > 1


def _parse(token: str, text: str) -> int:
    try:
        file, rank = parse_square(token, SIZE, SIZE)
    except InvalidMoveError as error:
        raise InvalidMoveError(_("in %(text)r: %(error)s", text=text.strip(),
                                 error=error)) from None
    return _index(file, rank)


def _explain(board: str, seat: Seat, path: list[int], drops: list[int],
             legal: list[EximoMove], text: str) -> str:
    """Why the named path and drops are not a legal turn, in a player's words: the first rule
    it breaks, in the order a player makes the turn (the start, each hop, what the whole turn
    owes, then the drops)."""
    not_legal = _("%(text)r is not a legal move here", text=text.strip())
    if len(path) < 2:
        return _("%(text)r: drops come only after a move that reaches the far row; write the "
                 "move first, like d7-d8 drop c1 d1", text=text.strip())
    walked = _start_refusal(board, seat, path[0]) or _walk(board, seat, path)
    if isinstance(walked, str):
        return walked
    cells, kind = walked
    refusal = _turn_refusal(seat, path, kind, legal)
    if refusal:
        return refusal
    end = path[-1]
    if end // SIZE != FAR_RANK[seat]:
        if drops:
            return _("drops are made only when a checker reaches the far row, and %(square)s "
                     "is not on it", square=_name(end))
        return not_legal
    return _drop_refusal(cells, seat, end, drops) or not_legal


def _start_refusal(board: str, seat: Seat, start: int) -> str | None:
    """Why the turn cannot start on this square: no checker, or the opponent's."""
    if board[start] == EMPTY:
        return _("there is no checker on %(square)s", square=_name(start))
    if board[start] == PIECES[1 - seat]:
        them = _("White") if seat == 0 else _("Black")
        return _("%(square)s holds a %(them)s checker, not one of yours", square=_name(start),
                 them=them)
    return None


def _walk(board: str, seat: Seat, path: list[int]) -> tuple[list[str], str] | str:
    """Make the named hops on a copy of the board: the cells after them and the turn's kind
    ("step", "jump" or "capture"), or why a hop is not allowed."""
    cells = list(board)
    kind = ""
    for number, (here, there) in enumerate(pairwise(path)):
        hop = f"{_name(here)}-{_name(there)}"
        if number > 0 and here // SIZE == FAR_RANK[seat]:
            return _("the checker leaves the board when it reaches %(square)s on the far row, "
                     "so its sequence ends there", square=_name(here))
        if max(abs(there % SIZE - here % SIZE), abs(there // SIZE - here // SIZE)) == 1:
            refusal = _step_refusal(cells, seat, hop, here, there, alone=len(path) == 2)
            kind = "step"
        else:
            refusal = _hop_refusal(cells, seat, hop, here, there, kind)
            if refusal is None:
                middle = _middle(here, there)
                kind = "capture" if cells[middle] == PIECES[1 - seat] else "jump"
                if kind == "capture":
                    cells[middle] = EMPTY
        if refusal is not None:
            return refusal
        cells[here], cells[there] = EMPTY, PIECES[seat]
    return cells, kind


def _middle(here: int, there: int) -> int:
    """The square a jump or capture from `here` to `there` passes over."""
    return here + (there // SIZE - here // SIZE) // 2 * SIZE + (there % SIZE - here % SIZE) // 2


def _step_refusal(cells: list[str], seat: Seat, hop: str, here: int, there: int,
                  alone: bool) -> str | None:
    """Why a step to an adjacent square is not an ordinary move."""
    d_rank = there // SIZE - here // SIZE
    if not alone:
        return _("%(hop)s: an ordinary move is a single step to an adjacent square and cannot "
                 "be part of a longer path", hop=hop)
    if d_rank == 0:
        return _("%(hop)s: a checker moves sideways only when it captures", hop=hop)
    if d_rank != FORWARD[seat]:
        return _("%(hop)s: a checker never moves backwards, only forward or diagonally forward "
                 "(%(directions)s)", hop=hop, directions=_directions(seat))
    if cells[there] != EMPTY:
        return _("%(hop)s: %(square)s is occupied", hop=hop, square=_name(there))
    return None


def _hop_refusal(cells: list[str], seat: Seat, hop: str, here: int, there: int,
                 kind: str) -> str | None:
    """Why a hop of two squares is neither a jump over a friendly checker nor a capture, or
    mixes the two kinds in one turn."""
    d_file = there % SIZE - here % SIZE
    d_rank = there // SIZE - here // SIZE
    if d_file not in (-2, 0, 2) or d_rank not in (-2, 0, 2) or (d_file, d_rank) == (0, 0):
        return _("%(hop)s is neither a step to an adjacent square nor a jump over one adjacent "
                 "checker to the square just beyond", hop=hop)
    if d_rank == -2 * FORWARD[seat]:
        return _("%(hop)s: a checker never moves, jumps or captures backwards", hop=hop)
    middle = _middle(here, there)
    if cells[middle] == EMPTY:
        return _("%(hop)s: there is no checker on %(square)s to jump over", hop=hop,
                 square=_name(middle))
    hop_kind = "capture" if cells[middle] == PIECES[1 - seat] else "jump"
    if hop_kind == "jump" and d_rank == 0:
        return _("%(hop)s: a checker jumps its own checkers only forward or diagonally forward; "
                 "right and left are for captures", hop=hop)
    if cells[there] != EMPTY:
        return _("%(hop)s: %(square)s is occupied, so the checker cannot land there", hop=hop,
                 square=_name(there))
    if kind and kind != hop_kind:
        return _("%(hop)s: a turn is either a capture sequence or a jumping move, never a mix "
                 "of both", hop=hop)
    return None


def _turn_refusal(seat: Seat, path: list[int], kind: str,
                  legal: list[EximoMove]) -> str | None:
    """Why hops that are each allowed still do not make a whole turn: a capture was owed, or
    the sequence stops where it must go on."""
    captures = [m for m in legal if m.is_capture]
    if kind != "capture" and captures:
        example = captures[0]
        return _("capturing is mandatory: %(square)s can capture %(taken)s (%(path)s)",
                 square=_name(example.path[0]), taken=_name(example.captured[0]),
                 path=_format_path(example))
    end, stem = path[-1], tuple(path)
    if kind == "step" or end // SIZE == FAR_RANK[seat]:
        return None
    onward = [m for m in legal if m.path[:len(stem)] == stem and len(m.path) > len(stem)]
    if not onward:
        return None
    nxt = onward[0].path[len(stem)]
    if kind == "capture":
        return _("the capture must continue: from %(square)s the checker can still capture "
                 "%(taken)s by jumping to %(next)s (%(path)s)", square=_name(end),
                 taken=_name(onward[0].captured[len(stem) - 1]), next=_name(nxt),
                 path=_format_path(onward[0]))
    return _("the jumping move must continue: from %(square)s the checker can still jump to "
             "%(next)s (%(path)s)", square=_name(end), next=_name(nxt),
             path=_format_path(onward[0]))


def _drop_refusal(cells: list[str], seat: Seat, end: int, drops: list[int]) -> str | None:
    """Why the drops after reaching the far row at `end` are not the ones the rules give."""
    free = _free_drops("".join([*cells[:end], EMPTY, *cells[end + 1:]]), seat)
    you = _("Black") if seat == 0 else _("White")
    zone = (_("%(first)s and %(last)s", first="b1-g1", last="b2-g2") if seat == 0
            else _("%(first)s and %(last)s", first="b7-g7", last="b8-g8"))
    for square in drops:
        if square not in DROP_ZONES[seat]:
            return _("%(square)s is outside your drop zone (%(you)s: %(zone)s; never the a or h "
                     "file)", square=_name(square), you=you, zone=zone)
    if not free and drops:
        return _("no square of your drop zone is free, so there is nothing to drop")
    if len(free) == 1 and len(drops) != 1:
        return _("only %(square)s is free in your drop zone, so drop exactly one checker",
                 square=_name(free[0]))
    for square in drops:
        if square not in free:
            return _("you cannot drop on %(square)s: it is occupied", square=_name(square))
    if len(set(drops)) != len(drops):
        return _("the two new checkers must go on two different squares")
    if len(drops) != min(2, len(free)):
        return _("reaching the far row gives exactly two drops: name two free squares")
    return None


def _path_then_drops(legal: list[EximoMove], squares: list[int],
                     seat: Seat) -> tuple[list[int], list[int]]:
    """Without the word "drop", the squares after a far-row arrival are the drops: after a
    legal move's whole path, or else after the first square on the far row."""
    for move in legal:
        size = len(move.path)
        if move.path == tuple(squares[:size]) and move.drops:
            return squares[:size], squares[size:]
    return _split_at_far_row(squares, seat)


def _written(legal: list[EximoMove], path: list[int], drops: list[int]) -> list[EximoMove]:
    """The legal moves the path and drops name."""
    found = _matching(legal, path, drops)
    if found or len(path) != 2 or any(m.path[:2] == tuple(path) for m in legal):
        return found
    # Forgiving: "c1-c5" for the only jumping path from c1 to c5. Not when the two squares are
    # a real hop that must go on: that is an unfinished sequence, and the player must not get
    # a different path than the one they wrote.
    return [m for m in legal if len(m.path) > 2 and (m.path[0], m.path[-1]) == tuple(path)
            and _drops_match(m, drops)]


def _matching(legal: list[EximoMove], path: list[int], drops: list[int]) -> list[EximoMove]:
    return [m for m in legal if m.path == tuple(path) and _drops_match(m, drops)]


def _drops_match(move: EximoMove, drops: list[int]) -> bool:
    """Drops are an unordered pair; leaving them out matches every choice (forced or not)."""
    return not drops or (len(move.drops) == len(drops) and set(move.drops) == set(drops))


def _format_path(move: EximoMove) -> str:
    return ("x" if move.is_capture else "-").join(_name(i) for i in move.path)


def _directions(seat: Seat) -> str:
    return ", ".join(_(DIRECTION_NAMES[d]) for d in MOVE_DIRECTIONS[seat])


def _split_at_far_row(squares: list[int], seat: Seat) -> tuple[list[int], list[int]]:
    """Read "c7-c8 d1 e1" as the path to the far row, then the drops."""
    far = SIZE - 1 if seat == 0 else 0
    for index, square in enumerate(squares[1:], start=1):  # the first square is the start
        if square // SIZE == far:
            return squares[:index + 1], squares[index + 1:]
    return squares, []
