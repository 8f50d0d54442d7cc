"""A seat's private page, `/play/<token>`. GET only shows; POST submits a move."""

from __future__ import annotations

from datetime import datetime

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from pbem.core.play import submit_move
from pbem.core.records import seat_record
from pbem.core.tokens import seat_for_token
from pbem.errors import PbemError
from pbem.games.base import RulesError

bp = Blueprint("play", __name__)


@bp.get("/play/<token>")
def show(token: str) -> Response:
    seat = seat_for_token(token)
    return _page(seat_record(seat), status=200)


@bp.post("/play/<token>")
def move(token: str) -> Response:
    seat = seat_for_token(token)
    text = (request.form.get("move_text") or "").strip() or (request.form.get("move") or "")
    ply_field = request.form.get("ply", "")
    if not text.strip():
        return _page(seat_record(seat), status=422, error="Choose a move or type one.")
    if not ply_field.isdigit():
        return _page(seat_record(seat), status=400,
                     error="The form was incomplete (no move number). Reload the page.")
    try:
        result = submit_move(seat.match_id, seat.seat, text, int(ply_field), now())
    except (RulesError, PbemError) as error:
        status = 422 if isinstance(error, RulesError) else error.status
        return _page(seat_record(seat), status=status, error=str(error), typed=text)
    news = "; ".join(result.events)
    flash(f"Your move {result.text} was made." + (f" {news}." if news else ""), "ok")
    return redirect(url_for("play.show", token=token), code=303)


def _page(record: dict, status: int, error: str | None = None, typed: str = "") -> Response:
    response = make_response(render_template("play/play.html", record=record, error=error,
                                             typed=typed), status)
    # The page is private to the seat: never cache it anywhere.
    response.headers["Cache-Control"] = "no-store"
    return response


def now() -> datetime:
    return current_app.config["PBEM_CLOCK"]()


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
