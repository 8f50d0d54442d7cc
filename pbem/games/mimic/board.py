"""Mimic's checkers on the SVG board: a stack drawn as discs seen from the side, bottom to
top, with its height beside it; a ring round each checker the viewer may move; a cross on a
frozen one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from pbem.games.boards.grid import centres
from pbem.i18n import _


def pieces(view: Mapping[str, Any], flip: bool, legal_moves: Iterable[str]) -> Markup:
    files, ranks, seats = view["files"], view["ranks"], view["seats"]
    movable = {move.split("-")[0] for move in legal_moves}
    at = centres(files, ranks, flip)
    parts = []
    for entry in view["stacks"]:
        square, stack = entry["square"], entry["stack"]
        x, y = at[square]
        height = len(stack)
        names = ", ".join(seats[s]["name"] for s in stack)
        if height > 1:
            title = _("%(square)s: %(names)s (stack of %(height)s, bottom to top)",
                      square=square, names=names, height=height)
        else:
            title = _("%(square)s: %(names)s", square=square, names=names)
        if entry["frozen"]:
            title = _("%(what)s, frozen", what=title)
        parts.append(f"\n  <g>\n    <title>{escape(title)}</title>")
        if square in movable:
            parts.append(f'\n    <circle class="movable-ring" cx="{x}" cy="{y}" r="18" '
                         'fill="none" stroke="#2e8b57" stroke-width="2.5"/>')
        if height == 1:
            parts.append(f'\n    <circle cx="{x}" cy="{y}" r="14" '
                         f'fill="{escape(seats[stack[-1]]["colour"])}" stroke="#222" '
                         'stroke-width="1"/>')
        else:
            # Discs closer together the taller the stack, so it keeps to its square.
            step = min(8, 24 / (height - 1))
            bottom = y + step * (height - 1) / 2
            for index, seat in enumerate(stack):
                parts.append(f'\n    <ellipse cx="{x - 3}" cy="{round(bottom - step * index, 2)}"'
                             f' rx="14" ry="6" fill="{escape(seats[seat]["colour"])}" '
                             'stroke="#222" stroke-width="0.8"/>')
            parts.append(f'\n    <text x="{x + 17}" y="{y - 8}" text-anchor="end" '
                         f'font-size="11" font-weight="bold" fill="#222">{height}</text>')
        if entry["frozen"]:
            parts.append(f'\n    <path d="M{x - 18} {y + 12} l6 6 m0 -6 l-6 6" '
                         'stroke="#0b6fa4" stroke-width="2"/>')
        parts.append("\n  </g>")
    return Markup("".join(parts))


def cells(view: Mapping[str, Any]) -> dict[str, Markup]:
    """The email table's cells: each stack's letters bottom to top (B Blue, R Red)."""
    letters = [Markup(f'<b style="color:{escape(seat["colour"])}">{escape(seat["letter"])}</b>')
               for seat in view["seats"]]
    return {entry["square"]: Markup("".join(letters[seat] for seat in entry["stack"]))
            for entry in view["stacks"]}
