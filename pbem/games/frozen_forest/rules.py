"""Frozen Forest, by Néstor Romeral Andrés: Yuki the yeti seeks, Mina hides behind trees.

Rules summary (rule text `frozen-forest.txt`, with the rulings of RULINGS.md applied):

- The board is a 10x10 grid of spots, each holding a tree or a white disc (no tree).
- Setup: Yuki chooses any tree; it is eaten (a disc is placed) and he stands there. Then Mina
  chooses any other tree whose line of sight to Yuki is blocked. Yuki then moves first and the
  two alternate.
- Line of sight between Yuki and Mina is blocked iff at least one lattice point strictly
  between them on the straight segment holds a tree. Discs never block; the endpoints never
  count, so the tree Mina stands on never blocks. (So the sight is clear whenever the file and
  rank distances are coprime.)
- Yuki steps to one of his 8 neighbours that holds a tree, is not Mina's spot and has a clear
  line of sight to Mina; he eats that tree.
- Mina moves any distance of at least 1 in a straight line, orthogonally or diagonally
  (option `orthogonal_mina`: orthogonally only), passing trees and discs but not Yuki, and ends
  on a tree or a disc whose line of sight to Yuki is blocked.
- A player with no valid move on their turn (setup included) loses that game.
- Option `forest_size` 10, 9 or 8: smaller forests cover the outer trees with discs before
  play. The covered spots stay on the board without trees (Mina may pass or end on them) and
  are not counted as eaten. The 8x8 forest is b2-i9; the 9x9 forest is a1-i9 (our ruling:
  file j and rank 10 are covered).
- A match is two games with roles swapped: seat 0 is Yuki in game 1, seat 1 in game 2.
  Trees eaten in a game = discs Yuki placed, his setup disc included. One player wins both
  games: they win. Both won as Yuki: fewer trees eaten wins. Both won as Mina: the one who ate
  more trees as Yuki wins. Equal counts: a draw.
- The rule text's 70-disc supply is equipment, not a rule: the rulings list every condition on
  Yuki's step, and running out of discs is not one of them.

Notation: a move is the destination square, since the seat to move is always clear: Yuki's
setup `e5`, Mina's setup `e7`, Yuki's step `d4`, Mina's move `a7`. The parser also accepts any
case, spaces, and the origin written in front (`e5-d4`, `e5d4`, `e5 d4`, en-dashes).

Position text (one line, six fields separated by spaces), e.g. the start of a match:
`TTTTTTTTTT/TTTTTTTTTT/…/TTTTTTTTTT yuki 1 10 any -`
1. the board, rank 10 first, ranks separated by `/`, ten spots per rank from file a to j:
   `T` tree, `.` disc (no tree), `Y` Yuki (always on a disc), `M` Mina on a tree, `m` Mina on
   a disc;
2. the role to move, `yuki` or `mina` (in a finished match, the role that could not move);
3. the game number, `1` or `2`;
4. the forest size, `10`, `9` or `8`;
5. Mina's directions, `any` (orthogonal and diagonal) or `orth` (orthogonal only);
6. the finished games, `-` or comma-separated `winner:trees` with the winning role and the
   trees Yuki ate in that game, e.g. `mina:23` or `mina:23,yuki:17`.

Autoplay: an absent player's move is the first legal square in the order a1, b1, … j1, a2, …
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.games.base import (
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
from pbem.games.notation import FILES, KING_STEPS, ORTHOGONAL_STEPS, Square, normalize
from pbem.i18n import N_, _, ngettext

SIZE = 10  # the board; smaller forests are drawn on it with their outer trees covered
SPOTS = SIZE * SIZE
YUKI = "yuki"
MINA = "mina"
ROLE_NAMES = {YUKI: "Yuki", MINA: "Mina"}
GAMES_PER_MATCH = 2

_MOVE = re.compile(r"([a-z][0-9]{1,2})(?:[-x]?([a-z][0-9]{1,2}))?")
_RESULT = re.compile(r"(yuki|mina):([0-9]{1,3})")


class FrozenForestRules(RulesBase):
    slug = "frozen-forest"
    board_picture = True
    title = "Frozen Forest"
    options = (
        Option("forest_size", 10, N_("trees per side of the forest; smaller forests cover "
                                     "the outer trees with discs before play"),
               choices=(10, 9, 8), label_text=N_("forest size")),
        Option("orthogonal_mina", False, N_("Mina moves orthogonally only, never diagonally"),
               label_text=N_("orthogonal Mina")),
    )

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> ForestState:
        self.check_player_count(players)
        resolved = self.resolve_options(options)
        return _fresh_game(resolved["forest_size"], resolved["orthogonal_mina"], 1, ())

    def to_move(self, state: ForestState) -> frozenset[Seat]:
        if _match_over(state):
            return NOBODY
        return SEATS[_seat_of(state.turn, state.game)]

    def legal_moves(self, state: ForestState, seat: Seat) -> Sequence[Square]:
        if _match_over(state) or seat != _seat_of(state.turn, state.game):
            return []
        return [SQUARES[spot] for spot in _legal_spots(state)]

    def parse_move(self, state: ForestState, seat: Seat, text: str) -> Square:
        found = _MOVE.fullmatch(normalize(text).replace(" ", ""))
        if found is None:
            raise InvalidMoveError(
                _("%(text)r is not a Frozen Forest move: write the square to move to, like e5",
                  text=text))
        first, second = (_parse_spot(found.group(1), text),
                         _parse_spot(found.group(2), text) if found.group(2) else None)
        self._check_turn(state, seat)
        role = ROLE_NAMES[state.turn]
        if second is None:
            target = first
        else:
            current = state.yuki if state.turn == YUKI else state.mina
            if current is None:
                raise IllegalMoveError(
                    _("%(role)s is not in the forest yet: name one square, the tree where "
                      "%(role)s starts", role=role))
            if first != current:
                raise IllegalMoveError(_("%(role)s is on %(square)s, not %(named)s", role=role,
                                         square=_name(current), named=_name(first)))
            target = second
        refusal = _refusal(state, target)
        if refusal is not None:
            raise IllegalMoveError(refusal)
        return _square(target)

    def format_move(self, state: ForestState, move: Square) -> str:
        return _name(_spot(move))

    def next_state(self, state: ForestState, seat: Seat, move: Square) -> ForestState:
        moved = _moved(state, move[0] + SIZE * move[1])
        if _legal_spots(moved):
            return moved
        return _after_game(moved)

    def apply_move(self, state: ForestState, seat: Seat, move: Square) -> Transition:
        self._check_turn(state, seat)
        spot = _spot(move)
        events: list[Event] = []
        origin = state.yuki if state.turn == YUKI else state.mina
        moved = _moved(state, spot)
        data: dict[str, Any] = {"game": state.game, "seat": seat, "role": state.turn,
                                "to": _name(spot), "eaten": _eaten(moved)}
        if origin is None:
            events.append(Event("placed", data))
        else:
            events.append(Event("moved", {**data, "from": _name(origin)}))
        if _legal_spots(moved):
            return Transition(moved, tuple(events))
        return self._end_game(moved, events)

    def outcome(self, state: ForestState) -> Outcome | None:
        if not _match_over(state):
            return None
        with in_english():  # stored in the match's result and in the match_over event
            winners, reason = _match_result(state.results)
        if len(winners) == 2:
            return Outcome(winners, (0.5, 0.5), reason)
        return Outcome(winners, tuple(1.0 if seat in winners else 0.0 for seat in (0, 1)),
                       reason)

    def view(self, state: ForestState, seat: Seat | None) -> dict[str, Any]:
        over = self.outcome(state)
        to_move = None if over else _seat_of(state.turn, state.game)
        # The last mover is always the other role: in a finished match `turn` is the loser.
        last_role = ROLE_NAMES[_other(state.turn)] if state.last_move else None
        return {
            "seat": seat,
            "game": state.game,
            "forest_size": state.forest_size,
            "orthogonal_mina": state.orthogonal,
            "trees": [_name(spot) for spot in range(SPOTS) if state.trees >> spot & 1],
            "outside": list(_outside(state.forest_size)),
            "yuki": None if state.yuki is None else _name(state.yuki),
            "mina": None if state.mina is None else _name(state.mina),
            "roles": [ROLE_NAMES[_role_of(s, state.game)] for s in (0, 1)],
            "to_move": to_move,
            "to_move_role": None if over else ROLE_NAMES[state.turn],
            "last_move": [_name(spot) for spot in state.last_move],
            "last_move_role": last_role,
            "games": _games_view(state),
            "result": _match_result(state.results)[1] if over else None,
            "previous_game": _previous_view(state),
        }

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        size = view["forest_size"]
        if view["orthogonal_mina"]:
            title = _("Frozen Forest, game %(game)s of %(games)s: %(size)sx%(size)s forest, "
                      "Mina moves orthogonally only", game=view["game"], games=GAMES_PER_MATCH,
                      size=size)
        else:
            title = _("Frozen Forest, game %(game)s of %(games)s: %(size)sx%(size)s forest, "
                      "Mina moves orthogonally or diagonally", game=view["game"],
                      games=GAMES_PER_MATCH, size=size)
        lines = [title]
        previous = view.get("previous_game")
        if previous:
            lines.append(_("Game %(number)s ended in this position:", number=previous["number"]))
            lines.extend(_text_board(previous))
            lines.append(_("Game %(number)s starts in a fresh forest:", number=view["game"]))
        lines.extend(_text_board(view))
        lines.append(_("^ tree   . disc (no tree)   Y Yuki   M Mina"))
        for game in view["games"]:
            lines.append(_("Game %(number)s: Player %(yuki)s is Yuki, Player %(mina)s is Mina; "
                           "%(status)s", number=game["number"], yuki=game["yuki_seat"] + 1,
                           mina=game["mina_seat"] + 1, status=game["status"]))
        if view["last_move"]:
            move = f"{view['last_move_role']} {'-'.join(view['last_move'])}"
            lines.append(_("Last move: %(move)s", move=move))
        if view["result"]:
            lines.append(_("Result: %(result)s", result=view["result"]))
        elif over:
            lines.append(_("Match over."))
        else:
            lines.append(_("To move: %(role)s (Player %(number)s)", role=view["to_move_role"],
                           number=view["to_move"] + 1))
        return "\n".join(lines)

    def describe_event(self, event: Event) -> str:
        data = event.data
        if event.kind == "placed":
            if data["role"] == YUKI:
                return _("Yuki starts on %(square)s and eats its tree", square=data["to"])
            return _("Mina hides on %(square)s", square=data["to"])
        if event.kind == "moved":
            if data["role"] == YUKI:
                return _("Yuki %(origin)s-%(target)s, eating a tree (%(eaten)s eaten)",
                         origin=data["from"], target=data["to"], eaten=data["eaten"])
            return _("Mina %(origin)s-%(target)s", origin=data["from"], target=data["to"])
        if event.kind == "game_over":
            return _("%(loser)s has no valid move: %(winner)s (Player %(number)s) wins game "
                     "%(game)s; Yuki ate %(trees)s", loser=ROLE_NAMES[data["loser_role"]],
                     winner=ROLE_NAMES[data["winner_role"]], number=data["winner_seat"] + 1,
                     game=data["game"], trees=_trees(data["eaten"]))
        if event.kind == "roles_swapped":
            return _("Game %(game)s begins with roles swapped: Player %(yuki)s is Yuki, Player "
                     "%(mina)s is Mina", game=data["game"], yuki=data["yuki_seat"] + 1,
                     mina=data["mina_seat"] + 1)
        if event.kind == "match_over":
            return _shown_reason(str(data["reason"]))
        return super().describe_event(event)

    def move_label(self, state: ForestState, seat: Seat, events: Sequence[Event]) -> str:
        for event in events:
            if event.kind in ("placed", "moved"):
                return ROLE_NAMES[event.data["role"]]
        return self.seat_label(state, seat)

    def seat_label(self, state: ForestState, seat: Seat) -> str:
        # Roles swap between games: once the match is over, a role would name the wrong
        # player for game 1, so the result names players (as its reason does).
        if _match_over(state):
            return _("Player %(number)s", number=seat + 1)
        return ROLE_NAMES[_role_of(seat, state.game)]

    def dump(self, state: ForestState) -> dict[str, Any]:
        return {
            "forest_size": state.forest_size,
            "orthogonal": state.orthogonal,
            "game": state.game,
            "trees": state.trees,
            "yuki": state.yuki,
            "mina": state.mina,
            "turn": state.turn,
            "results": [[result.winner, result.eaten] for result in state.results],
            "last_move": list(state.last_move),
            "previous": None if state.previous is None else [
                state.previous[0], state.previous[1], state.previous[2],
                list(state.previous[3])],
        }

    def load(self, data: Mapping[str, Any]) -> ForestState:
        return ForestState(
            forest_size=data["forest_size"], orthogonal=data["orthogonal"], game=data["game"],
            trees=data["trees"], yuki=data["yuki"], mina=data["mina"], turn=data["turn"],
            results=tuple(GameResult(winner, eaten) for winner, eaten in data["results"]),
            last_move=tuple(data["last_move"]),
            previous=_load_previous(data.get("previous")),
        )

    def position(self, state: ForestState) -> str:
        ranks = []
        for rank in range(SIZE - 1, -1, -1):
            ranks.append("".join(_spot_char(state, file + SIZE * rank) for file in range(SIZE)))
        results = ",".join(f"{result.winner}:{result.eaten}" for result in state.results)
        return " ".join(("/".join(ranks), state.turn, str(state.game), str(state.forest_size),
                         "orth" if state.orthogonal else "any", results or "-"))

    def from_position(self, text: str) -> ForestState:
        """Build a state from its position text; raise RulesError naming what is wrong."""
        fields = text.split()
        if len(fields) != 6:
            raise RulesError(f"a position has 6 fields, not {len(fields)}: {text!r}")
        board, turn, game, size, ways, finished = fields
        if turn not in ROLE_NAMES or game not in ("1", "2") or size not in ("10", "9", "8") \
                or ways not in ("any", "orth"):
            raise RulesError(f"bad role, game, forest size or directions in {text!r}")
        results = () if finished == "-" else tuple(
            _parse_result(item, text) for item in finished.split(","))
        state = ForestState(int(size), ways == "orth", int(game), 0, None, None, turn, results)
        state = _place_board(state, board, text)
        _check_reachable(state, text)
        return state

    def _check_turn(self, state: ForestState, seat: Seat) -> None:
        if _match_over(state):
            raise IllegalMoveError(_("the match is over: both games have been played"))
        to_play = _seat_of(state.turn, state.game)
        if seat != to_play:
            raise IllegalMoveError(_("it is %(role)s's turn (Player %(number)s), not yours",
                                     role=ROLE_NAMES[state.turn], number=to_play + 1))

    def _end_game(self, state: ForestState, events: list[Event]) -> Transition:
        """The role to move in `state` has no valid move, so it loses this game (the rulings)."""
        winner = _other(state.turn)
        result = GameResult(winner, _eaten(state))
        results = (*state.results, result)
        events.append(Event("game_over", {
            "game": state.game, "winner_role": winner, "loser_role": state.turn,
            "winner_seat": _seat_of(winner, state.game), "eaten": result.eaten,
        }))
        after = _after_game(state)
        if state.game < GAMES_PER_MATCH:
            events.append(Event("roles_swapped", {
                "game": after.game, "yuki_seat": _seat_of(YUKI, after.game),
                "mina_seat": _seat_of(MINA, after.game),
            }))
            return Transition(after, tuple(events))
        with in_english():  # stored with the move
            winners, reason = _match_result(results)
        events.append(Event("match_over", {"winners": sorted(winners), "reason": reason}))
        return Transition(after, tuple(events))


@dataclass(frozen=True)
class GameResult:
    """A finished game: the winning role and the trees Yuki ate in it."""

    winner: str
    eaten: int


@dataclass(frozen=True)
class ForestState:
    """A match position. Spots are numbered file + 10 * rank (a1 = 0, j10 = 99)."""

    forest_size: int
    orthogonal: bool  # option orthogonal_mina
    game: int  # 1 or 2
    trees: int  # bit per spot holding a tree
    yuki: int | None  # None before Yuki's setup
    mina: int | None  # None before Mina's setup
    turn: str  # role to move; in a finished match, the role that could not move
    results: tuple[GameResult, ...]  # finished games, in order
    last_move: tuple[int, ...] = ()  # spots to highlight: (to,) for a setup, (from, to)
    # The final position of the game just ended, kept (for pages and replays) until the next
    # game's first move: (trees, yuki, mina, last_move). Not part of the position text.
    previous: tuple[int, int | None, int | None, tuple[int, ...]] | None = None
    # The legal spots of the role to move, found once (`_legal_spots`). Not part of the
    # state's value.
    spots: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)


def _moved(state: ForestState, spot: int) -> ForestState:
    """The role to move gone to `spot` (a legal spot)."""
    # The constructor, not `dataclasses.replace`: the computer's playouts call this hundreds
    # of thousands of times a search, and `replace` costs a fifth of it.
    if state.turn == YUKI:
        origin = state.yuki
        return ForestState(state.forest_size, state.orthogonal, state.game,
                           state.trees & ~(1 << spot), spot, state.mina, MINA,
                           state.results, (spot,) if origin is None else (origin, spot))
    origin = state.mina
    return ForestState(state.forest_size, state.orthogonal, state.game, state.trees,
                       state.yuki, spot, YUKI, state.results,
                       (spot,) if origin is None else (origin, spot))


def _after_game(state: ForestState) -> ForestState:
    """The role to move in `state` has no valid move, so it loses this game (the rulings):
    the next game's start, or the finished match."""
    results = (*state.results, GameResult(_other(state.turn), _eaten(state)))
    if state.game < GAMES_PER_MATCH:
        return replace(
            _fresh_game(state.forest_size, state.orthogonal, state.game + 1, results),
            previous=(state.trees, state.yuki, state.mina, state.last_move))
    return replace(state, results=results)


# --- helpers: geometry ---------------------------------------------------------------------

def _square(spot: int) -> Square:
    return spot % SIZE, spot // SIZE


def _spot(square: Square) -> int:
    return square[0] + SIZE * square[1]


def _name(spot: int) -> str:
    return f"{FILES[spot % SIZE]}{spot // SIZE + 1}"


def _between_masks() -> tuple[int, ...]:
    """For every ordered pair of spots, the lattice points strictly between them, as bits."""
    masks = []
    for a in range(SPOTS):
        for b in range(SPOTS):
            dx, dy = b % SIZE - a % SIZE, b // SIZE - a // SIZE
            steps = math.gcd(dx, dy)
            mask = 0
            for k in range(1, steps):
                mask |= 1 << (a + (dx // steps) * k + SIZE * (dy // steps) * k)
            masks.append(mask)
    return tuple(masks)


_BETWEEN = _between_masks()


def _sight_blocked(trees: int, a: int, b: int) -> bool:
    return bool(trees & _BETWEEN[a * SPOTS + b])


@functools.cache  # every view and move asks; there are three sizes
def _forest_mask(size: int) -> int:
    low = (SIZE - size) // 2  # 8x8 is b2-i9; 9x9 is a1-i9
    mask = 0
    for rank in range(low, low + size):
        for file in range(low, low + size):
            mask |= 1 << (file + SIZE * rank)
    return mask


@functools.cache
def _outside(size: int) -> tuple[str, ...]:
    """The spots outside a forest of `size` (covered by discs), by name."""
    forest = _forest_mask(size)
    return tuple(_name(spot) for spot in range(SPOTS) if not forest >> spot & 1)


def _line_steps(a: int, b: int) -> tuple[int, int, int] | None:
    """(file step, rank step, distance) if b is a queen's move from a, else None."""
    dx, dy = b % SIZE - a % SIZE, b // SIZE - a // SIZE
    if (dx, dy) == (0, 0) or (dx and dy and abs(dx) != abs(dy)):
        return None
    return (dx > 0) - (dx < 0), (dy > 0) - (dy < 0), max(abs(dx), abs(dy))


# --- helpers: rules ------------------------------------------------------------------------

def _fresh_game(size: int, orthogonal: bool, game: int,
                results: tuple[GameResult, ...]) -> ForestState:
    return ForestState(size, orthogonal, game, _forest_mask(size), None, None, YUKI, results)


def _match_over(state: ForestState) -> bool:
    return len(state.results) == GAMES_PER_MATCH


def _seat_of(role: str, game: int) -> Seat:
    yuki_seat = game - 1  # seat 0 is Yuki in game 1, seat 1 in game 2
    return yuki_seat if role == YUKI else 1 - yuki_seat


def _role_of(seat: Seat, game: int) -> str:
    return YUKI if seat == game - 1 else MINA


def _other(role: str) -> str:
    return MINA if role == YUKI else YUKI


def _eaten(state: ForestState) -> int:
    # Only Yuki removes trees, and covered outer spots never held one (the rulings).
    return state.forest_size ** 2 - state.trees.bit_count()


def _legal_spots(state: ForestState) -> tuple[int, ...]:
    """The spots the role to move may go to, in the order a1, b1, … j1, a2, …"""
    # `apply_move` asks for the next position's spots (has the game ended?) and the caller
    # then asks `legal_moves` for the same position: the computer's playouts do this hundreds
    # of thousands of times a search, so the answer is kept on the state.
    spots = state.spots
    if spots is None:
        spots = tuple(_find_spots(state.trees, state.yuki, state.mina, state.turn,
                                  state.orthogonal))
        # Frozen, but this field only caches a pure function of the others.
        object.__setattr__(state, "spots", spots)
    return spots


def _find_spots(trees: int, yuki: int | None, mina: int | None, turn: str,
                orthogonal: bool) -> list[int]:
    between = _BETWEEN
    if yuki is None:
        return [spot for spot in range(SPOTS) if trees >> spot & 1]
    if mina is None:
        return [spot for spot in range(SPOTS)
                if trees >> spot & 1 and _sight_blocked(trees, yuki, spot)]
    if turn == YUKI:
        return [spot for spot in NEIGHBOURS[yuki]
                if trees >> spot & 1 and spot != mina
                and not trees & between[spot * SPOTS + mina]]
    spots = []
    seen_from = yuki * SPOTS
    for ray in RAYS[orthogonal][mina]:
        for spot in ray:
            if spot == yuki:
                break  # Mina may not pass Yuki
            if trees & between[seen_from + spot]:
                spots.append(spot)
    spots.sort()
    return spots


# Built once, for the computer's playouts: each spot's neighbours in ascending order, the
# spots from which Mina slides (orthogonally only, or also diagonally) as rays going out,
# and each spot's square.
NEIGHBOURS = tuple(tuple(sorted(
    spot % SIZE + dx + SIZE * (spot // SIZE + dy) for dx, dy in KING_STEPS
    if 0 <= spot % SIZE + dx < SIZE and 0 <= spot // SIZE + dy < SIZE)) for spot in range(SPOTS))
RAYS = tuple(tuple(tuple(
    tuple(file + dx * k + SIZE * (rank + dy * k) for k in range(1, SIZE)
          if 0 <= file + dx * k < SIZE and 0 <= rank + dy * k < SIZE)
    for dx, dy in (ORTHOGONAL_STEPS if orthogonal else KING_STEPS))
    for spot in range(SPOTS) for file, rank in [(spot % SIZE, spot // SIZE)])
    for orthogonal in (False, True))
SQUARES = tuple((spot % SIZE, spot // SIZE) for spot in range(SPOTS))
NOBODY: frozenset[Seat] = frozenset()
SEATS = (frozenset({0}), frozenset({1}))


def _neighbours(spot: int) -> list[int]:
    file, rank = spot % SIZE, spot // SIZE
    return [file + dx + SIZE * (rank + dy) for dx, dy in KING_STEPS
            if 0 <= file + dx < SIZE and 0 <= rank + dy < SIZE]


def _refusal(state: ForestState, target: int) -> str | None:
    """Why the role to move may not go to `target`, in a player's words; None if it may."""
    if state.yuki is None:
        return _yuki_setup_refusal(state, target)
    if state.mina is None:
        return _mina_setup_refusal(state, state.yuki, target)
    if state.turn == YUKI:
        return _yuki_step_refusal(state, state.yuki, state.mina, target)
    return _mina_move_refusal(state, state.yuki, state.mina, target)


def _yuki_setup_refusal(state: ForestState, target: int) -> str | None:
    if state.trees >> target & 1:
        return None
    size = state.forest_size
    return _("%(square)s is outside the %(size)sx%(size)s forest (a disc covers it): Yuki "
             "must start on a tree", square=_name(target), size=size)


def _mina_setup_refusal(state: ForestState, yuki: int, target: int) -> str | None:
    if target == yuki:
        return _("Yuki is on %(square)s: Mina must hide on another tree", square=_name(target))
    if not state.trees >> target & 1:
        return _("%(square)s has no tree (a disc covers it): Mina must start on a tree",
                 square=_name(target))
    if not _sight_blocked(state.trees, yuki, target):
        return _seen(yuki, target)
    return None


def _yuki_step_refusal(state: ForestState, yuki: int, mina: int, target: int) -> str | None:
    if target == yuki:
        return _("Yuki is already on %(square)s: he must step to a neighbouring tree",
                 square=_name(target))
    if target not in _neighbours(yuki):
        return _("Yuki moves one space: %(square)s is not next to %(yuki)s",
                 square=_name(target), yuki=_name(yuki))
    if target == mina:
        return _("Mina is on %(square)s: Yuki cannot step onto her spot", square=_name(target))
    if not state.trees >> target & 1:
        return _("%(square)s has no tree (a disc covers it): Yuki only steps onto trees",
                 square=_name(target))
    blockers = state.trees & _BETWEEN[target * SPOTS + mina]
    if blockers:
        names = [_name(spot) for spot in range(SPOTS) if blockers >> spot & 1]
        if len(names) == 1:
            return _("from %(square)s Yuki would not see Mina on %(mina)s: the tree on "
                     "%(trees)s blocks the line of sight", square=_name(target),
                     mina=_name(mina), trees=names[0])
        return _("from %(square)s Yuki would not see Mina on %(mina)s: the trees on "
                 "%(trees)s block the line of sight", square=_name(target), mina=_name(mina),
                 trees=", ".join(names))
    return None


def _mina_move_refusal(state: ForestState, yuki: int, mina: int, target: int) -> str | None:
    if target == mina:
        return _("Mina is already on %(square)s: she must move at least one space",
                 square=_name(target))
    if target == yuki:
        return _("Yuki is on %(square)s: Mina cannot end her move there", square=_name(target))
    line = _line_steps(mina, target)
    if state.orthogonal and line is not None and line[0] and line[1]:
        return _("in this match Mina moves orthogonally only: %(square)s is diagonal from "
                 "%(mina)s", square=_name(target), mina=_name(mina))
    if line is None:
        if state.orthogonal:
            return _("Mina moves in a straight line, orthogonally only in this match: "
                     "%(square)s is not in the same file or rank as %(mina)s",
                     square=_name(target), mina=_name(mina))
        return _("Mina moves in a straight line, orthogonally or diagonally: %(square)s is "
                 "not in line with %(mina)s", square=_name(target), mina=_name(mina))
    dx, dy, distance = line
    if any(mina + (dx + SIZE * dy) * k == yuki for k in range(1, distance)):
        return _("Mina cannot pass Yuki: he stands on %(yuki)s, between %(mina)s and "
                 "%(square)s", yuki=_name(yuki), mina=_name(mina), square=_name(target))
    if not _sight_blocked(state.trees, yuki, target):
        return _seen(yuki, target)
    return None


def _seen(yuki: int, target: int) -> str:
    return _("Mina cannot hide on %(square)s: Yuki on %(yuki)s would see her, as no tree "
             "stands between them (discs do not block)", square=_name(target), yuki=_name(yuki))


def _match_result(results: tuple[GameResult, ...]) -> tuple[frozenset[Seat], str]:
    """Winners and the reason, comparing the two games as the rulings say."""
    first, second = results
    winner_1, winner_2 = _seat_of(first.winner, 1), _seat_of(second.winner, 2)
    ate_0, ate_1 = first.eaten, second.eaten  # seat 0 was Yuki in game 1, seat 1 in game 2
    if winner_1 == winner_2:
        return frozenset({winner_1}), _reason_words(None, 0, 0, winner_1)
    # Both won as Yuki: fewer trees eaten wins; both as Mina: more trees eaten as Yuki wins.
    fewer_wins = first.winner == YUKI
    better = 0 if (ate_0 < ate_1 if fewer_wins else ate_0 > ate_1) else 1
    if ate_0 == ate_1:
        return frozenset({0, 1}), _reason_words(first.winner, ate_0, ate_1, None)
    return frozenset({better}), _reason_words(first.winner, ate_0, ate_1, better)


def _reason_words(both_won_as: str | None, ate_0: int, ate_1: int, winner: Seat | None) -> str:
    """The match's result in words: `both_won_as` is None when one player won both games."""
    if both_won_as is None:
        return _("Player %(number)s won both games, as Yuki and as Mina: a hide-and-seek "
                 "master", number=(winner or 0) + 1)
    counts = _("Player 1 ate %(trees_1)s as Yuki, Player 2 ate %(trees_2)s",
               trees_1=_trees(ate_0), trees_2=_trees(ate_1))
    if both_won_as == YUKI:
        rule = _("both players won as Yuki, so fewer trees eaten wins")
    else:
        rule = _("both players won as Mina, so more trees eaten as Yuki wins")
    if winner is None:
        return _("%(rule)s; %(counts)s: a draw", rule=rule, counts=counts)
    return _("%(rule)s; %(counts)s: Player %(number)s wins", rule=rule, counts=counts,
             number=winner + 1)


_MASTER = re.compile(r"Player ([12]) won both games, as Yuki and as Mina: a hide-and-seek master")
_COMPARED = re.compile(r"both players won as (Yuki|Mina), [^;]*; Player 1 ate ([0-9]+) trees? as "
                       r"Yuki, Player 2 ate ([0-9]+) trees?: (?:a draw|Player ([12]) wins)")


def _shown_reason(reason: str) -> str:
    """A match_over event's stored (English) reason in the reader's language."""
    found = _MASTER.fullmatch(reason)
    if found:
        return _reason_words(None, 0, 0, int(found.group(1)) - 1)
    found = _COMPARED.fullmatch(reason)
    if found:
        winner = None if found.group(4) is None else int(found.group(4)) - 1
        return _reason_words(YUKI if found.group(1) == "Yuki" else MINA, int(found.group(2)),
                             int(found.group(3)), winner)
    return reason


def _trees(count: int) -> str:
    return ngettext("%(num)s tree", "%(num)s trees", count)


# --- helpers: views and position text ------------------------------------------------------

def _games_view(state: ForestState) -> list[dict[str, Any]]:
    games = []
    for number in range(1, GAMES_PER_MATCH + 1):
        entry: dict[str, Any] = {
            "number": number, "yuki_seat": _seat_of(YUKI, number),
            "mina_seat": _seat_of(MINA, number), "trees_eaten": None, "winner_role": None,
            "winner_seat": None,
        }
        if number <= len(state.results):
            result = state.results[number - 1]
            winner_seat = _seat_of(result.winner, number)
            entry.update(trees_eaten=result.eaten, winner_role=ROLE_NAMES[result.winner],
                         winner_seat=winner_seat,
                         status=_("won by %(role)s (Player %(number)s); Yuki ate %(trees)s",
                                  role=ROLE_NAMES[result.winner], number=winner_seat + 1,
                                  trees=_trees(result.eaten)))
        elif number == state.game:
            entry.update(trees_eaten=_eaten(state),
                         status=_("in progress; %(trees)s eaten so far",
                                  trees=_trees(_eaten(state))))
        else:
            entry["status"] = _("not started")
        games.append(entry)
    return games


def _previous_view(state: ForestState) -> dict[str, Any] | None:
    if state.previous is None:
        return None
    trees, yuki, mina, last_move = state.previous
    return {"number": state.game - 1,
            "trees": [_name(spot) for spot in range(SPOTS) if trees >> spot & 1],
            "outside": list(_outside(state.forest_size)),
            "yuki": None if yuki is None else _name(yuki),
            "mina": None if mina is None else _name(mina),
            "last_move": [_name(spot) for spot in last_move]}


def _load_previous(data: Any) -> tuple[int, int | None, int | None, tuple[int, ...]] | None:
    if data is None:
        return None
    trees, yuki, mina, last_move = data
    return trees, yuki, mina, tuple(last_move)


def _text_board(view: Mapping[str, Any]) -> list[str]:
    trees = set(view["trees"])
    header = "    " + " ".join(FILES[:SIZE])
    lines = [header]
    for rank in range(SIZE, 0, -1):
        cells = []
        for file in FILES[:SIZE]:
            square = f"{file}{rank}"
            if square == view["yuki"]:
                cells.append("Y")
            elif square == view["mina"]:
                cells.append("M")
            else:
                cells.append("^" if square in trees else ".")
        lines.append(f"{rank:>3} {' '.join(cells)} {rank}")
    lines.append(header)
    return lines


def _spot_char(state: ForestState, spot: int) -> str:
    tree = state.trees >> spot & 1
    if spot == state.yuki:
        return "Y"
    if spot == state.mina:
        return "M" if tree else "m"
    return "T" if tree else "."


def _parse_spot(text: str, original: str) -> int:
    file, rank = FILES.index(text[0]), int(text[1:]) - 1
    if file >= SIZE or not 0 <= rank < SIZE:
        raise InvalidMoveError(_("%(text)r: %(square)s is not on the board (a1 to j10)",
                                 text=original, square=text))
    return file + SIZE * rank


def _parse_result(item: str, text: str) -> GameResult:
    found = _RESULT.fullmatch(item)
    if found is None:
        raise RulesError(f"bad finished game {item!r} (write it like mina:23) in {text!r}")
    return GameResult(found.group(1), int(found.group(2)))


def _place_board(state: ForestState, board: str, text: str) -> ForestState:
    ranks = board.split("/")
    if len(ranks) != SIZE or any(len(rank) != SIZE for rank in ranks):
        raise RulesError(f"the board needs {SIZE} ranks of {SIZE} spots: {text!r}")
    trees, yuki, mina = 0, [], []
    for row, line in enumerate(ranks):
        for file, char in enumerate(line):
            spot = file + SIZE * (SIZE - 1 - row)
            if char not in "T.YMm":
                raise RulesError(f"unknown spot {char!r} on {_name(spot)} in {text!r}")
            if char in "TM":
                trees |= 1 << spot
            if char == "Y":
                yuki.append(spot)
            if char in "Mm":
                mina.append(spot)
    if len(yuki) > 1 or len(mina) > 1:
        raise RulesError(f"there is one Yuki and one Mina: {text!r}")
    return replace(state, trees=trees, yuki=yuki[0] if yuki else None,
                   mina=mina[0] if mina else None)


def _check_reachable(state: ForestState, text: str) -> None:
    """Refuse positions play cannot reach, so that every seat to move has a move."""
    problem = None
    finished = len(state.results)
    if state.trees & ~_forest_mask(state.forest_size):
        problem = "a tree stands outside the forest"
    elif finished != state.game - 1 and not (state.game == GAMES_PER_MATCH
                                             and finished == GAMES_PER_MATCH):
        problem = "the finished games do not match the game number"
    elif state.yuki is None and (state.mina is not None or state.turn != YUKI
                                 or state.trees != _forest_mask(state.forest_size)):
        problem = "before Yuki's setup the forest is untouched and Yuki is to move"
    elif state.yuki is not None and not _forest_mask(state.forest_size) >> state.yuki & 1:
        problem = "Yuki only ever stands where a tree of the forest was"
    elif state.yuki is not None and state.mina is None and state.turn != MINA:
        problem = "after Yuki's setup, Mina is to move"
    elif _match_over(state):
        last = state.results[-1]
        if _legal_spots(state) or last.winner == state.turn or last.eaten != _eaten(state):
            problem = "a finished match ends with the loser to move, stuck, and its count"
    elif not _legal_spots(state):
        problem = f"{ROLE_NAMES[state.turn]} is to move but has no valid move"
    if problem is not None:
        raise RulesError(f"not a reachable position ({problem}): {text!r}")
