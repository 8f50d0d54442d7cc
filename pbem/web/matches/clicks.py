"""Which clicks on the board spell each legal move, for the play page's click-to-move script.

Each game's click data lives in its folder (`pbem/games/<game>/clicks.py`, found through its
description): how a move splits into clicks, the words the script explains with, why a click
starts no move, what is on each square. This adapter turns it into the script's data for one
seat's page. The script only follows these lists, so it can never offer a move the rules
would refuse, and the server still checks whatever is submitted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pbem.games import describe


def click_moves(game: str, view: Mapping[str, Any], legal: Sequence[str]) -> dict[str, Any]:
    """The script's data: every way of clicking each legal move, the words it explains with,
    `notes`: why a square or card that starts no legal move cannot, where the view tells, and
    `about`: what is on each square, read out after its name by screen readers.

    A move may be listed more than once when its clicks may come in any order (EXIMO drops).
    """
    data = describe(game).clicks
    entries = [{"move": text, "clicks": clicks} for text in legal
               for clicks in data.split(text, view)]
    firsts = {entry["clicks"][0] for entry in entries}
    words = dict(data.words_for(legal) if data.words_for else data.words)
    return {"moves": entries, "words": words,
            "notes": data.notes(view, firsts, legal) if data.notes and view else {},
            "about": data.about(view) if data.about and view else {}}
