"""A square board's frame and geometry: where each square is drawn, and the SVG around the
pieces (squares, highlights, marks, coordinates and click targets).

The frame depends only on the board's size, side, highlights, marks, label and clickability,
so it is built once as markup and kept rather than worked out square by square on every page.
`svg` puts a game's pieces in it.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

from markupsafe import Markup, escape

CELL = 40
MARGIN = 24
# From this many files a board is drawn at a fixed size and scrolls (see `svg`); up to ten
# files fit a 320 px screen with squares of 26 px.
WIDE_FROM = 11
WIDE_CELL_PX = 28
FILES = "abcdefghijklmnopqrs"
_CACHED_FRAMES = 512


def square_x(square: str, files: int, ranks: int, flip: bool = False) -> int:
    index = FILES.index(square[0])
    return MARGIN + CELL * ((files - 1 - index) if flip else index)


def square_y(square: str, files: int, ranks: int, flip: bool = False) -> int:
    rank = int(square[1:]) - 1
    return MARGIN + CELL * (rank if flip else (ranks - 1 - rank))


def square_cx(square: str, files: int, ranks: int, flip: bool = False) -> int:
    """The centre of a square, where a piece on it is drawn."""
    return square_x(square, files, ranks, flip) + CELL // 2


def square_cy(square: str, files: int, ranks: int, flip: bool = False) -> int:
    return square_y(square, files, ranks, flip) + CELL // 2


@lru_cache(maxsize=64)
def centres(files: int, ranks: int, flip: bool = False) -> dict[str, tuple[int, int]]:
    """Every square's centre on a board of this shape and side (pieces are drawn there): one
    lookup per piece instead of parsing its square's name twice."""
    return {FILES[f] + str(r + 1): (square_cx(FILES[f] + str(r + 1), files, ranks, flip),
                                    square_cy(FILES[f] + str(r + 1), files, ranks, flip))
            for f in range(files) for r in range(ranks)}


def grid_head(files: int, ranks: int, flip: bool, highlight: Collection[str],
              marked: Collection[str], label: str, clickable: bool) -> Markup:
    """The board up to where the game draws its pieces."""
    return _head(files, ranks, bool(flip), _key(highlight), _key(marked), str(label),
                 bool(clickable))


def grid_tail(files: int, ranks: int, flip: bool, clickable: bool) -> Markup:
    """The board after the pieces: click targets (if any) and the end of the SVG."""
    return _tail(files, ranks, bool(flip), bool(clickable))


def svg(files: int, ranks: int, flip: bool, highlight: Collection[str], marked: Collection[str],
        label: str, clickable: bool, pieces: str) -> Markup:
    """The whole SVG board: its frame around `pieces` (markup the game drew). A board wider
    than WIDE_FROM files keeps squares of WIDE_CELL_PX CSS pixels however narrow the screen, so
    each stays a target a finger can hit (WCAG 2.5.8: 24 px at least), and scrolls sideways
    inside its frame with its rank numbers held at the left edge (`_rank_strip`)."""
    board = Markup(grid_head(files, ranks, flip, highlight, marked, label, clickable)
                   + pieces + grid_tail(files, ranks, flip, clickable))
    if files < WIDE_FROM:
        return board
    # Focusable, so a keyboard can scroll it too (the squares are reached only with a script).
    return (Markup('\n<div class="board-scroll" role="region" tabindex="0" aria-label="{}">')
            .format(label) + _rank_strip(ranks, flip) + board + Markup("\n</div>"))


def board_pixels(files: int, ranks: int) -> tuple[float, float] | None:
    """The CSS size a wide board is drawn at (None: it fits its frame's width instead)."""
    if files < WIDE_FROM:
        return None
    scale = WIDE_CELL_PX / CELL
    return (files * CELL + 2 * MARGIN) * scale, (ranks * CELL + 2 * MARGIN) * scale


@lru_cache(maxsize=_CACHED_FRAMES)
def _rank_strip(ranks: int, flip: bool) -> Markup:
    """The rank numbers again, as a narrow picture that stays at the left edge while the board
    scrolls under it (the board's own numbers scroll away with it); hidden from screen
    readers, which read each square's name."""
    height = ranks * CELL + 2 * MARGIN
    scale = WIDE_CELL_PX / CELL
    parts = [f'\n<svg class="rank-strip" aria-hidden="true" viewBox="0 0 {MARGIN} {height}" '
             f'width="{MARGIN * scale:g}" height="{height * scale:g}">'
             f'<rect x="0" y="0" width="{MARGIN}" height="{height}" fill="#f4efe4"/>']
    for r in range(ranks):
        y = square_y("a" + str(r + 1), 1, ranks, flip) + CELL // 2 + 5
        parts.append(f'<text x="{MARGIN - 6}" y="{y}" text-anchor="end" font-size="13" '
                     f'fill="#555">{r + 1}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _key(squares: Collection[str]) -> tuple[str, ...] | str:
    # A string stays a string: `in` then tests substrings, as the template always did.
    return squares if isinstance(squares, str) else tuple(squares)


@lru_cache(maxsize=_CACHED_FRAMES)
def _head(files: int, ranks: int, flip: bool, highlight: tuple[str, ...] | str,
          marked: tuple[str, ...] | str, label: str, clickable: bool) -> Markup:
    width, height = files * CELL + 2 * MARGIN, ranks * CELL + 2 * MARGIN
    pixels = board_pixels(files, ranks)
    size = f' width="{pixels[0]:g}" height="{pixels[1]:g}"' if pixels else ""
    parts = [
        f'\n<svg class="board{" clickable" if clickable else ""}{" wide" if pixels else ""}" '
        f'xmlns="http://www.w3.org/2000/svg" role="{"group" if clickable else "img"}" '
        f'aria-label="{escape(label)}"\n     viewBox="0 0 {width} {height}"{size}>\n'
        f'  <rect x="0" y="0" width="{width}" height="{height}" fill="#f4efe4"/>'
    ]
    for r in range(ranks):
        for f in range(files):
            square = FILES[f] + str(r + 1)
            x, y = square_x(square, files, ranks, flip), square_y(square, files, ranks, flip)
            fill = "#d9c6a0" if (f + r) % 2 == 0 else "#ece0c6"
            parts.append(f'\n  <rect x="{x}" y="{y}" width="{CELL}" height="{CELL}"\n'
                         f'        fill="{fill}"><title>{square}</title></rect>')
            if square in highlight:
                parts.append(f'\n  <rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" '
                             'fill="#f2d14b" fill-opacity="0.55"/>')
            if square in marked:
                parts.append(f'\n  <circle cx="{x + CELL // 2}" cy="{y + CELL // 2}" r="6" '
                             'fill="#2e8b57" fill-opacity="0.7"/>')
    for f in range(files):
        x = square_x(FILES[f] + "1", files, ranks, flip) + CELL // 2
        for y in (MARGIN - 8, MARGIN + ranks * CELL + 17):
            parts.append(f'\n  <text x="{x}" y="{y}" text-anchor="middle" font-size="13" '
                         f'fill="#555">{FILES[f]}</text>')
    for r in range(ranks):
        y = square_y("a" + str(r + 1), files, ranks, flip) + CELL // 2 + 5
        parts.append(f'\n  <text x="{MARGIN - 6}" y="{y}" text-anchor="end" font-size="13" '
                     f'fill="#555">{r + 1}</text>')
        parts.append(f'\n  <text x="{MARGIN + files * CELL + 6}" y="{y}" text-anchor="start" '
                     f'font-size="13" fill="#555">{r + 1}</text>')
    parts.append("\n  ")
    return Markup("".join(parts))


@lru_cache(maxsize=_CACHED_FRAMES)
def _tail(files: int, ranks: int, flip: bool, clickable: bool) -> Markup:
    parts = []
    if clickable:
        for r in range(ranks):
            for f in range(files):
                square = FILES[f] + str(r + 1)
                parts.append(f'\n  <rect class="hit" data-click="{square}" '
                             f'x="{square_x(square, files, ranks, flip)}" '
                             f'y="{square_y(square, files, ranks, flip)}" width="{CELL}" '
                             f'height="{CELL}" fill="#2e8b57" fill-opacity="0"/>')
    parts.append("\n</svg>")
    return Markup("".join(parts))
