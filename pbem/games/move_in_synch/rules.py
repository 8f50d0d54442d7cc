"""Move In Synch, In Opposition: Leroy Quet's two-player marker game (rec.puzzles, 2009).

Rules (rule text `move-in-synch.txt`): each player has a marker on an n x n grid and draws
their symbol on the empty squares it reaches. A move is made by both players: the decider
announces "synch" or "opposition", the directioner picks one of the 8 directions and moves one
square that way, and the decider moves one square the same way (synch) or the exact opposite
way (opposition). Both must stay on the board. A player landing on an empty square draws their
symbol there, but nobody draws when both land on the same empty square or on a square that
already holds a symbol. The game ends when every square holds a symbol, or when a player has
more symbols than the opponent's symbols plus the empty squares; most symbols wins.

Rulings applied (RULINGS.md, "Move In Synch, In Opposition"):

- Board n x n, option `size` from 4 to 19, default 8. Files a, b, ... left to right, ranks 1,
  2, ... upwards; north is towards higher ranks and the board is never turned round.
- Blue (seat 0) places first, then Red (seat 1) on a different square; each start square gets
  its owner's symbol (Blue x, Red o).
- Roles alternate every move: in move 1 Blue directs and Red decides.
- Standard order: the decider may only announce a mode that leaves the directioner at least one
  legal direction; the directioner then picks a direction keeping both markers on the board.
- Variant (option `directioner_first`): the directioner first picks a direction that keeps
  their own marker on the board and for which some mode keeps the decider on it; then the
  decider picks a mode that keeps their marker on the board.
- Both moves resolve together; markers may share a square.
- End: every square holds a symbol, or a player's symbols exceed the opponent's plus the empty
  squares. Equal symbols on a full board are a draw. No move cap: an endless game is settled by
  the server's draw offers, resignation or adjudication.
- Autoplay for an absent player: the first legal move (placements a1, b1, ... rank by rank;
  synch before opposition; directions in the order N, NE, E, SE, S, SW, W, NW).

Notation: a placement is a square (`e4`); the decider's announcement is `synch` or
`opposition`; the directioner's direction is `N`, `NE`, `E`, `SE`, `S`, `SW`, `W` or `NW`, north
being towards higher ranks. Forgiving input takes any case and spacing, `north`, `north-east`,
`up`/`down`/`left`/`right` (the board is never turned round), `same`/`opposite`, `sync`, and
unambiguous beginnings of these words (`opp`, `sy`); an ambiguous beginning such as `no`
(N, NE or NW) is refused with the list of candidates.

Position text, one line of six fields separated by spaces:

    <ranks> <blue marker> <red marker> <move number> <order> <pending>

- ranks: from rank n down to rank 1, separated by `/`, each n characters from file a onwards:
  `x` Blue's symbol, `o` Red's symbol, `.` empty. The number of ranks gives n.
- blue marker, red marker: a square, or `-` while not yet placed.
- move number: the move being played, from 1; its directioner is Blue when it is odd.
- order: `decider-first` (standard) or `directioner-first` (the variant).
- pending: the first half of the move already made, or `-`: the decider's `synch` or
  `opposition` (standard order) or the directioner's direction (variant).

Example, move 2 of a 4 x 4 game: Blue started on a1 and Red on b1, Red announced synch
and Blue went N; now Blue has announced opposition and Red is to pick a direction:
`..../..../xo../xo.. a2 b2 2 decider-first opposition`
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
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
from pbem.games.notation import (
    FILES,
    KING_STEPS,
    Square,
    is_number,
    normalize,
    parse_square,
    square_name,
)
from pbem.i18n import N_, _, ngettext

SEAT_NAMES = (N_("Blue"), N_("Red"))
SYMBOLS = ("x", "o")
EMPTY = "."
MARKER_LETTERS = ("B", "R")
BOTH_MARKERS = "*"
COLOURS = ("#2a5db0", "#b8322a")

SYNCH = "synch"
OPPOSITION = "opposition"
MODES = (SYNCH, OPPOSITION)
DIRECTIONS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
STEP_OF = dict(zip(DIRECTIONS, KING_STEPS, strict=True))
OPPOSITE = {name: DIRECTIONS[(i + 4) % 8] for i, name in enumerate(DIRECTIONS)}

DECIDER_FIRST = "decider-first"
DIRECTIONER_FIRST = "directioner-first"

# The steps of play: who owes what now.
PLACE = "place"
ANNOUNCE = "announce"
DIRECT = "direct"
OVER = "over"

MIN_SIZE = 4
MAX_SIZE = 19

# Forgiving words, compared after dropping case, spaces and punctuation.
_WORDS: dict[str, str] = {
    "n": "N", "north": "N", "up": "N",
    "ne": "NE", "northeast": "NE", "upright": "NE",
    "e": "E", "east": "E", "right": "E",
    "se": "SE", "southeast": "SE", "downright": "SE",
    "s": "S", "south": "S", "down": "S",
    "sw": "SW", "southwest": "SW", "downleft": "SW",
    "w": "W", "west": "W", "left": "W",
    "nw": "NW", "northwest": "NW", "upleft": "NW",
    "synch": SYNCH, "sync": SYNCH, "insynch": SYNCH, "insync": SYNCH, "same": SYNCH,
    "opposition": OPPOSITION, "inopposition": OPPOSITION, "opposite": OPPOSITION,
    "oppose": OPPOSITION,
}
_PLACEMENT = re.compile(r"(?:place|at)?([a-z][0-9]{1,2})")
_NOT_WORD = re.compile(r"[^a-z0-9]")


class MoveInSynchRules(RulesBase):
    slug = "move-in-synch"
    board_picture = True
    title = "Move In Synch, In Opposition"
    options = (
        Option("size", 8, N_("board size n: the board has n x n squares"),
               minimum=MIN_SIZE, maximum=MAX_SIZE, label_text=N_("board size")),
        Option("directioner_first", False,
               N_("variant: the directioner picks the direction first, then the decider "
                  "chooses synch or opposition"), label_text=N_("directioner first")),
    )
    seat_names = SEAT_NAMES

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> SynchState:
        self.check_player_count(players)
        resolved = self.resolve_options(options)
        size = resolved["size"]
        order = DIRECTIONER_FIRST if resolved["directioner_first"] else DECIDER_FIRST
        return SynchState(size=size, order=order, marks=EMPTY * (size * size),
                          markers=(None, None), move_number=1, pending=None)

    def to_move(self, state: SynchState) -> frozenset[Seat]:
        movers = state.movers
        if movers is None:
            movers = NOBODY if _decided(state) else SEAT_ALONE[_mover(state)]
            # Frozen, but this field only caches a pure function of the others.
            object.__setattr__(state, "movers", movers)
        return movers

    def legal_moves(self, state: SynchState, seat: Seat) -> Sequence[str]:
        if seat not in self.to_move(state):
            return []
        step = _step(state)
        if step == PLACE:
            taken = state.markers[0]
            return [square_name((f, r)) for r in range(state.size) for f in range(state.size)
                    if (f, r) != taken]
        _directioner_seat, _decider, here, there = _seats(state)
        if step == ANNOUNCE:
            return list(_allowed_modes(state.size, state.order, here, there, state.pending))
        return list(_allowed_directions(state.size, state.order, here, there, state.pending))

    def parse_move(self, state: SynchState, seat: Seat, text: str) -> str:
        move = _read(state, seat, text)
        refusal = self._refusal(state, seat, move)
        if refusal is not None:
            raise IllegalMoveError(refusal)
        return move

    def format_move(self, state: SynchState, move: str) -> str:
        return move

    def next_state(self, state: SynchState, seat: Seat, move: str) -> SynchState:
        step = _step(state)
        if step == PLACE:
            square = parse_square(move, state.size, state.size)
            markers = (square, None) if seat == 0 else (state.markers[0], square)
            return replace(state, marks=_draw(state, square, SYMBOLS[seat]), markers=markers)
        if state.pending is None:
            return SynchState(state.size, state.order, state.marks, state.markers,
                              state.move_number, move, state.last)
        if step == ANNOUNCE:
            return _resolved(state, mode=move, direction=state.pending)
        return _resolved(state, mode=state.pending, direction=move)

    def apply_move(self, state: SynchState, seat: Seat, move: str) -> Transition:
        refusal = self._refusal(state, seat, move)
        if refusal is not None:
            raise IllegalMoveError(refusal)
        step = _step(state)
        new = self.next_state(state, seat, move)
        if step == PLACE:
            event = Event("placed", {"seat": seat, "square": move})
        elif state.pending is None:
            kind = "announced" if step == ANNOUNCE else "directed"
            event = Event(kind, {"seat": seat, "choice": move, "move_number": state.move_number})
        else:
            event = Event("moved", _last_move_view(new.last) or {})
        return Transition(new, (event,))

    def outcome(self, state: SynchState) -> Outcome | None:
        # Asked before every move of every playout: most positions are undecided, and are
        # told so without entering English for a reason never worded.
        if not _decided(state):
            return None
        with in_english():  # the reason is stored in the match's result
            return self._outcome(state)

    def _outcome(self, state: SynchState) -> Outcome | None:
        """The outcome with its reason in the language in force (for what is shown now)."""
        if not _decided(state):
            return None
        counts = (state.marks.count(SYMBOLS[0]), state.marks.count(SYMBOLS[1]))
        empty = state.marks.count(EMPTY)
        scores = (float(counts[0]), float(counts[1]))
        if empty == 0:
            if counts[0] == counts[1]:
                return Outcome(frozenset({0, 1}), scores,
                               _("the board is full and both players have %(symbols)s: a draw",
                                 symbols=_symbols(counts[0])))
            winner = 0 if counts[0] > counts[1] else 1
            # The headline already names the winner ("Blue (ann) wins"): the reason says why.
            return Outcome(frozenset({winner}), scores,
                           _("the board is full, with %(symbols)s to %(other)s",
                             symbols=_symbols(counts[winner]), other=counts[1 - winner]))
        # Decided with squares left: one side is ahead by more than the other can catch up.
        seat = 0 if counts[0] > counts[1] else 1
        return Outcome(frozenset({seat}), scores,
                       _catch_up(counts[seat], counts[1 - seat], empty, _seat(1 - seat)))

    def view(self, state: SynchState, seat: Seat | None) -> dict[str, Any]:
        over = self._outcome(state)
        step = OVER if over is not None else _step(state)
        placed = None not in state.markers
        directioner = _directioner(state) if placed and over is None else None
        marks = {square_name((i % state.size, i // state.size)): mark
                 for i, mark in enumerate(state.marks) if mark != EMPTY}
        return {
            "size": state.size,
            "files": FILES[:state.size],
            "order": state.order,
            "marks": marks,
            "markers": [_name(square) for square in state.markers],
            "seats": [self._seat_view(state, s, directioner) for s in (0, 1)],
            "empty": state.marks.count(EMPTY),
            "move_number": state.move_number,
            "step": step,
            "to_move": sorted(self.to_move(state)),
            "directioner": directioner,
            "decider": None if directioner is None else 1 - directioner,
            "pending": state.pending,
            "targets": _targets(state) if directioner is not None else {},
            "last_move": _last_move_view(state.last),
            "highlight": _highlight(state),
            "viewer": seat,
            "status": _status(state, seat, over),
            "result": over.reason if over is not None else None,
        }

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        size = view["size"]
        files = view["files"]
        width = len(str(size))
        lines = [_score_line(view)]
        header = " " * (width + 2) + "".join(f"{f}  " for f in files).rstrip()
        lines.append(header)
        for rank in range(size, 0, -1):
            cells = []
            for file in files:
                square = f"{file}{rank}"
                cells.append(view["marks"].get(square, EMPTY) + _marker_letter(view, square))
            row = " ".join(cells)
            lines.append(f"{rank:>{width}}  {row} {rank}")
        lines.append(header)
        lines.append(_legend(view))
        if view["last_move"] is not None:
            lines.append(_("Last move: %(move)s", move=_describe_moved(view["last_move"])))
        # The status says who owes what this move, unless the match ended before the game did.
        lines.append(_("Match over.") if over and view["result"] is None else view["status"])
        return "\n".join(lines)

    def describe_event(self, event: Event) -> str:
        data = event.data
        if event.kind == "placed":
            seat = data["seat"]
            return _("%(seat)s places the marker on %(square)s and draws %(symbol)s there",
                     seat=_seat(seat), square=data["square"], symbol=SYMBOLS[seat])
        if event.kind == "announced":
            return _("%(seat)s announces %(choice)s", seat=_seat(data["seat"]),
                     choice=data["choice"])
        if event.kind == "directed":
            return _("%(seat)s picks direction %(choice)s", seat=_seat(data["seat"]),
                     choice=data["choice"])
        return _describe_moved(data)

    def dump(self, state: SynchState) -> dict[str, Any]:
        return {
            "size": state.size,
            "order": state.order,
            "marks": state.marks,
            "markers": [_name(square) for square in state.markers],
            "move_number": state.move_number,
            "pending": state.pending,
            "last": _last_move_view(state.last),
        }

    def load(self, data: Mapping[str, Any]) -> SynchState:
        size = data["size"]
        last = data["last"]
        return SynchState(
            size=size, order=data["order"], marks=data["marks"],
            markers=tuple(_square(name, size) for name in data["markers"]),  # type: ignore[arg-type]
            move_number=data["move_number"], pending=data["pending"],
            last=None if last is None else LastMove(
                directioner=last["directioner"], mode=last["mode"],
                direction=last["direction"],
                start=tuple(parse_square(n, size, size) for n in last["from"]),  # type: ignore[arg-type]
                end=tuple(parse_square(n, size, size) for n in last["to"]),  # type: ignore[arg-type]
                drew=tuple(last["drew"]),
            ),
        )

    def position(self, state: SynchState) -> str:
        size = state.size
        ranks = "/".join(state.marks[r * size:(r + 1) * size] for r in range(size - 1, -1, -1))
        blue, red = (_name(square) or "-" for square in state.markers)
        return f"{ranks} {blue} {red} {state.move_number} {state.order} {state.pending or '-'}"

    def from_position(self, text: str) -> SynchState:
        fields = text.split()
        if len(fields) != 6:
            raise RulesError(f"{text!r}: a position has six fields: "
                             "ranks, Blue's marker, Red's marker, move number, order, pending")
        ranks_text, blue, red, number, order, pending = fields
        ranks = ranks_text.split("/")
        size = len(ranks)
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise RulesError(f"{text!r}: the board must have {MIN_SIZE} to {MAX_SIZE} ranks")
        if any(len(rank) != size or set(rank) - {EMPTY, *SYMBOLS} for rank in ranks):
            raise RulesError(f"{text!r}: every rank needs {size} characters, each x, o or .")
        markers = (_square(None if blue == "-" else blue, size),
                   _square(None if red == "-" else red, size))
        if markers[0] is None and markers[1] is not None:
            raise RulesError(f"{text!r}: Blue places the marker before Red")
        if order not in (DECIDER_FIRST, DIRECTIONER_FIRST):
            raise RulesError(f"{text!r}: the order is {DECIDER_FIRST} or {DIRECTIONER_FIRST}")
        if not is_number(number) or len(number) > 9 or int(number) < 1:
            raise RulesError(f"{text!r}: the move number is a whole number from 1")
        state = SynchState(size=size, order=order, marks="".join(reversed(ranks)),
                           markers=markers, move_number=int(number), pending=None)
        if pending != "-":
            first_step = ANNOUNCE if order == DECIDER_FIRST else DIRECT
            seat = _mover(state)
            if (None in markers or _step(state) != first_step
                    or pending not in self.legal_moves(state, seat)):
                raise RulesError(f"{text!r}: {pending!r} cannot be the pending half-move here")
            state = replace(state, pending=pending)
        return state

    def _seat_view(self, state: SynchState, seat: Seat, directioner: Seat | None) -> dict:
        role = None
        if directioner is not None:
            role = "directioner" if seat == directioner else "decider"
        return {
            "seat": seat,
            "label": _seat(seat),
            "symbol": SYMBOLS[seat],
            "colour": COLOURS[seat],
            "symbols": state.marks.count(SYMBOLS[seat]),
            "marker": _name(state.markers[seat]),
            "role": role,
        }

    def _refusal(self, state: SynchState, seat: Seat, move: str) -> str | None:
        """Why `seat` may not play the canonical `move` now, in a player's words; None if legal."""
        over = self._outcome(state)
        if over is not None:
            return _("the game is over: %(reason)s", reason=over.reason)
        if seat != _mover(state):
            return _("it is not your turn: %(waiting)s", waiting=_waiting_for(state))
        step = _step(state)
        kind = _kind(move, state.size)
        if kind != step:
            return _("you cannot play %(move)s now: %(expected)s", move=move,
                     expected=_expected(state))
        if step == PLACE:
            if seat == 1 and parse_square(move, state.size, state.size) == state.markers[0]:
                return _("Red must start on a different square from Blue, and Blue's marker is "
                         "on %(square)s", square=move)
            return None
        if step == ANNOUNCE:
            return _mode_refusal(state, move)
        return _direction_refusal(state, move)


@dataclass(frozen=True)
class LastMove:
    """The last completed move, for highlighting and for the "last move" line."""

    directioner: Seat
    mode: str
    direction: str
    start: tuple[Square, Square]  # each seat's marker before the move
    end: tuple[Square, Square]
    drew: tuple[bool, bool]  # whether each seat drew a symbol


@dataclass(frozen=True)
class SynchState:
    """A position. `marks` holds one character per square, index rank * size + file."""

    size: int
    order: str  # DECIDER_FIRST or DIRECTIONER_FIRST
    marks: str
    markers: tuple[Square | None, Square | None]
    move_number: int  # the move being played, from 1; Blue directs the odd ones
    pending: str | None  # the first half of this move: a mode or a direction
    last: LastMove | None = None
    # `to_move`, found once: the search asks it of every state twice. Not part of the value.
    movers: frozenset[Seat] | None = field(default=None, init=False, repr=False,
                                           compare=False)


NOBODY: frozenset[Seat] = frozenset()
SEAT_ALONE = (frozenset({0}), frozenset({1}))


# Private helpers: the steps of play.


def _directioner(state: SynchState) -> Seat:
    # RULINGS: in move 1 seat 0 is the directioner; roles alternate every move.
    return (state.move_number - 1) % 2


def _decided(state: SynchState) -> bool:
    """Whether the match is over, tested cheaply (no words): both markers placed, and the
    board full or one side ahead by more than the empty squares. `_outcome` words it."""
    if None in state.markers:
        return False
    first, second = state.marks.count(SYMBOLS[0]), state.marks.count(SYMBOLS[1])
    empty = state.marks.count(EMPTY)
    return empty == 0 or abs(first - second) > empty


def _step(state: SynchState) -> str:
    if None in state.markers:
        return PLACE
    first, second = (ANNOUNCE, DIRECT) if state.order == DECIDER_FIRST else (DIRECT, ANNOUNCE)
    return first if state.pending is None else second


def _mover(state: SynchState) -> Seat:
    step = _step(state)
    if step == PLACE:
        return 0 if state.markers[0] is None else 1
    directioner = _directioner(state)
    return directioner if step == DIRECT else 1 - directioner


def _kind(move: str, size: int) -> str:
    if move in MODES:
        return ANNOUNCE
    if move in DIRECTIONS:
        return DIRECT
    if isinstance(move, str):
        parse_square(move, size, size)
        return PLACE
    raise InvalidMoveError(_("%(move)r is not a move", move=move))


def _offset(square: Square, direction: str, sign: int = 1) -> Square:
    df, dr = STEP_OF[direction]
    return square[0] + sign * df, square[1] + sign * dr


def _inside(square: Square, size: int) -> bool:
    return 0 <= square[0] < size and 0 <= square[1] < size


def _sign(mode: str) -> int:
    return 1 if mode == SYNCH else -1


def _seats(state: SynchState) -> tuple[Seat, Seat, Square, Square]:
    directioner = _directioner(state)
    decider = 1 - directioner
    return directioner, decider, state.markers[directioner], state.markers[decider]  # type: ignore[return-value]


def _mode_allowed(size: int, order: str, here: Square, there: Square, pending: str | None,
                  mode: str) -> bool:
    if order == DECIDER_FIRST:
        # RULINGS: only a mode that leaves the directioner at least one legal direction.
        return any(_inside(_offset(here, d), size)
                   and _inside(_offset(there, d, _sign(mode)), size) for d in DIRECTIONS)
    # Variant: the decider must choose a mode that keeps their own marker on the board.
    # The decider only chooses once the directioner has picked, so a direction is pending.
    direction = pending or ""
    way = direction if mode == SYNCH else OPPOSITE[direction]
    return _inside(_offset(there, way), size)


def _direction_allowed(size: int, order: str, here: Square, there: Square,
                       pending: str | None, direction: str) -> bool:
    if not _inside(_offset(here, direction), size):
        return False
    if order == DECIDER_FIRST:
        way = direction if pending == SYNCH else OPPOSITE[direction]
        return _inside(_offset(there, way), size)
    # Variant: some mode must keep the decider on the board.
    return (_inside(_offset(there, direction), size)
            or _inside(_offset(there, direction, -1), size))


# The legal announcements and directions depend on a few small values only, and a game on
# one board size meets few of their combinations: the computer's playouts ask for them
# hundreds of thousands of times a search.
@lru_cache(maxsize=1 << 16)
def _allowed_modes(size: int, order: str, here: Square, there: Square,
                   pending: str | None) -> tuple[str, ...]:
    return tuple(mode for mode in MODES
                 if _mode_allowed(size, order, here, there, pending, mode))


@lru_cache(maxsize=1 << 16)
def _allowed_directions(size: int, order: str, here: Square, there: Square,
                        pending: str | None) -> tuple[str, ...]:
    return tuple(d for d in DIRECTIONS
                 if _direction_allowed(size, order, here, there, pending, d))


def _mode_refusal(state: SynchState, mode: str) -> str | None:
    directioner, _decider, here, there = _seats(state)
    size = state.size
    if _mode_allowed(size, state.order, here, there, state.pending, mode):
        return None
    if state.order == DECIDER_FIRST:
        other = OPPOSITION if mode == SYNCH else SYNCH
        return _("you cannot announce %(mode)s: with %(directioner)s on %(here)s and you on "
                 "%(there)s, no direction would keep both markers on the board; announce "
                 "%(other)s", mode=mode, directioner=_seat(directioner),
                 here=square_name(here), there=square_name(there), other=other)
    direction = state.pending or ""
    way = direction if mode == SYNCH else OPPOSITE[direction]
    other = OPPOSITION if mode == SYNCH else SYNCH
    return _("you cannot move in %(mode)s: %(directioner)s picked %(direction)s, and going "
             "%(way)s from %(there)s would take your marker off the board; choose %(other)s",
             mode=mode, directioner=_seat(directioner), direction=direction, way=way,
             there=square_name(there), other=other)


def _direction_refusal(state: SynchState, direction: str) -> str | None:
    _directioner_seat, decider, here, there = _seats(state)
    size = state.size
    if _direction_allowed(size, state.order, here, there, state.pending, direction):
        return None
    if not _inside(_offset(here, direction), size):
        return _("you cannot go %(direction)s: your marker on %(here)s would leave the board",
                 direction=direction, here=square_name(here))
    if state.order == DECIDER_FIRST:
        mode = state.pending
        way = direction if mode == SYNCH else OPPOSITE[direction]
        return _("you cannot go %(direction)s: %(decider)s announced %(mode)s, so their marker "
                 "on %(there)s would go %(way)s and leave the board", direction=direction,
                 decider=_seat(decider), mode=mode, there=square_name(there), way=way)
    return _("you cannot go %(direction)s: %(decider)s's marker on %(there)s would leave the "
             "board both in synch (%(direction)s) and in opposition (%(opposite)s)",
             direction=direction, decider=_seat(decider), there=square_name(there),
             opposite=OPPOSITE[direction])


def _resolved(state: SynchState, mode: str, direction: str) -> SynchState:
    """Both markers move together and draw as ruled; the roles pass on to the next move."""
    directioner, decider, here, there = _seats(state)
    ends: dict[Seat, Square] = {
        directioner: _offset(here, direction),
        decider: _offset(there, direction, _sign(mode)),
    }
    marks = state.marks
    drew = [False, False]
    same_square = ends[0] == ends[1]
    for seat in (0, 1):
        # Rule text: no symbol when both land on the same empty square or on a marked one.
        index = _index(state, ends[seat])
        if not same_square and state.marks[index] == EMPTY:
            marks = marks[:index] + SYMBOLS[seat] + marks[index + 1:]
            drew[seat] = True
    start = (state.markers[0], state.markers[1])
    end = (ends[0], ends[1])
    last = LastMove(directioner, mode, direction, start, end, (drew[0], drew[1]))  # type: ignore[arg-type]
    # The constructor, not `dataclasses.replace`: the computer's playouts make hundreds of
    # thousands of states a search.
    return SynchState(state.size, state.order, marks, end, state.move_number + 1, None, last)


def _draw(state: SynchState, square: Square, symbol: str) -> str:
    index = _index(state, square)
    return state.marks[:index] + symbol + state.marks[index + 1:]


def _index(state: SynchState, square: Square) -> int:
    return square[1] * state.size + square[0]


def _name(square: Square | None) -> str | None:
    return None if square is None else square_name(square)


def _square(name: str | None, size: int) -> Square | None:
    return None if name is None else parse_square(name, size, size)


# Private helpers: reading moves.


def _read(state: SynchState, seat: Seat, text: str) -> str:
    """The canonical move a player's text names, or InvalidMoveError/AmbiguousMoveError."""
    key = _NOT_WORD.sub("", normalize(text))
    placement = _PLACEMENT.fullmatch(key)
    if placement is not None:
        return square_name(parse_square(placement.group(1), state.size, state.size))
    if key in _WORDS:
        return _WORDS[key]
    candidates = sorted({move for word, move in _WORDS.items()
                         if len(key) >= 2 and word.startswith(key)},
                        key=_vocabulary_order)
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise AmbiguousMoveError(_("%(text)r could mean %(candidates)s: write the one you mean "
                                   "in full", text=text,
                                   candidates=_(" or ").join(candidates)))
    refusal = _("%(text)r is not a move: write a square like e4 to place your marker, synch or "
                "opposition to decide, or a direction N, NE, E, SE, S, SW, W, NW", text=text)
    if seat == _mover(state) and None not in state.markers:
        refusal = f"{refusal}; {_expected(state)}"
    raise InvalidMoveError(refusal)


def _vocabulary_order(move: str) -> int:
    return (MODES + DIRECTIONS).index(move)


# Private helpers: words for players.


def _expected(state: SynchState) -> str:
    """What the player to move must write now."""
    step = _step(state)
    if step == PLACE:
        return _("place your marker first: write a square like e4")
    directioner, decider = _directioner(state), 1 - _directioner(state)
    number = state.move_number
    if step == ANNOUNCE:
        if state.order == DECIDER_FIRST:
            return _("you decide move %(number)s: announce synch or opposition; then "
                     "%(directioner)s picks a direction", number=number,
                     directioner=_seat(directioner))
        return _("you decide move %(number)s: %(directioner)s picked %(pending)s, so choose "
                 "synch or opposition", number=number, directioner=_seat(directioner),
                 pending=state.pending)
    if state.order == DECIDER_FIRST:
        return _("you direct move %(number)s: %(decider)s announced %(pending)s, so pick a "
                 "direction (N, NE, E, SE, S, SW, W or NW)", number=number,
                 decider=_seat(decider), pending=state.pending)
    return _("you direct move %(number)s: pick a direction (N, NE, E, SE, S, SW, W or NW); "
             "then %(decider)s chooses synch or opposition", number=number,
             decider=_seat(decider))


def _waiting_for(state: SynchState) -> str:
    mover = _seat(_mover(state))
    step = _step(state)
    if step == PLACE:
        return _("%(mover)s is to place a marker", mover=mover)
    if step == ANNOUNCE:
        return _("%(mover)s decides move %(number)s (synch or opposition)", mover=mover,
                 number=state.move_number)
    return _("%(mover)s directs move %(number)s and is to pick a direction", mover=mover,
             number=state.move_number)


def _status(state: SynchState, seat: Seat | None, over: Outcome | None) -> str:
    """One sentence for this viewer: the roles of this move and who owes what."""
    if over is not None:
        if len(over.winners) == 1:
            (winner,) = over.winners
            return _("Game over: %(winner)s wins; %(reason)s.", winner=_seat(winner),
                     reason=over.reason)
        return _("Game over: %(reason)s.", reason=over.reason)
    mover = _mover(state)
    if _step(state) == PLACE:
        if seat == mover and mover == 0:
            return _("You place your marker first: choose any square.")
        if seat == mover:
            return _("You place your marker: choose any square except Blue's (%(square)s).",
                     square=square_name(state.markers[0]))  # type: ignore[arg-type]
        return _("%(mover)s is to place a marker.", mover=_seat(mover))
    directioner = _directioner(state)
    decider = 1 - directioner
    if seat == mover:
        expected = _expected(state)
        return _("%(instruction)s.", instruction=expected[0].upper() + expected[1:])
    if seat is not None:
        if seat == directioner:
            return _("You direct move %(number)s; %(waiting)s.", number=state.move_number,
                     waiting=_waiting_for(state))
        return _("You decide move %(number)s; %(waiting)s.", number=state.move_number,
                 waiting=_waiting_for(state))
    return _("Move %(number)s: %(directioner)s directs and %(decider)s decides; %(waiting)s.",
             number=state.move_number, directioner=_seat(directioner), decider=_seat(decider),
             waiting=_waiting_for(state))


def _targets(state: SynchState) -> dict[str, str]:
    """Where the directioner's marker would land in each direction that stays on the board."""
    here = state.markers[_directioner(state)]
    return {d: square_name(_offset(here, d)) for d in DIRECTIONS  # type: ignore[arg-type]
            if _inside(_offset(here, d), state.size)}  # type: ignore[arg-type]


def _highlight(state: SynchState) -> list[str]:
    if state.last is not None:
        return sorted({square_name(s) for s in (*state.last.start, *state.last.end)})
    return sorted(square_name(s) for s in state.markers if s is not None)


def _last_move_view(last: LastMove | None) -> dict[str, Any] | None:
    if last is None:
        return None
    return {
        "directioner": last.directioner,
        "mode": last.mode,
        "direction": last.direction,
        "from": [square_name(s) for s in last.start],
        "to": [square_name(s) for s in last.end],
        "drew": list(last.drew),
    }


def _describe_moved(data: Mapping[str, Any]) -> str:
    directioner = data["directioner"]
    decider = 1 - directioner
    start, end, drew = data["from"], data["to"], data["drew"]
    way = data["direction"] if data["mode"] == SYNCH else OPPOSITE[data["direction"]]
    text = _("%(directioner)s %(start)s-%(end)s %(direction)s, %(decider)s "
             "%(decider_start)s-%(decider_end)s %(way)s in %(mode)s",
             directioner=_seat(directioner), start=start[directioner], end=end[directioner],
             direction=data["direction"], decider=_seat(decider), decider_start=start[decider],
             decider_end=end[decider], way=way, mode=data["mode"])
    drawn = [_("%(seat)s drew %(symbol)s on %(square)s", seat=_seat(s), symbol=SYMBOLS[s],
               square=end[s]) for s in (0, 1) if drew[s]]
    if drawn:
        joined = _(" and ").join(drawn)
        return f"{text}; {joined}"
    if end[0] == end[1]:
        return _("%(move)s; both landed on %(square)s, so nobody drew", move=text,
                 square=end[0])
    return _("%(move)s; nobody drew", move=text)


def _marker_letter(view: Mapping[str, Any], square: str) -> str:
    here = [s for s in (0, 1) if view["markers"][s] == square]
    if len(here) == 2:
        return BOTH_MARKERS
    return MARKER_LETTERS[here[0]] if here else " "


def _symbols(count: int) -> str:
    return ngettext("%(num)s symbol", "%(num)s symbols", count)


def _seat(seat: Seat) -> str:
    return _(SEAT_NAMES[seat])


def _catch_up(mine: int, theirs: int, empty: int, other: str) -> str:
    """Why a player has won before the board is full, in words."""
    if mine == 1:
        return ngettext("%(symbols)s is more than %(other)s's %(theirs)s plus the %(num)s empty "
                        "square, so %(other)s can no longer catch up",
                        "%(symbols)s is more than %(other)s's %(theirs)s plus the %(num)s empty "
                        "squares, so %(other)s can no longer catch up", empty,
                        symbols=_symbols(mine), other=other, theirs=theirs)
    return ngettext("%(symbols)s are more than %(other)s's %(theirs)s plus the %(num)s empty "
                    "square, so %(other)s can no longer catch up",
                    "%(symbols)s are more than %(other)s's %(theirs)s plus the %(num)s empty "
                    "squares, so %(other)s can no longer catch up", empty,
                    symbols=_symbols(mine), other=other, theirs=theirs)


def _score_line(view: Mapping[str, Any]) -> str:
    blue, red = view["seats"]
    line = _("Move %(number)s. %(blue)s (x) %(blue_count)s, %(red)s (o) %(red_count)s, empty "
             "%(empty)s.", number=view["move_number"], blue=_seat(0),
             blue_count=blue["symbols"], red=_seat(1), red_count=red["symbols"],
             empty=view["empty"])
    if view["directioner"] is not None:
        line += " " + _("Directioner: %(directioner)s; decider: %(decider)s.",
                        directioner=_seat(view["directioner"]), decider=_seat(view["decider"]))
    return line


def _legend(view: Mapping[str, Any]) -> str:
    blue, red = view["markers"]
    return _("Markers: B = %(blue)s (%(blue_square)s), R = %(red)s (%(red_square)s), * = both "
             "on one square. Symbols: x = %(blue)s, o = %(red)s, . = empty.", blue=_seat(0),
             blue_square=blue or _("not placed"), red=_seat(1), red_square=red or _("not placed"))
