"""`/ratings`: how ratings are computed (so anyone can recompute them) and each game's
leaderboard, `/ratings/<game>`, keyset-paged."""

from __future__ import annotations

from flask import Blueprint, Flask, render_template, request

from pbem.core.ratings import model
from pbem.core.ratings.queries import PAGE_SIZE, leaderboard
from pbem.errors import NotFoundError
from pbem.games import REGISTRY
from pbem.i18n import _
from pbem.web.site.clock import now

bp = Blueprint("ratings", __name__, url_prefix="/ratings")


@bp.get("")
def index() -> str:
    games = sorted(REGISTRY.values(), key=lambda rules: rules.title)
    return render_template("ratings/index.html", games=games, model=model)


@bp.get("/<game>")
def board(game: str) -> str:
    if game not in REGISTRY:
        raise NotFoundError(_("There is no game called %(game)r here.", game=game))
    page = leaderboard(game, now(), request.args.get("cursor") or None)
    return render_template("ratings/board.html", game=REGISTRY[game], page=page,
                           first_page=not request.args.get("cursor"), page_size=PAGE_SIZE,
                           minimum=model.PROVISIONAL_BELOW)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
