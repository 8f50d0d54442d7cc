"""The games: the list and each game's rules page."""

from __future__ import annotations

from flask import Blueprint, Flask, abort, render_template

from pbem.games import REGISTRY

bp = Blueprint("games", __name__)


@bp.get("/")
def home() -> str:
    return render_template("games/index.html", games=sorted(REGISTRY.values(),
                                                            key=lambda rules: rules.title))


@bp.get("/games")
def index() -> str:
    return home()


@bp.get("/games/<slug>")
def rules_page(slug: str) -> str:
    rules = REGISTRY.get(slug)
    if rules is None:
        abort(404)
    return render_template(f"games/{slug}/rules.html", rules=rules)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
