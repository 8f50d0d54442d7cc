"""Public match pages: the list, and a match's record with a replay by move number."""

from __future__ import annotations

from flask import Blueprint, Flask, render_template, request

from pbem.core.matches import get_match, recent_matches
from pbem.core.records import public_record
from pbem.errors import InvalidRequestError
from pbem.games import REGISTRY
from pbem.web.auth import current_player
from pbem.web.clock import now

bp = Blueprint("matches", __name__)


@bp.get("/matches")
def index() -> str:
    titles = {slug: rules.title for slug, rules in REGISTRY.items()}
    return render_template("matches/index.html", matches=recent_matches(), titles=titles)


@bp.get("/matches/<int:match_id>")
def show(match_id: int) -> str:
    match = get_match(match_id)
    record = public_record(match, now(), requested_ply(match.ply))
    viewer = current_player()
    can_rematch = (viewer is not None and not match.is_live
                   and any(seat.player_id == viewer.id for seat in match.seat_rows()))
    return render_template("matches/show.html", record=record, can_rematch=can_rematch)


def requested_ply(latest: int) -> int | None:
    raw = request.args.get("ply")
    if raw is None or raw == "":
        return None
    if not raw.isdigit():
        raise InvalidRequestError(f"ply must be a move number from 0 to {latest}, not {raw!r}")
    return int(raw)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
