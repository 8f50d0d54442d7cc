"""Public match pages: the list, and a match's record with a replay by move number."""

from __future__ import annotations

from flask import Blueprint, Flask, render_template, request, url_for

from pbem.core.matches import get_match, recent_matches
from pbem.core.records import public_record
from pbem.errors import InvalidRequestError
from pbem.games import REGISTRY
from pbem.web.clock import now

bp = Blueprint("matches", __name__)


@bp.get("/matches")
def index() -> str:
    titles = {slug: rules.title for slug, rules in REGISTRY.items()}
    return render_template("matches/index.html", matches=recent_matches(), titles=titles)


@bp.get("/matches/<int:match_id>")
def show(match_id: int) -> str:
    match = get_match(match_id)
    record = public_record(match, now(), requested_ply(match.ply), requested_moves(match.ply))
    return render_template("matches/show.html", record=record)


def requested_ply(latest: int) -> int | None:
    return _number_arg("ply", f"a move number from 0 to {latest}")


def requested_moves(latest: int) -> int | None:
    """`?moves=N`: the move list's page that ends at move N (default: the latest)."""
    return _number_arg("moves", f"a move number from 1 to {latest}")


def page_url(**changes: object) -> str:
    """This page's address with some query arguments changed (None drops one): the links to
    other pages of a list keep the rest of the query (the ply shown, the filters)."""
    args = {**request.args.to_dict(), **changes}
    args = {name: value for name, value in args.items() if value is not None}
    return url_for(request.endpoint or "matches.index", **(request.view_args or {}), **args)


def _number_arg(name: str, what: str) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 9:
        raise InvalidRequestError(f"{name} must be {what}, not {raw!r}")
    return int(raw)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.jinja_env.globals["page_url"] = page_url
