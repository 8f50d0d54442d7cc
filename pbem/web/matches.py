"""Public match pages: the list, and a match's record with a replay by move number."""

from __future__ import annotations

from flask import Blueprint, Flask, jsonify, render_template, request
from werkzeug.wrappers import Response

from pbem.core.matches import get_match, recent_matches
from pbem.core.models import Match
from pbem.core.records import public_record
from pbem.errors import InvalidRequestError
from pbem.games import REGISTRY
from pbem.web.clock import now
from pbem.web.inputs import whole_number

bp = Blueprint("matches", __name__)


@bp.get("/matches")
def index() -> str:
    titles = {slug: rules.title for slug, rules in REGISTRY.items()}
    return render_template("matches/index.html", matches=recent_matches(), titles=titles)


@bp.get("/matches/<int:match_id>")
def show(match_id: int) -> str:
    match = get_match(match_id)
    shown = requested_ply(match.ply)
    record = public_record(match, now(), shown)
    # Only the live position follows the match by itself; a replayed one stays put.
    poll = poll_tag(match) if match.is_live and shown is None else None
    return render_template("matches/show.html", record=record, poll_tag=poll)


@bp.get("/matches/<int:match_id>/ply")
def ply(match_id: int) -> Response:
    """How far a match has got, for pages that wait for a move: answers 304 while the
    `If-None-Match` tag still holds, so a page can ask every few seconds at almost no cost."""
    match = get_match(match_id)
    response = jsonify(ply=match.ply, status=match.status, version=match.version)
    response.set_etag(poll_tag(match))
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


def poll_tag(match: Match) -> str:
    """The entity tag of `/matches/<id>/ply`: it changes with every change to the match (a
    move, a draw offer, a resignation, a ruling), since each one bumps the match's version."""
    return f"{match.ply}-{match.version}-{match.status}"


def requested_ply(latest: int) -> int | None:
    raw = request.args.get("ply")
    if raw is None or raw == "":
        return None
    ply = whole_number(raw)
    if ply is None:
        shown = raw if len(raw) <= 20 else raw[:20] + "…"
        raise InvalidRequestError(f"ply must be a move number from 0 to {latest}, not {shown!r}")
    return ply


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
