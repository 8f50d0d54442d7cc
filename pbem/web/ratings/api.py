"""`GET /api/ratings/<game>[?cursor=]`: a game's leaderboard as JSON, a keyset page at a
time; `GET /api/players/<name>`: a player's public record and ratings. Public reads: no token
needed (the same as the pages). A bad cursor is a 400 problem+json; an unknown game or player
a 404."""

from __future__ import annotations

from flask import Blueprint, Flask, jsonify, request, url_for
from werkzeug.wrappers import Response

from pbem.core.ratings.queries import as_dict, leaderboard, ratings_of
from pbem.core.records.standings import public_player, record_by_game
from pbem.errors import NotFoundError
from pbem.games import REGISTRY
from pbem.i18n import _
from pbem.web.site.clock import now

bp = Blueprint("ratings_api", __name__, url_prefix="/api")


@bp.get("/ratings/<game>")
def board(game: str) -> Response:
    if game not in REGISTRY:
        raise NotFoundError(_("There is no game called %(game)r here.", game=game))
    page = leaderboard(game, now(), request.args.get("cursor") or None)
    return jsonify({"game": game, "players": page.rows, "next": page.next_cursor,
                    "next_url": url_for("ratings_api.board", game=game,
                                        cursor=page.next_cursor) if page.next_cursor else None})


@bp.get("/players/<name>")
def player(name: str) -> Response:
    found = public_player(name)
    return jsonify({
        "name": found.public_name,
        "url": url_for("archive.player", name=found.public_name),
        "record": record_by_game(found),
        "ratings": {game: as_dict(row) for game, row in sorted(ratings_of(found.id).items())},
    })


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
