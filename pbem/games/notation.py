"""Helpers shared by the games' notation parsers and square boards.

Players type moves into email replies and phones, so parsers accept any case, stray spaces and
dashes of every kind. Coordinates follow RULINGS.md: files a, b, c… left to right as seen by
seat 0, ranks 1, 2… from seat 0's side.
"""

from __future__ import annotations

import re

from pbem.games.base import InvalidMoveError
from pbem.i18n import _

FILES = "abcdefghijklmnopqrstuvwxyz"

Square = tuple[int, int]  # (file index, rank index), both 0-based

_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-",
                         "\u2014": "-", "\u2015": "-", "\u2212": "-", "\u00d7": "x"})
_SQUARE = re.compile(r"([a-z])([0-9]{1,2})")


def normalize(text: str) -> str:
    """Lower-case, unify dashes and multiplication signs, collapse runs of white space."""
    return " ".join(text.translate(_DASHES).lower().split())


def is_number(text: str) -> bool:
    """ASCII digits only: `str.isdigit` also accepts "²" and "٣", which `int` then refuses."""
    return text.isascii() and text.isdigit()


def square_name(square: Square) -> str:
    file, rank = square
    return f"{FILES[file]}{rank + 1}"


def parse_square(text: str, files: int, ranks: int) -> Square:
    """Parse "e4" on a board of the given size; raise InvalidMoveError naming the problem."""
    match = _SQUARE.fullmatch(text.strip().lower())
    if match is None:
        raise InvalidMoveError(_("%(text)r is not a square (write it like e4)", text=text))
    file = FILES.index(match.group(1))
    rank = int(match.group(2)) - 1
    if file >= files or not 0 <= rank < ranks:
        last = square_name((files - 1, ranks - 1))
        raise InvalidMoveError(_("%(text)r is not on the board (a1 to %(last)s)", text=text,
                                 last=last))
    return file, rank


def find_squares(text: str) -> list[str]:
    """Every square-like token in a move text, in order: "e2 - e3" and "e2e3" give [e2, e3]."""
    return [f"{letter}{digits}" for letter, digits in _SQUARE.findall(normalize(text))]


def on_board(square: Square, files: int, ranks: int) -> bool:
    return 0 <= square[0] < files and 0 <= square[1] < ranks


KING_STEPS: tuple[Square, ...] = (
    (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1),
)
ORTHOGONAL_STEPS: tuple[Square, ...] = ((0, 1), (1, 0), (0, -1), (-1, 0))
