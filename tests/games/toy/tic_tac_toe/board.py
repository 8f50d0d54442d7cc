"""Tic-tac-toe's marks on the SVG board (a cross or a ring on each taken square), and the
cells of the email table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from pbem.games.boards.grid import centres
from pbem.i18n import _


def pieces(view: Mapping[str, Any], legal_moves: Iterable[str]) -> Markup:
    at = centres(view["files"], view["ranks"])
    parts = []
    for square, mark in view["marks"].items():
        x, y = at[square]
        title = escape(_("%(mark)s on %(square)s", mark=mark.upper(), square=square))
        if mark == "x":
            parts.append(f'\n  <path d="M{x - 11} {y - 11} l22 22 m0 -22 l-22 22" '
                         f'stroke="#1d1d1d" stroke-width="4"><title>{title}</title></path>')
        else:
            parts.append(f'\n  <circle cx="{x}" cy="{y}" r="12" fill="none" stroke="#c0392b" '
                         f'stroke-width="4"><title>{title}</title></circle>')
    return Markup("".join(parts))


def cells(view: Mapping[str, Any]) -> dict[str, Markup]:
    """The email table's cells: X or O on each taken square."""
    return {square: Markup("<b>%s</b>") % mark.upper() for square, mark in view["marks"].items()}
