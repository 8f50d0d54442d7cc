"""EXIMO's checkers on the SVG board: black and white discs, a green edge on each the viewer
may move, and a dashed outline where the last move's checker left the board; and the cells
of the email table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup, escape

from pbem.games.boards.grid import centres
from pbem.i18n import _

_MOVABLE = ' class="movable"'


def pieces(view: Mapping[str, Any], flip: bool, legal_moves: Iterable[str]) -> Markup:
    files, ranks, seats = view["files"], view["ranks"], view["seats"]
    movable = {move[:2] for move in legal_moves}
    at = centres(files, ranks, flip)
    parts = []
    for piece in view["pieces"]:
        square = piece["square"]
        mine = square in movable
        title = _("%(seat)s checker on %(square)s", seat=seats[piece["seat"]]["label"],
                  square=square)
        parts.append(
            f'\n  <circle{_MOVABLE if mine else ""} '
            f'cx="{at[square][0]}" cy="{at[square][1]}" r="15"\n          '
            f'fill="{"#1d1d1d" if piece["seat"] == 0 else "#fbfbf6"}" '
            f'stroke="{"#2e8b57" if mine else "#333333"}" stroke-width="{3 if mine else 1.5}">'
            f'<title>{escape(title)}</title></circle>')
    last = view["last_move"]
    if last and last["removed_at"]:
        gone = last["removed_at"]
        title = _("%(seat)s checker left the board at %(square)s", seat=last["label"],
                  square=gone)
        parts.append(
            f'\n  <circle cx="{at[gone][0]}" cy="{at[gone][1]}" r="15"\n          fill="none" '
            f'stroke="{"#1d1d1d" if last["seat"] == 0 else "#8a8a80"}" stroke-width="1.5" '
            f'stroke-dasharray="4 3"><title>{escape(title)}</title></circle>')
    return Markup("".join(parts))


_CAPTURED = Markup('<span style="color:#a33">&times;</span>')
_CHECKERS = (Markup('<span style="color:#111;font-size:18px">&#9679;</span>'),
             Markup('<span style="color:#555;font-size:18px">&#9675;</span>'))


def cells(view: Mapping[str, Any]) -> dict[str, Markup]:
    """The email table's cells: a black or white disc on each checker, a red cross where
    the last move captured (and nothing stands now)."""
    last = view["last_move"]
    found = dict.fromkeys(last["captured"], _CAPTURED) if last else {}
    found.update((piece["square"], _CHECKERS[0 if piece["seat"] == 0 else 1])
                 for piece in view["pieces"])
    return found
