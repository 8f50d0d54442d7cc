"""Mimic Taking's click data: a card in the hand is one click; `take …`, `add` and `discard`
are buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.clicks import ClickData, Notes

_COLOURS = {"O": "orange", "B": "brown", "P": "purple", "G": "grey"}


def notes(view: Mapping[str, Any], firsts: set[str], legal: Sequence[str]) -> Notes:
    reference = view.get("reference")
    hand = view.get("hand") or []
    if not reference or view.get("phase") != "play":
        return {}
    colour = _COLOURS.get(reference[0], reference[0])
    return {card: (f"{card} does not follow {colour}: the reference card is {reference}, and "
                   f"you hold {colour}, so play {colour} or a mimic.")
            for card in hand if card not in firsts}


def about(view: Mapping[str, Any]) -> Notes:
    names = {**_COLOURS, "M": "mimic"}
    return {card: names[card[0]] + (f" {card[1:]}" if card[1:] else "")
            for card in view.get("hand") or []}


CLICKS = ClickData(words={"start": "a highlighted card in your hand or a choice button",
                          "next": "one of the choices"}, notes=notes, about=about)
