"""EXIMO's click data: the checker, each landing square of a jump or capture chain, then the
drop squares in any order."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import permutations
from typing import Any

from pbem.games.clicks import ClickData, Clicks, Notes, all_said_empty, square_notes
from pbem.i18n import N_, _

_PATH_STEP = re.compile(r"[-x]")
WORDS = {"start": N_("one of your checkers that can move"),
         "next": N_("a highlighted landing or drop square")}


def split(text: str, _view: Mapping[str, Any]) -> list[Clicks]:
    # `c1-c3-c5`, `e4xe6xg6 drop c1 d1`: the checker, each landing square, then the drops,
    # which a player may click in any order.
    head, _, tail = text.partition(" drop ")
    path = _PATH_STEP.split(head)
    drops = tail.split()
    return [path + list(order) for order in permutations(drops)] if drops else [path]


def _compulsory(legal: Sequence[str]) -> bool:
    return bool(legal) and all("x" in text.split(" ")[0] for text in legal)


def words_for(legal: Sequence[str]) -> Mapping[str, str]:
    words = {key: _(text) for key, text in WORDS.items()}
    if _compulsory(legal):
        return {**words, "start": _("one of your checkers that can capture (a capture is "
                                    "compulsory)")}
    return words


def notes(view: Mapping[str, Any], firsts: set[str], legal: Sequence[str]) -> Notes:
    labels = [seat["label"] for seat in view["seats"]]
    mine = view.get("viewer")
    captures = _compulsory(legal)
    return square_notes(view, firsts, ((piece["square"], _refusal(piece, mine, labels, captures))
                                       for piece in view["pieces"]))


def _refusal(piece: Mapping[str, Any], mine: int | None, labels: Sequence[str],
             captures: bool) -> str | None:
    square = piece["square"]
    if piece["seat"] != mine:
        return _("%(square)s is a %(seat)s checker, not yours.", square=square,
                 seat=labels[piece["seat"]])
    if captures:
        return _("%(square)s cannot capture, and a capture is compulsory: capture with one of "
                 "the highlighted checkers.", square=square)
    return None


def about(view: Mapping[str, Any]) -> Notes:
    labels = [seat["label"] for seat in view["seats"]]
    said = all_said_empty(view)
    for piece in view["pieces"]:
        said[piece["square"]] = _("%(seat)s checker", seat=labels[piece["seat"]])
    return said


CLICKS = ClickData(english_words=WORDS, split=split, notes=notes, about=about, words_for=words_for)
