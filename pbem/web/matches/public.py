"""Public match pages: the list, and a match's record with a replay by move number."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    jsonify,
    make_response,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from pbem.bots.analysis import MISTAKE
from pbem.core.computer.analysis import analysis_of, describe
from pbem.core.conversation.chat import MAX_MESSAGE, may_read_spectators, spectators_room
from pbem.core.matches import history
from pbem.core.matches.creation import Progress, get_match, progress_of
from pbem.core.matches.models import Match
from pbem.core.ratings.queries import seat_ratings
from pbem.core.records.archive import Filters, list_matches
from pbem.core.records.match_record import public_record
from pbem.core.tournaments.table import tournament_of_match
from pbem.errors import InvalidRequestError
from pbem.games import REGISTRY
from pbem.i18n import _, ngettext
from pbem.web.accounts.auth import current_player
from pbem.web.matches.text_view import text_view
from pbem.web.site.clock import now
from pbem.web.site.inputs import whole_number

bp = Blueprint("matches", __name__)


@bp.get("/matches")
def index() -> str:
    """The archive: filters in the query, a keyset page at a time (`?cursor=`)."""
    filters = Filters.parse(request.args)
    page = list_matches(filters, request.args.get("cursor") or None)
    games = sorted(REGISTRY.values(), key=lambda rules: rules.title)
    return render_template("matches/index.html", page=page, filters=filters, games=games,
                           first_page=not request.args.get("cursor"))


@bp.get("/matches/<int:match_id>")
def show(match_id: int) -> Response:
    return render_show(match_id)


def render_show(match_id: int, status: int = 200, error: str | None = None,
                chat_typed: str = "") -> Response:
    """The public page; under it, the spectators' room for signed-in players who do not play
    in the match (never the players' own chat)."""
    match = get_match(match_id)
    shown = requested_ply(match.ply)
    record = public_record(match, now(), shown, requested_moves(match.ply))
    # Only the live position follows the match by itself; a replayed one stays put.
    poll = poll_tag(match) if match.is_live and shown is None else None
    viewer = current_player()
    can_rematch = (viewer is not None and not match.is_live
                   and any(seat.player_id == viewer.id for seat in match.seat_rows()))
    labels = {p["seat"]: p["label"] for p in record["players"]}
    # The match's history besides its moves (the moves have their own list), in words.
    events = [{**row, "words": history.words(row["kind"])}
              for row in history.public_events(match)]
    # A tournament's match names its tournament and round.
    tournament = tournament_of_match(match.id)
    seated = viewer is not None and any(seat.player_id == viewer.id
                                        for seat in match.seat_rows())
    gallery = None
    if viewer is not None and may_read_spectators(match, viewer):
        before = whole_number(request.args.get("before", "")) if request.args.get(
            "before") else None
        messages, older = spectators_room(match, viewer, before)
        gallery = {"messages": messages, "older": older, "paged": before is not None,
                   "typed": chat_typed, "limit": MAX_MESSAGE, "may_write": not seated,
                   "barred": viewer.chat_barred_at is not None}
    text = text_view(record, bool(viewer and viewer.text_mode)) if shown is None else None
    response = make_response(render_template(
        "matches/show.html", record=record, poll_tag=poll, preview=preview(record), text=text,
        can_rematch=can_rematch, events=events, labels=labels, gallery=gallery,
        viewer=viewer, seated=seated, error=error, rated=bool(match.rated),
        voided=match.voided_at is not None,
        seat_ratings=seat_ratings(match), tournament=tournament,
        # Analysis after the game: never offered while the match is live.
        analysis=None if match.is_live else describe(analysis_of(match.id), match.id),
        analysis_mistake=round(100 * MISTAKE)), status)
    if viewer is not None:
        # The spectators' room is for the signed-in reader alone: no shared cache keeps it.
        response.headers["Cache-Control"] = "private, no-store"
    return response


def preview(record: dict[str, Any]) -> dict[str, str | None]:
    """Title, description, permalink and image of a match page at its shown ply, for link
    previews: the game, the players and the position, in one sentence each."""
    match_id, shown, latest = record["match"], record["shown_ply"], record["ply"]
    vs = _(" vs ")
    players = vs.join(f"{p['name']} ({p['label']})" for p in record["players"])
    if shown == latest and record["status"] == "finished" and record["result"]:
        position = ngettext("Finished after %(num)s move: %(result)s.",
                            "Finished after %(num)s moves: %(result)s.", latest,
                            result=record["result"]["headline"])
    elif shown == latest and record["status"] == "aborted":
        position = ngettext("Aborted after %(num)s move.", "Aborted after %(num)s moves.",
                            latest)
    else:
        waiting = _(" and ").join(record["shown_to_move"])
        live = record["status"] == "active"
        if waiting:
            position = (_("After move %(n)s of %(total)s (in play): %(names)s to move.",
                          n=shown, total=latest, names=waiting) if live else
                        _("After move %(n)s of %(total)s: %(names)s to move.", n=shown,
                          total=latest, names=waiting))
        else:
            position = (_("After move %(n)s of %(total)s (in play).", n=shown, total=latest)
                        if live else _("After move %(n)s of %(total)s.", n=shown, total=latest))
    names = vs.join(p["name"] for p in record["players"])
    return {
        "title": (_("%(game)s #%(id)s: %(names)s, move %(n)s", game=record["title"], id=match_id,
                    names=names, n=shown) if shown != latest else
                  _("%(game)s #%(id)s: %(names)s", game=record["title"], id=match_id,
                    names=names)),
        "description": _("%(game)s: %(players)s. %(position)s", game=record["title"],
                         players=players, position=position),
        "permalink": site_url("matches.show", match_id=match_id, ply=shown),
        # A game drawn as a table of cards has no board picture (its board.svg is a 404).
        "image": site_url("archive.board_svg", match_id=match_id, ply=shown)
        if REGISTRY[record["game"]].board_picture else None,
    }


@bp.get("/matches/<int:match_id>/ply")
def ply(match_id: int) -> Response:
    """How far a match has got, for pages that wait for a move: answers 304 while the
    `If-None-Match` tag still holds, so a page can ask every few seconds at almost no cost."""
    progress = progress_of(match_id)
    response = jsonify(ply=progress.ply, status=progress.status, version=progress.version)
    response.set_etag(poll_tag(progress))
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


def poll_tag(match: Match | Progress) -> str:
    """The entity tag of `/matches/<id>/ply`: it changes with every change to the match (a
    move, a draw offer, a resignation, a ruling), since each one bumps the match's version."""
    return f"{match.ply}-{match.version}-{match.status}"


def requested_ply(latest: int) -> int | None:
    return _number_arg("ply", lambda: _("a move number from 0 to %(last)s", last=latest))


def requested_moves(latest: int) -> int | None:
    """`?moves=N`: the move list's page that ends at move N (default: the latest)."""
    return _number_arg("moves", lambda: _("a move number from 1 to %(last)s", last=latest))


def page_url(**changes: object) -> str:
    """This page's address with some query arguments changed (None drops one): the links to
    other pages of a list keep the rest of the query (the ply shown, the filters)."""
    args: dict[str, Any] = {**request.args.to_dict(), **changes}
    args = {name: value for name, value in args.items() if value is not None}
    return url_for(request.endpoint or "matches.index", **{**(request.view_args or {}), **args})


def site_url(endpoint: str, **values: Any) -> str:
    """An absolute address on the configured base URL (stable whatever Host a request used)."""
    base = current_app.config["PBEM_SETTINGS"].base_url.rstrip("/")
    return base + url_for(endpoint, **values)


def _number_arg(name: str, what: Callable[[], str]) -> int | None:
    """`?name=N` as a whole number, or None; `what` says what it must be (translated only for
    a refusal: most requests give none, and need never decide their reader's language)."""
    given = request.args.getlist(name)
    if len(given) > 1:
        raise InvalidRequestError(_("give %(name)s once, not %(count)s times", name=name,
                                    count=len(given)))
    raw = given[0] if given else None
    if raw is None or raw == "":
        return None
    number = whole_number(raw)
    if number is None:
        shown = raw if len(raw) <= 20 else raw[:20] + "…"
        raise InvalidRequestError(_("%(name)s must be %(what)s, not %(given)r", name=name,
                                    what=what(), given=shown))
    return number


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.jinja_env.globals["page_url"] = page_url
