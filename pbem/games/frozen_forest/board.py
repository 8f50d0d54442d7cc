"""Frozen Forest's forest on the SVG board: a tree or an unvisited disc on every square (a
dashed ring where the board ends, on the 9 by 9 forest), Yuki and Mina, and a green frame on
each square the viewer may go to, drawn last so a tree never hides it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from pbem.games.boards.grid import FILES, centres, square_x, square_y
from pbem.i18n import _

SIZE = 10


def pieces(view: Mapping[str, Any], legal_moves: Iterable[str]) -> Markup:
    outside, trees = set(view["outside"]), set(view["trees"])
    at = centres(SIZE, SIZE)
    parts = [f'\n  <circle cx="{at[square][0]}" cy="{at[square][1]}" r="13" fill="#fbfbfb" '
             'fill-opacity="0.6" stroke="#b8b8b8" stroke-width="1" stroke-dasharray="3 2"/>'
             for square in view["outside"]]
    for square in _SQUARES:
        x, y = at[square]
        if square in trees:
            parts.append(f'\n  <polygon points="{x},{y - 14} {x - 10},{y + 9} {x + 10},{y + 9}" '
                         'fill="#2f6b3a" stroke="#1d4424" stroke-width="1"/>'
                         f'\n  <rect x="{x - 2}" y="{y + 9}" width="4" height="5" '
                         'fill="#6b4a2b"/>')
        elif square not in outside:
            parts.append(f'\n  <circle cx="{x}" cy="{y}" r="13" fill="#ffffff" '
                         'stroke="#9aa7b0" stroke-width="1.5"/>')
    for name, role, radius, fill, stroke, size, ink in (
            ("yuki", "Yuki", 15, "#a9dcf2", "#2b6f8f", 15, "#124a63"),
            ("mina", "Mina", 11, "#c62828", "#7a1010", 13, "#ffffff")):
        square = view[name]
        if square:
            x, y = at[square]
            title = escape(_("%(role)s on %(square)s", role=role, square=square))
            parts.append(f'\n  <circle cx="{x}" cy="{y}" r="{radius}" fill="{fill}" '
                         f'stroke="{stroke}" stroke-width="2"><title>{title}</title></circle>'
                         f'\n  <text x="{x}" y="{y + 5}" text-anchor="middle" '
                         f'font-size="{size}" font-weight="bold" fill="{ink}">{role[0]}</text>')
    for square in legal_moves:
        title = escape(_("you may go to %(square)s", square=square))
        parts.append(f'\n  <rect x="{square_x(square, SIZE, SIZE) + 3}" '
                     f'y="{square_y(square, SIZE, SIZE) + 3}" width="34" height="34" rx="5" '
                     f'fill="none" stroke="#1f9d55" stroke-width="3"><title>{title}</title></rect>')
    return Markup("".join(parts))


# File by file, rank by rank: the order the discs have always been drawn in.
_SQUARES = tuple(FILES[f] + str(r + 1) for f in range(SIZE) for r in range(SIZE))




_YUKI = Markup('<b style="color:#124a63">Y</b>')
_MINA = Markup('<b style="color:#c62828">M</b>')
_TREE = Markup('<span style="color:#2f6b3a">&#9650;</span>')
_DISC = Markup('<span style="color:#8a8a8a">&#9675;</span>')


def cells(view: Mapping[str, Any]) -> dict[str, Markup]:
    """The email table's cells: Y Yuki, M Mina, a triangle for a tree, a ring for a disc."""
    trees = set(view["trees"])
    return {square: (_YUKI if square == view["yuki"] else _MINA if square == view["mina"]
                     else _TREE if square in trees else _DISC) for square in _SQUARES}
