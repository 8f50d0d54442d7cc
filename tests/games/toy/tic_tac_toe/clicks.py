"""Tic-tac-toe's click data: a move is the square taken; a taken square says whose it is."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.clicks import ClickData, Notes, squares
from pbem.i18n import N_, _


def notes(view: Mapping[str, Any], firsts: set[str], _legal: Sequence[str]) -> Notes:
    return {square: _("%(square)s is taken.", square=square) for square in view["marks"]
            if square not in firsts}


def about(view: Mapping[str, Any]) -> Notes:
    said = dict.fromkeys(squares(view["files"], view["ranks"]), _("empty"))
    said.update((square, mark.upper()) for square, mark in view["marks"].items())
    return said


CLICKS = ClickData(english_words={"start": N_("an empty square"),
                                  "next": N_("an empty square")},
                   notes=notes, about=about)
