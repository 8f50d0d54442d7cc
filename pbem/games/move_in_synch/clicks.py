"""Move In Synch's click data: a placement is its square; a direction is clicked as the square
the directioner's marker would land on; `synch` and `opposition` are buttons."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.games.clicks import ClickData, Clicks, Notes, squares
from pbem.i18n import N_, _


def split(text: str, view: Mapping[str, Any]) -> list[Clicks]:
    targets = view.get("targets") or {}
    return [[targets[text]]] if text in targets else [[text]]


def about(view: Mapping[str, Any]) -> Notes:
    seats = view["seats"]
    owner = {seat["symbol"]: seat["label"] for seat in seats}
    said = {square: _("%(seat)s's %(symbol)s", seat=owner[mark], symbol=mark)
            for square, mark in view["marks"].items()}
    empty = _("empty")
    for square in squares(view["size"], view["size"]):
        said.setdefault(square, empty)
    for seat in seats:
        if seat["marker"] is not None:
            said[seat["marker"]] = _("%(what)s, %(seat)s marker", what=said[seat["marker"]],
                                     seat=seat["label"])
    for direction, square in (view.get("targets") or {}).items():
        said[square] = _("%(what)s, direction %(direction)s", what=said[square],
                         direction=direction)
    return said


CLICKS = ClickData(english_words={"start": N_("a highlighted square or one of the choices"),
                                  "next": N_("a highlighted square")}, split=split, about=about)
