"""Text mode on the public match page, a spectator's read-only view: the board is replaced by
the game's text drawing and a command line whose commands read the position
(pbem/games/text_commands.py); nothing typed there is ever a move. Everything rides on the
page's own address (`?text=on`, `&line=row 2`): a read, so a plain GET form with no session
and no CSRF token, and the same answer for the same address. A signed-in player whose
setting is on (the play page's toggle) gets it without asking; `?text=off` turns it off."""

from __future__ import annotations

from typing import Any

from flask import request

from pbem.games import get_rules
from pbem.games.text_commands import Reading, answer
from pbem.i18n import _

MAX_LINE = 200


def text_view(record: dict[str, Any], setting: bool) -> dict[str, Any] | None:
    """The text view's state for the page (None: the board is shown): whether it is on, and
    the answer to the line typed, if any, with its category."""
    asked = request.args.get("text")
    if asked == "off" or (asked != "on" and not setting):
        return None
    typed = (request.args.get("line") or "").strip()[:MAX_LINE]
    if not typed:
        return {"said": None, "category": "ok"}
    said = answer(package_of(record["game"]), _reading(record), typed)
    if said is None:
        return {"said": _("%(line)s: not a command. Spectators read the position here; "
                          "type help for the commands.", line=typed), "category": "error"}
    return {"said": f"{typed}: {said}", "category": "ok"}


def _reading(record: dict[str, Any]) -> Reading:
    """What the commands read: the spectator's view, which has no move to make."""
    moves = [(str(m["by"]), m["text"] or _("(hidden)")) for m in record["moves"]]
    clocks = [_("%(player)s: %(left)s.", player=c["label"],
                left=(c["deadline"] or {}).get("left") or _("waiting"))
              for c in record["clocks"] if not c["computer"]]
    return Reading(record["board_text"], [], moves, clocks, record["view"])


def package_of(game: str) -> str:
    """The package of the game's rules (its own commands live there)."""
    return type(get_rules(game)).__module__.rsplit(".", 1)[0]
