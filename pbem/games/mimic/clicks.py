"""Mimic's click data: a move is its checker, then the square it goes to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.clicks import ClickData, Clicks, Notes, counts, empty_notes, squares


def split(text: str, _view: Mapping[str, Any]) -> list[Clicks]:
    origin, target = text.split("-")
    return [[origin, target]]


def notes(view: Mapping[str, Any], firsts: set[str], _legal: Sequence[str]) -> Notes:
    names = [seat["name"] for seat in view["seats"]]
    mine = view.get("seat")
    found = dict(empty_notes(*counts(view["files"], view["ranks"])))
    for entry in view["stacks"]:
        square, top = entry["square"], entry["stack"][-1]
        if top != mine:
            found[square] = (f"{square} holds {names[top]}'s checker on top; you move only "
                             "stacks topped by your own checker.")
        elif entry["frozen"]:
            found[square] = (f"{square} is frozen (it sees two or more opposing checkers) "
                             "and cannot move.")
        else:
            found[square] = f"{square} has no legal move now."
    return {square: note for square, note in found.items() if square not in firsts}


def about(view: Mapping[str, Any]) -> Notes:
    names = [seat["name"] for seat in view["seats"]]
    said = dict.fromkeys(squares(view["files"], view["ranks"]), "empty")
    for entry in view["stacks"]:
        stack = [names[s] for s in entry["stack"]]
        text = (f"{stack[0]} checker" if len(stack) == 1 else
                f"stack of {len(stack)}, bottom to top {', '.join(stack)}")
        said[entry["square"]] = text + (", frozen" if entry["frozen"] else "")
    return said


CLICKS = ClickData(words={"start": "one of your checkers that can move",
                          "next": "a highlighted square to move it to"},
                   split=split, notes=notes, about=about)
