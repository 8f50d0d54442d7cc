"""Mimic Taking's click data: a card in the hand is one click; `take …`, `add` and `discard`
are buttons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games.clicks import ClickData, Notes
from pbem.games.mimic_taking.cards import COLOUR_NAMES
from pbem.i18n import N_, _


def notes(view: Mapping[str, Any], firsts: set[str], legal: Sequence[str]) -> Notes:
    reference = view.get("reference")
    hand = view.get("hand") or []
    if not reference or view.get("phase") != "play":
        return {}
    colour = _(COLOUR_NAMES[reference[0]]) if reference[0] in COLOUR_NAMES else reference[0]
    return {card: _("%(card)s does not follow %(colour)s: the reference card is %(reference)s, "
                    "and you hold %(colour)s, so play %(colour)s or a mimic.", card=card,
                    colour=colour, reference=reference)
            for card in hand if card not in firsts}


def about(view: Mapping[str, Any]) -> Notes:
    names = {**{letter: _(name) for letter, name in COLOUR_NAMES.items()}, "M": _("mimic")}
    return {card: names[card[0]] + (f" {card[1:]}" if card[1:] else "")
            for card in view.get("hand") or []}


CLICKS = ClickData(english_words={"start": N_("a highlighted card in your hand or a choice "
                                              "button"),
                                  "next": N_("one of the choices")}, notes=notes, about=about)
