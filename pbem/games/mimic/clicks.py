"""Mimic's click data: a move is its checker, then the square it goes to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.clicks import ClickData, Clicks, Notes, all_said_empty, square_notes
from pbem.i18n import N_, _


def split(text: str, _view: Mapping[str, Any]) -> list[Clicks]:
    origin, target = text.split("-")
    return [[origin, target]]


def notes(view: Mapping[str, Any], firsts: set[str], _legal: Sequence[str]) -> Notes:
    names = [seat["name"] for seat in view["seats"]]
    mine = view.get("seat")
    return square_notes(view, firsts, ((entry["square"], _refusal(entry, mine, names))
                                       for entry in view["stacks"]))


def _refusal(entry: Mapping[str, Any], mine: int | None, names: Sequence[str]) -> str | None:
    square, top = entry["square"], entry["stack"][-1]
    if top != mine:
        return _("%(square)s holds %(seat)s's checker on top; you move only stacks topped by "
                 "your own checker.", square=square, seat=names[top])
    if entry["frozen"]:
        return _("%(square)s is frozen (it sees two or more opposing checkers) and cannot "
                 "move.", square=square)
    return None


def about(view: Mapping[str, Any]) -> Notes:
    names = [seat["name"] for seat in view["seats"]]
    said = all_said_empty(view)
    for entry in view["stacks"]:
        stack = [names[s] for s in entry["stack"]]
        text = (_("%(seat)s checker", seat=stack[0]) if len(stack) == 1 else
                _("stack of %(count)s, bottom to top %(seats)s", count=len(stack),
                  seats=", ".join(stack)))
        said[entry["square"]] = _("%(what)s, frozen", what=text) if entry["frozen"] else text
    return said


CLICKS = ClickData(english_words={"start": N_("one of your checkers that can move"),
                                  "next": N_("a highlighted square to move it to")},
                   split=split, notes=notes, about=about)
