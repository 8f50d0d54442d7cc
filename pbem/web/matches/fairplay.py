"""A seat's salt for a committed deal (docs: players, "Fair play"): the play page's form
(`POST /play/<token>/salt`) and the API's `PUT /api/play/<token>/salt`. A salt is a move
of the game (`salt <text>`), so both hand it to the door like any move, as a reply does."""

from __future__ import annotations

from flask import Blueprint, Flask, jsonify, request
from werkzeug.wrappers import Response

from pbem.core.matches.changes import Channel
from pbem.core.matches.play import submit_move
from pbem.core.matches.seat_links import seat_for_token, seat_ref_for_token
from pbem.errors import InvalidRequestError, PbemError
from pbem.games.base import RulesError
from pbem.i18n import _
from pbem.web.matches.seat import page, record_for
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.inputs import json_whole, whole_number
from pbem.web.site.security import private

bp = Blueprint("fairplay", __name__)


@bp.post("/play/<token>/salt")
def add_salt(token: str) -> Response:
    """The page's form: the typed salt, or none to take the one offered."""
    ref = seat_ref_for_token(token)
    salt = (request.form.get("salt") or "").strip()
    ply = whole_number(request.form.get("ply", ""))
    try:
        result = submit_move(ref.match_id, ref.seat, f"salt {salt}".strip(), ply, now())
    except (RulesError, PbemError) as error:
        seat = seat_for_token(token)
        status = 422 if isinstance(error, RulesError) else error.status
        return page(seat, record_for(seat), status=status, error=str(error))
    return redirect_with("; ".join(result.events) + ".", "play.show", token=token)


@bp.put("/api/play/<token>/salt")
def put_salt(token: str) -> Response:
    seat = seat_for_token(token)
    body = request.get_json(silent=True) if request.is_json else None
    if not isinstance(body, dict) or not isinstance(body.get("salt", ""), str):
        raise InvalidRequestError(_('send a JSON object: {"salt": "any text", "ply": N} '
                                    '(an empty salt takes the one you were given)'))
    ply = json_whole(body.get("ply")) if "ply" in body else None
    # A salt the rules refuse (too long, too late, added already) is a RulesError: 422.
    result = submit_move(seat.match_id, seat.seat, f"salt {body.get('salt', '')}".strip(),
                         ply, now(), via=Channel.API)
    seat.match = result.match
    record = record_for(seat)
    record["applied"] = {"move": result.text, "events": list(result.events),
                         "conditional_answer": result.answered_with}
    return private(jsonify(record))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
