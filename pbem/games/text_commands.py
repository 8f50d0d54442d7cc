"""Text mode's commands: questions a player types instead of looking at the board ("row 3",
"square b2", "pieces B", "moves", …), answered in a line of the reader's language.

Pure: a command reads a `Reading` (the game's own text drawing of the seat's view, which
the email shows too, the legal moves, the last moves and the clocks) and answers in words.
The board commands work for every game drawn on a grid (a line of file letters, then one line
a rank, number first), so a new board game has them at once. A game adds its own commands in
its folder, as `text_commands.py` with `COMMANDS` (a name: `Command` mapping, and `HELP`, a
name: one-line help mapping): Mimic Taking's hand, trick, scores and cards played. Command
names are English, like the commands of a reply by email; what they answer is translated.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from types import ModuleType
from typing import Any

from pbem.i18n import N_, _, ngettext


@dataclass(frozen=True)
class Reading:
    """What a seat's text mode knows: `text`, the game's drawing of the seat's view
    (`render_text`); `legal`, the seat's legal moves now; `moves`, the moves so far as
    (player, move) pairs, oldest first, `first` the number of the oldest (a page of the move
    list may start late); `clocks`, one line a player."""

    text: str
    legal: Sequence[str] = ()
    moves: Sequence[tuple[str, str]] = ()
    clocks: Sequence[str] = ()
    view: Mapping[str, Any] = field(default_factory=dict)
    first: int = 1


Command = Callable[[Reading, str], str]
_GRID_ROW = re.compile(r"^\s*(\d{1,2})\s")
_FILES = re.compile(r"^\s+([a-s])(\s+[a-s])*\s*$")
_SQUARE = re.compile(r"^([a-s])(\d{1,2})$")


def answer(package: str, reading: Reading, line: str) -> str | None:
    """The answer to `line` if it is a command of the game in `package` (its rules' package,
    such as "pbem.games.mimic"), else None: the line is then a move."""
    name, _space, argument = line.strip().partition(" ")
    if name.lower() == "help":
        return " ".join(_("%(name)s: %(help)s.", name=name, help=text)
                        for name, text in help_lines(package))
    command = commands(package).get(name.lower())
    return None if command is None else command(reading, argument.strip())


def commands(package: str) -> dict[str, Command]:
    return {**_COMMON, **(_GRID if _is_grid(package) else {}), **_own(package)[0]}


def help_lines(package: str) -> list[tuple[str, str]]:
    """Each command with its help, translated: for the page and the rules page."""
    own = _own(package)[1]
    helps = {**_COMMON_HELP, **(_GRID_HELP if _is_grid(package) else {}), **own}
    return [(name, _(text)) for name, text in helps.items()]


# --- the commands every game has ------------------------------------------------------------

def _board(reading: Reading, _argument: str) -> str:
    return reading.text


def _legal(reading: Reading, _argument: str) -> str:
    if not reading.legal:
        return _("You have no move to make now.")
    return ngettext("%(num)s legal move: %(moves)s.", "%(num)s legal moves: %(moves)s.",
                    len(reading.legal), moves=", ".join(reading.legal))


def _last(reading: Reading, argument: str) -> str:
    count = int(argument) if argument.isdigit() and 0 < int(argument) <= 50 else 5
    shown = list(reading.moves)[-count:]
    if not shown:
        return _("No move has been made yet.")
    first = reading.first + len(reading.moves) - len(shown)
    return "; ".join(_("%(number)s. %(player)s %(move)s", number=first + i, player=player,
                       move=move) for i, (player, move) in enumerate(shown)) + "."


def _clocks(reading: Reading, _argument: str) -> str:
    return " ".join(reading.clocks) or _("No clock runs in this match.")


# --- the board commands of a game drawn on a grid --------------------------------------------

def _row(reading: Reading, argument: str) -> str:
    grid = _read_grid(reading.text)
    squares = [square for square in grid if square[1:] == argument.strip()]
    if not squares:
        return _("There is no row %(row)r: give a number from the board's edge, like 3.",
                 row=argument[:10])
    return _("Row %(row)s: %(squares)s.", row=argument.strip(),
             squares=_listing(grid, squares))


def _column(reading: Reading, argument: str) -> str:
    grid = _read_grid(reading.text)
    wanted = argument.strip().lower()
    squares = [square for square in grid if square[0] == wanted and len(wanted) == 1]
    if not squares:
        return _("There is no column %(column)r: give a letter from the board's edge, like "
                 "c.", column=argument[:10])
    squares.sort(key=lambda square: int(square[1:]))
    return _("Column %(column)s: %(squares)s.", column=wanted, squares=_listing(grid, squares))


def _square(reading: Reading, argument: str) -> str:
    grid = _read_grid(reading.text)
    square = argument.strip().lower()
    if square not in grid:
        return _("There is no square %(square)r on this board: name one like b2.",
                 square=argument[:10])
    return _("%(square)s: %(what)s.", square=square, what=_what(grid[square]))


def _pieces(reading: Reading, argument: str) -> str:
    grid = _read_grid(reading.text)
    symbol = argument.strip()
    if not symbol:
        return _("Name a symbol from the board's key, like pieces B (the key: type key).")
    found = [square for square, token in grid.items()
             if token.rstrip("0123456789").lower() == symbol.lower()
             or token.lower() == symbol.lower()]
    if not found:
        return _("No square holds %(symbol)s.", symbol=symbol[:10])
    return ngettext("%(symbol)s on %(num)s square: %(squares)s.",
                    "%(symbol)s on %(num)s squares: %(squares)s.", len(found), symbol=symbol,
                    squares=", ".join(f"{square} {grid[square]}" for square in found))


def _key(reading: Reading, _argument: str) -> str:
    lines = reading.text.splitlines()
    header = [i for i, text in enumerate(lines) if _FILES.match(text)]
    after = lines[header[-1] + 1:] if header else lines
    before = lines[:header[0]] if header else []
    return " ".join(text.strip() for text in [*before, *after] if text.strip())


def _read_grid(text: str) -> dict[str, str]:
    """Each square of a text drawing with what stands on it ("." for nothing): the file
    letters' columns in the header line say where each file's cell starts."""
    lines = text.splitlines()
    header = next((line for line in lines if _FILES.match(line)), None)
    if header is None:
        return {}
    starts = {match.start(): match.group(0) for match in re.finditer(r"[a-s]", header)}
    grid: dict[str, str] = {}
    for line in lines:
        row = _GRID_ROW.match(line)
        if row is None:
            continue
        for start, letter in starts.items():
            cell = line[start:].split(" ", 1)[0] if len(line) > start else ""
            # A cell may start a column early or late by one (a two-digit rank's indent).
            grid[f"{letter}{row.group(1)}"] = cell or "."
    return grid


def _listing(grid: Mapping[str, str], squares: Sequence[str]) -> str:
    taken = [f"{square} {grid[square]}" for square in squares if grid[square] != "."]
    empty = len(squares) - len(taken)
    words = taken + ([ngettext("%(num)s empty", "%(num)s empty", empty)] if empty else [])
    return ", ".join(words)


def _what(token: str) -> str:
    return _("empty") if token == "." else token


def _is_grid(package: str) -> bool:
    return _own(package)[2]


@cache
def _own(package: str) -> tuple[dict[str, Command], dict[str, str], bool]:
    """A game's own commands and help (its folder's `text_commands.py`), and whether it is
    drawn on a grid (it says `GRID = False` there when not)."""
    module: ModuleType | None
    try:
        module = importlib.import_module(f"{package}.text_commands")
    except ModuleNotFoundError as error:
        if error.name != f"{package}.text_commands":
            raise
        module = None
    return (dict(getattr(module, "COMMANDS", {})), dict(getattr(module, "HELP", {})),
            bool(getattr(module, "GRID", True)))


_COMMON: dict[str, Command] = {"board": _board, "moves": _legal, "last": _last,
                               "clocks": _clocks}
_COMMON_HELP = {
    "help": N_("every command, as here"),
    "board": N_("the whole position as text"),
    "moves": N_("your legal moves now"),
    "last": N_("the last moves (last 10: the last ten)"),
    "clocks": N_("each player's time left"),
}
_GRID: dict[str, Command] = {"row": _row, "column": _column, "square": _square,
                             "pieces": _pieces, "key": _key}
_GRID_HELP = {
    "row": N_("what stands on a row, e.g. row 3"),
    "column": N_("what stands on a column, e.g. column c"),
    "square": N_("what stands on a square, e.g. square b2"),
    "pieces": N_("the squares holding a symbol of the key, e.g. pieces B"),
    "key": N_("what the board's symbols mean, and whose turn it is"),
}
