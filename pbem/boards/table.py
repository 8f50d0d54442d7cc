"""A square board as an HTML table, for email: Gmail and Outlook show no SVG.

Built in Python: a template loop with a lookup per cell cost more than the rest of a mail's
rendering together.
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
    parts = ['<table cellpadding="0" cellspacing="0" border="0" style="border-collapse:'
             'collapse;font-family:monospace;font-size:14px">']
    for rank, row in _layout(files, ranks, flip):
        parts.append(f'<tr><th style="padding:0 6px;color:#555">{rank}</th>')
        for square, dark in row:
            colour = HIGHLIGHT if square in marked else (DARK if dark else LIGHT)
            content = lookup(square)
            parts.append(f'<td width="28" height="28" align="center" bgcolor="{colour}">'
                         f'{escape(content) if content is not None else ""}</td>')
        parts.append("</tr>\n")
    footer = "".join(f'<th style="color:#555">{FILES[f]}</th>' for f in _file_order(files, flip))
    parts.append(f"<tr><th></th>{footer}</tr></table>")
    return Markup("".join(parts))


@lru_cache(maxsize=64)
def _layout(files: int, ranks: int, flip: bool) -> tuple[tuple[int, tuple[tuple[str, bool], ...]],
                                                         ...]:
    order = range(ranks) if flip else range(ranks - 1, -1, -1)
    return tuple((r + 1, tuple((f"{FILES[f]}{r + 1}", (f + r) % 2 == 0)
                               for f in _file_order(files, flip))) for r in order)


def _file_order(files: int, flip: bool) -> range:
    return range(files - 1, -1, -1) if flip else range(files)
