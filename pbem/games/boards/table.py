"""A square board as an HTML table, for email: Gmail and Outlook show no SVG.

Built in Python rather than by a template loop, which would look up every cell by name on
every mail.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

FILES = "abcdefghijklmnopqrs"
HIGHLIGHT = "#f2d14b"
DARK, LIGHT = "#d9c6a0", "#ece0c6"


def board_table(files: int, ranks: int, cells: Mapping[str, Any] | Callable[[str], Any],
                highlight: Collection[str] = (), flip: bool = False) -> Markup:
    """The board with `cells[square]` (HTML) in each cell; `flip` puts rank 1 at the top and
    file a on the right, as seat 1 sees its board on the web."""
    lookup: Callable[[str], Any] = cells.get if isinstance(cells, Mapping) else cells
    marked = set(highlight)
    parts = [_TABLE]
    for head, row in _layout(files, ranks, flip):
        parts.append(head)
        for square, plain in row:
            content = lookup(square)
            parts.append(_MARKED if square in marked else plain)
            if content is not None:
                parts.append(escape(content))
            parts.append("</td>")
        parts.append("</tr>\n")
    parts.append(_footer(files, flip))
    return Markup("".join(parts))


_TABLE = ('<table cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;'
          'font-family:monospace;font-size:14px">')
_CELL = '<td width="28" height="28" align="center" bgcolor="{}">'
_MARKED = _CELL.format(HIGHLIGHT)


@lru_cache(maxsize=64)
def _layout(files: int, ranks: int, flip: bool) -> tuple[tuple[str, tuple[tuple[str, str], ...]],
                                                         ...]:
    """Each rank's opening and, for each of its squares, the square and its unmarked cell's
    opening tag (only the cells' contents and highlights differ from board to board)."""
    order = range(ranks) if flip else range(ranks - 1, -1, -1)
    return tuple((f'<tr><th style="padding:0 6px;color:#555">{r + 1}</th>',
                  tuple((f"{FILES[f]}{r + 1}", _CELL.format(DARK if (f + r) % 2 == 0 else LIGHT))
                        for f in _file_order(files, flip))) for r in order)


@lru_cache(maxsize=64)
def _footer(files: int, flip: bool) -> str:
    letters = "".join(f'<th style="color:#555">{FILES[f]}</th>' for f in _file_order(files, flip))
    return f"<tr><th></th>{letters}</tr></table>"


def _file_order(files: int, flip: bool) -> range:
    return range(files - 1, -1, -1) if flip else range(files)
