"""The archive's public pages: player pages, downloadable records, and a board as an image.

The archive list itself is `/matches` (matches.py); its JSON twin is archive_api.py.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Flask, Response, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response as WerkzeugResponse

from pbem.core.accounts.models import Player
from pbem.core.accounts.players import find_player
from pbem.core.matches.creation import get_match, rules_for, state_after
from pbem.core.ratings.model import shown
from pbem.core.ratings.queries import as_dict, chart_svg, head_to_head, history, rank_of, ratings_of
from pbem.core.records.archive import Filters, list_matches
from pbem.core.records.exports import match_record, record_text
from pbem.core.records.standings import (
    public_player,
    record_by_game,
    set_hidden_from_archive,
)
from pbem.errors import NotFoundError
from pbem.games import REGISTRY
from pbem.i18n import _
from pbem.web.accounts.auth import player_required, signed_in_player
from pbem.web.matches.public import requested_ply, site_url
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

bp = Blueprint("archive", __name__)

LIVE_SHOWN = 12
FINISHED_SHOWN = 10
# The board drawn by pbem/games/boards/grid.py: up to its own end tag, not the key's little pictures
# after it (Mimic's legend); a game drawn as HTML (Mimic Taking's cards) has none.
_SVG = re.compile(r'<svg class="board\b.*?</svg>', re.DOTALL)


@bp.get("/players/<name>")
def player(name: str) -> str | WerkzeugResponse:
    found = public_player(name)
    shown = found.public_name
    if shown != name:  # found ignoring case: send links to one address
        return redirect(url_for("archive.player", name=shown), code=301)
    live = list_matches(Filters(player=shown, status="live"), limit=LIVE_SHOWN)
    finished = list_matches(Filters(player=shown, status="finished"), limit=FINISHED_SHOWN)
    by_game = record_by_game(found)
    totals = {key: sum(row[key] for row in by_game)
              for key in ("finished", "wins", "losses", "draws", "live")}
    # Thumbnails only of games drawn as an SVG board; another's board.svg would be a 404.
    pictured = {slug for slug, rules in REGISTRY.items() if rules.board_picture}
    return render_template("players/show.html", name=shown, by_game=by_game, totals=totals,
                           live=live, finished=finished, pictured=pictured,
                           ratings=_ratings(found), versus=_versus(found))


def _ratings(found: Player) -> list[dict[str, Any]]:
    """Per rated game: the rating, rank, rated games, W/D/L and the history chart."""
    moment = now()
    rows = []
    for game, row in sorted(ratings_of(found.id).items()):
        rows.append({"game": game, "title": REGISTRY[game].title if game in REGISTRY else game,
                     "shown": shown(row.display, row.games), **as_dict(row),
                     "wins": row.wins, "draws": row.draws, "losses": row.losses,
                     "rank": rank_of(row, moment),
                     "chart": Markup(chart_svg(history(found.id, game)))})
    return rows


def _versus(found: Player) -> dict[str, Any] | None:
    """Head-to-head against `?vs=<name>`: per game, wins, draws and losses."""
    other_name = (request.args.get("vs") or "").strip()
    if not other_name:
        return None
    other = find_player(other_name)
    if other is None or other.hidden_from_archive or other.id == found.id:
        return {"name": other_name, "missing": True, "games": []}
    games = [{"game": game, "title": REGISTRY[game].title if game in REGISTRY else game,
              **tally} for game, tally in sorted(head_to_head(found.id, other.id).items())]
    return {"name": other.public_name, "missing": False, "games": games}


@bp.get("/matches/<int:match_id>/record.json")
def record_json(match_id: int) -> Response:
    match = get_match(match_id)
    body = json.dumps(match_record(match), indent=1, ensure_ascii=False) + "\n"
    return _download(body, "application/json", f"pbem-match-{match.id}.json", match.is_live)


@bp.get("/matches/<int:match_id>/record.txt")
def record_txt(match_id: int) -> Response:
    match = get_match(match_id)
    url = site_url("matches.show", match_id=match.id)
    # Werkzeug adds "; charset=utf-8" to a text/* mimetype itself (it was written twice).
    return _download(record_text(match_record(match), url), "text/plain",
                     f"pbem-match-{match.id}.txt", match.is_live)


@bp.get("/matches/<int:match_id>/board.svg")
def board_svg(match_id: int) -> Response:
    """The spectator's board after `?ply=N` (default: now), as a standalone SVG image."""
    match = get_match(match_id)
    ply = requested_ply(match.ply)
    shown = match.ply if ply is None else ply
    rules = rules_for(match)
    view = rules.view(state_after(match, shown), None)
    html = render_template(f"games/{match.game}/board.html", view=view, seat=None,
                           legal_moves=[], over=not match.is_live and shown == match.ply)
    found = _SVG.search(html)
    if found is None:
        raise NotFoundError(_("%(game)s has no board picture.", game=rules.title))
    svg = found.group(0)
    if "xmlns=" not in svg[:200]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    response = Response('<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n",
                        mimetype="image/svg+xml")
    # A past ply never changes; the latest one of a live match does with the next move.
    settled = ply is not None and (ply < match.ply or not match.is_live)
    response.headers["Cache-Control"] = ("public, max-age=86400" if settled
                                         else "public, max-age=60")
    return response


@bp.post("/me/archive")
@player_required
def archive_choice() -> WerkzeugResponse:
    """The signed-in player's choice, from their settings page: keep their page out of the
    archive, or show it again."""
    player = signed_in_player()
    hidden = request.form.get("hidden_from_archive") == "on"
    set_hidden_from_archive(player.id, hidden)
    return redirect_with(_("Your player page is now hidden from the archive.") if hidden
                         else _("Your player page is public again: /players/%(name)s.",
                                name=player.public_name),
                         "me.settings")


def _download(body: str, mimetype: str, filename: str, live: bool) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    response.headers["Cache-Control"] = "no-cache" if live else "public, max-age=3600"
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
