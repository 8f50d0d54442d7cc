"""Mimic Taking's cards in email: a coloured label per card (O8, B2, M…), drawn here rather
than by a template macro called once per card of every mail."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from markupsafe import Markup, escape

# The card colours of the web page's cards (templates/games/mimic-taking/_cards.html).
FILL = {"O": "#e07b24", "B": "#8b5a2b", "P": "#7d3c98", "G": "#8a8a8a", "M": "#2e7d4f"}
_CARD = ('<span style="display:inline-block;padding:2px 5px;margin:1px;border-radius:3px;'
         'background:{};color:#fff;font-weight:bold;font-family:monospace">{}</span>')


@functools.cache  # a deck's few dozen names
def card(name: str) -> Markup:
    return Markup(_CARD.format(FILL[name[0]], escape(name)))


def cards(names: Iterable[str]) -> Markup:
    """The cards side by side, as a hand or a stack is shown."""
    return Markup("".join(map(card, names)))
