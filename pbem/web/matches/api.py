"""The JSON API: a seat's record and moves by token, and public match records.

Errors are problem+json (RFC 9457): 400 malformed request, 404 bad token or match, 409 stale
or duplicate submission or an action not allowed now, 422 a move the rules refuse (with the
rules' message).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.wrappers import Response

from pbem.core.matches import conditional, lifecycle, vacations
from pbem.core.matches.changes import Channel
from pbem.core.matches.creation import get_match
from pbem.core.matches.play import submit_move
from pbem.core.matches.seat_links import seat_and_table, seat_for_token
from pbem.core.records.match_record import public_record
from pbem.errors import InvalidRequestError, UnprocessableError
from pbem.i18n import _
from pbem.web.follow.offline import idempotency_key
from pbem.web.follow.presence import note_presence
from pbem.web.matches.public import requested_moves, requested_ply
from pbem.web.matches.seat import (
    analysis_for,
    api_seat_action,
    line_lists,
    move_list,
    record_for,
    record_key,
)
from pbem.web.matches.text_view import MAX_LINE
from pbem.web.site.clock import now
from pbem.web.site.inputs import json_whole, known_fields
from pbem.web.site.kept_answers import kept_answer
from pbem.web.site.security import private

bp = Blueprint("api", __name__, url_prefix="/api")
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@bp.get("/play/<token>")
def seat_state(token: str) -> Response:
    seat, seats = seat_and_table(token)
    note_presence(seat.match_id, seat.seat)  # a client polling its seat is looking at it
    record = record_for(seat, seats=seats)
    # A polling client's usual answer is the last one again: kept encoded, with an ETag
    # (keyed by the record's largest parts' digest, made once per version, and the rest).
    return private(kept_answer(record, record_key(seat, record)))


@bp.post("/play/<token>")
def seat_move(token: str) -> Response:
    seat = seat_for_token(token)
    body = _json_object()
    text, ply = body.get("move"), json_whole(body.get("ply"))
    if not isinstance(text, str):
        raise InvalidRequestError(_('"move" must be a non-empty string, like "e2-e3"'))
    if not text.strip():
        raise UnprocessableError(_('"move" is blank: write a move, like "e2-e3"'))
    if ply is None or ply < 0:
        raise InvalidRequestError(_('"ply" must be the move number you saw (a whole number)'))
    offer_draw = body.get("offer_draw", False)
    if not isinstance(offer_draw, bool):
        raise InvalidRequestError(_('"offer_draw" must be true or false'))
    takebacks = json_whole(body.get("takebacks")) if "takebacks" in body else None
    if "takebacks" in body and (takebacks is None or takebacks < 0):
        raise InvalidRequestError(_('"takebacks" must be the takeback count you saw (a whole '
                                    'number)'))
    note_presence(seat.match_id, seat.seat)  # before the move: an answer at once waits
    result = submit_move(seat.match_id, seat.seat, text, ply, now(), offer_draw=offer_draw,
                         via=Channel.API, idempotency_key=idempotency_key(body),
                         expected_takebacks=takebacks)
    # The answer is built from the match as the move left it (no second lookup of the link).
    seat.match = result.match
    record = record_for(seat)
    record["applied"] = {"move": result.text, "events": list(result.events),
                         "conditional_answer": result.answered_with}
    return private(jsonify(record))


# Modelled on lichess's board API. Each answers the new record, or problem+json: 409 (with
# the reason) when the action is not allowed now, 404 for a bad token.
for _path, _service in (("resign", lifecycle.resign), ("draw/yes", lifecycle.draw_yes),
                        ("draw/no", lifecycle.draw_no), ("abort", lifecycle.abort),
                        ("claim-victory", lifecycle.claim_victory)):
    bp.add_url_rule(f"/play/<token>/{_path}", "seat_" + _path.replace("/", "_").replace("-", "_"),
                    api_seat_action(_service), methods=["POST"])


# -- vacations: the seat's player's, across all their matches --

@bp.post("/play/<token>/vacation")
def declare_vacation(token: str) -> tuple[Response, int]:
    seat = seat_for_token(token)
    body = _json_object('{"first_day": "2026-07-01", "last_day": "2026-07-14"}')
    known_fields(body, ("first_day", "last_day"))
    first, last = (_json_day(body.get(name), f'"{name}"') for name in ("first_day", "last_day"))
    settings = current_app.config["PBEM_SETTINGS"]
    vacations.declare(seat.player_id, first, last, settings.vacation_days_per_year, now(),
                      via=Channel.API)
    # Read again: the record's vacations come from the player row the declaration changed.
    return private(jsonify(record_for(seat_for_token(token)))), 201


@bp.delete("/play/<token>/vacation/<int:vacation_id>")
def cancel_vacation(token: str, vacation_id: int) -> Response:
    seat = seat_for_token(token)
    cancelled = vacations.cancel(seat.player_id, vacation_id, now(), via=Channel.API)
    record = record_for(seat_for_token(token))
    record["done"] = "ended" if cancelled.ended else "withdrawn"
    return private(jsonify(record))


def _json_day(value: Any, name: str) -> date:
    # Only the form the description gives (`date.fromisoformat` would also take "20260701"
    # and week dates).
    if isinstance(value, str) and _DAY.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise InvalidRequestError(_("%(name)s must be a date like \"2026-07-01\"", name=name))


# -- conditional moves and the analysis board: the seat's own, never shown to anyone else --

@bp.get("/play/<token>/conditional")
def conditional_lines(token: str) -> Response:
    seat = seat_for_token(token)
    return private(jsonify(conditional.stored(seat.match, seat.seat).as_json()))


@bp.put("/play/<token>/conditional")
def store_conditional(token: str) -> Response:
    seat = seat_for_token(token)
    body = _json_object('{"lines": [["their move", "my answer", ...], ...]}')
    lines = line_lists(body.get("lines"), '"lines"')
    ply = json_whole(body.get("ply")) if body.get("ply") is not None else None
    if body.get("ply") is not None and (ply is None or ply < 0):
        raise InvalidRequestError(_('"ply" must be the move number you saw (a whole number)'))
    stored = conditional.store(seat.match_id, seat.seat, lines, now(), expected_ply=ply)
    return private(jsonify(stored.as_json()))


@bp.delete("/play/<token>/conditional")
def clear_conditional(token: str) -> Response:
    seat = seat_for_token(token)
    return private(jsonify(conditional.store(seat.match_id, seat.seat, [], now()).as_json()))


@bp.post("/play/<token>/analyse")
def analyse(token: str) -> Response:
    seat = seat_for_token(token)
    body = _json_object('{"moves": ["e2-e3", ...]}')
    known_fields(body, ("moves", "board", "ask"))
    moves = move_list(body.get("moves", []), '"moves"')
    board = body.get("board", False)
    if not isinstance(board, bool):
        raise InvalidRequestError(_('"board" must be true or false'))
    ask = body.get("ask")
    if ask is not None and (not isinstance(ask, str) or not ask.strip()
                            or len(ask) > MAX_LINE):
        raise InvalidRequestError(_('"ask" must be a command of text mode of 1 to %(limit)s '
                                    'characters, like "row 3"', limit=MAX_LINE))
    return private(jsonify(analysis_for(seat, moves, board,
                                        None if ask is None else ask.strip())))


@bp.get("/matches/<int:match_id>")
def match_record(match_id: int) -> Response:
    match = get_match(match_id)
    return jsonify(public_record(match, now(), requested_ply(match.ply),
                                 requested_moves(match.ply)))


def _json_object(shape: str = '{"move": "...", "ply": N}') -> dict[str, Any]:
    if not request.is_json:
        raise InvalidRequestError(_("send a JSON body with Content-Type: application/json"))
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise InvalidRequestError(_("the body must be a JSON object: %(shape)s", shape=shape))
    return body


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
