"""Move In Synch's marks on the SVG board: Blue's x and Red's o on every square they hold,
the direction names on the squares a directioner may send the markers to, and both markers
(two small coins when they share a square). A full board has a mark on nearly every square."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from pbem.games.boards.grid import centres, square_y
from pbem.i18n import _


def pieces(view: Mapping[str, Any], legal_moves: Iterable[str]) -> Markup:
    n, seats = view["size"], view["seats"]
    blue, red = escape(seats[0]["colour"]), escape(seats[1]["colour"])
    at = centres(n, n)
    parts = []
    for square, mark in sorted(view["marks"].items()):
        x, y = at[square]
        if mark == "x":
            title = escape(_("%(square)s: %(seat)s's x", square=square, seat=seats[0]["label"]))
            parts.append(f'\n  <g stroke="{blue}" stroke-width="3" stroke-linecap="round">'
                         f"<title>{title}</title>"
                         f'\n    <line x1="{x - 13}" y1="{y - 13}" x2="{x + 13}" y2="{y + 13}"/>'
                         f'\n    <line x1="{x - 13}" y1="{y + 13}" x2="{x + 13}" y2="{y - 13}"/>'
                         "\n  </g>")
        else:
            title = escape(_("%(square)s: %(seat)s's o", square=square, seat=seats[1]["label"]))
            parts.append(f'\n  <circle cx="{x}" cy="{y}" r="14" fill="none" stroke="{red}" '
                         f"stroke-width=\"3\"><title>{title}</title></circle>")
    if view["step"] == "direct":
        targets = view["targets"]
        for direction in legal_moves:
            if direction in targets:
                square = targets[direction]
                parts.append(f'\n  <text x="{at[square][0]}" '
                             f'y="{square_y(square, n, n) + 11}" text-anchor="middle" '
                             f'font-size="10" fill="#2e5e3e">{escape(direction)}</text>')
    markers = view["markers"]
    shared = markers[0] is not None and markers[0] == markers[1]
    for seat in seats:
        square = seat["marker"]
        if square is None:
            continue
        shift = (-8 if seat["seat"] == 0 else 8) if shared else 0
        x, y = at[square]
        title = escape(_("%(seat)s marker on %(square)s", seat=seat["label"], square=square))
        parts.append(f'\n  <circle cx="{x + shift}" cy="{y}" r="{7 if shared else 9}" '
                     f'fill="{escape(seat["colour"])}" stroke="#ffffff" stroke-width="2">'
                     f'<title>{title}</title></circle>')
    return Markup("".join(parts))


def cells(view: Mapping[str, Any]) -> dict[str, Markup]:
    """The email table's cells: the x and o symbols in the players' colours, B and R for the
    markers (* when they share a square)."""
    blue, red = (escape(seat["colour"]) for seat in view["seats"][:2])
    symbols = {"x": f'<span style="color:{blue};font-weight:bold">x</span>',
               "o": f'<span style="color:{red};font-weight:bold">o</span>'}
    found = {square: symbols.get(mark, "") for square, mark in view["marks"].items()}
    first, second = view["markers"][0], view["markers"][1]
    if first is not None and first == second:
        found[first] = found.get(first, "") + "<b>*</b>"
    else:
        if first is not None:
            found[first] = found.get(first, "") + f'<b style="color:{blue}">B</b>'
        if second is not None:
            found[second] = found.get(second, "") + f'<b style="color:{red}">R</b>'
    return {square: Markup(html) for square, html in found.items()}
