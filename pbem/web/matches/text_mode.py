"""Text mode on a seat's play page: the toggle (the seat's player's setting, as the board's
confirmation step is) and the command line. A line is a command of the game
(pbem/games/text_commands.py), answered in the page's text-mode section, or else a move, made
as the move form makes it, with the same refusals read out there. Without script, as with it:
each line is a form post that comes back to the page, the answer in a live region."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, request
from werkzeug.wrappers import Response

from pbem.core.accounts.players import set_text_mode
from pbem.core.matches.play import submit_move
from pbem.core.matches.seat_links import seat_for_token
from pbem.errors import PbemError
from pbem.games.base import RulesError
from pbem.games.text_commands import Reading, answer, help_lines
from pbem.i18n import _
from pbem.web.matches.seat import record_for
from pbem.web.matches.text_view import clock_lines, first_ply, listed_moves, package_of
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.inputs import whole_number

bp = Blueprint("textmode", __name__)
SECTION = "text-mode"
MAX_LINE = 200


@bp.post("/play/<token>/text-mode")
def toggle(token: str) -> Response:
    seat = seat_for_token(token)
    on = request.form.get("text_mode") == "on"
    set_text_mode(seat.player_id, on)
    if on:
        return redirect_with(_("Text mode is on: type help for the commands, or a move."),
                             "play.show", section=SECTION, token=token)
    return redirect_with(_("Text mode is off: the board is back."), "play.show", token=token)


@bp.post("/play/<token>/text")
def line(token: str) -> Response:
    seat = seat_for_token(token)
    typed = (request.form.get("line") or "").strip()[:MAX_LINE]
    if not typed:
        return _said(token, _("Type a command (help lists them) or a move."), "error")
    record = record_for(seat)
    said = answer(package_of(record["game"]), reading_of(record), typed)
    if said is not None:
        return _said(token, f"{typed}: {said}")
    try:
        result = submit_move(seat.match_id, seat.seat, typed,
                             whole_number(request.form.get("ply", "")) or record["ply"], now(),
                             expected_takebacks=whole_number(request.form.get("takebacks", "")))
    except (RulesError, PbemError) as error:
        return _said(token, _("Not played: %(why)s", why=error), "error")
    news = "; ".join(result.events)
    return _said(token, _("Your move %(move)s was made.", move=result.text)
                 + (f" {news}." if news else ""))


def reading_of(record: dict[str, Any]) -> Reading:
    """What the commands read, from the seat's record (its own view only)."""
    return Reading(record["board_text"], record["legal_moves"], listed_moves(record["moves"]),
                   clock_lines(record), record["view"], first_ply(record["moves"], record["ply"]))


def help_for(game: str) -> list[tuple[str, str]]:
    return help_lines(package_of(game))


def _said(token: str, message: str, category: str = "ok") -> Response:
    return redirect_with(message, "play.show", category=category, section=SECTION,
                         token=token)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.jinja_env.globals["text_mode_help"] = help_for
