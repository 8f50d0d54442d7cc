"""Frozen Forest's click data: a move is its destination square."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.games.clicks import ClickData, Notes, squares


def about(view: Mapping[str, Any]) -> Notes:
    trees, outside = set(view["trees"]), set(view["outside"])
    said = {square: "tree" if square in trees else
            "covered, outside the forest" if square in outside else "disc"
            for square in squares(10, 10)}
    for role in ("yuki", "mina"):
        if view.get(role):
            said[view[role]] = f"{role.title()}, on a {said[view[role]]}"
    return said


CLICKS = ClickData(words={"start": "a highlighted square", "next": "a highlighted square"},
                   about=about)
