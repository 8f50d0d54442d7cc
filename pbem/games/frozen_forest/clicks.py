"""Frozen Forest's click data: a move is its destination square."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.games.clicks import ClickData, Notes, squares
from pbem.i18n import N_, _


def about(view: Mapping[str, Any]) -> Notes:
    trees, outside = set(view["trees"]), set(view["outside"])
    tree, covered, disc = _("tree"), _("covered, outside the forest"), _("disc")
    said = {square: tree if square in trees else covered if square in outside else disc
            for square in squares(10, 10)}
    for role in ("yuki", "mina"):
        if view.get(role):
            said[view[role]] = _("%(role)s, on a %(spot)s", role=role.title(),
                                 spot=said[view[role]])
    return said


CLICKS = ClickData(english_words={"start": N_("a highlighted square"),
                                 "next": N_("a highlighted square")},
                   about=about)
