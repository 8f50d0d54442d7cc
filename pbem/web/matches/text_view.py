"""Text mode on the public match page, a spectator's read-only view: the board is replaced by
the game's text drawing and a command line whose commands read the position
(pbem/games/text_commands.py); nothing typed there is ever a move. Everything rides on the
page's own address (`?text=on`, `&line=row 2`): a read, so a plain GET form with no session
and no CSRF token, and the same answer for the same address. A signed-in player whose
setting is on (the play page's toggle) gets it without asking; `?text=off` turns it off.

The play page's analysis board asks the same commands about its line (`line_answer`)."""

from __future__ import annotations

from typing import Any

from flask import request

from pbem.core.matches.models import Match
from pbem.core.records.match_record import move_window, moves_for
from pbem.games import get_rules
from pbem.games.base import GameRules
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
    return Reading(record["board_text"], [], listed_moves(record["moves"]), clock_lines(record),
                   record["view"], first_ply(record["moves"], record["ply"]))


def line_answer(match: Match, rules: GameRules, start: Any, seat: int,
                analysis: dict[str, Any], typed: str) -> str | None:
    """Text mode's answer to `typed` about the analysis board's line (`analysis`, from
    pbem.games.lines.analyse over the live position `start`), or None when it is no command
    (a move for the line, then). The commands read the line's last position as the seat sees
    it and the legal moves of the side to move there; `last` reads the match's latest moves
    followed by the line's. The analysis board runs no clock."""
    listed = moves_for(match, rules, start, seat, move_window(match.ply, None, None))["moves"]
    played = listed_moves(listed) + [(rules.seat_label(start, position["seat"]), position["move"])
                                     for position in analysis["positions"][1:]]
    reading = Reading(analysis["board_text"], analysis["legal_moves"], played,
                      [_("The analysis board runs no clock: nothing on it is sent.")],
                      analysis["positions"][-1]["view"], first_ply(listed, match.ply))
    return answer(package_of(match.game), reading, typed)


def listed_moves(moves: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """A page of the move list as the commands read it: (who, move), a hidden one so named."""
    return [(str(m["by"]), m["text"] or _("(hidden)")) for m in moves]


def first_ply(moves: list[dict[str, Any]], ply: int) -> int:
    """The number of a move list page's first move (the page may start late); with no move
    listed, the number the next move will have."""
    return moves[0]["ply"] if moves else ply + 1


def clock_lines(record: dict[str, Any]) -> list[str]:
    """Each player's time left, one line a player (a computer's clock is not read)."""
    return [_("%(player)s: %(left)s.", player=c["label"],
              left=(c["deadline"] or {}).get("left") or _("waiting"))
            for c in record["clocks"] if not c["computer"]]


def package_of(game: str) -> str:
    """The package of the game's rules (its own commands live there)."""
    return type(get_rules(game)).__module__.rsplit(".", 1)[0]
