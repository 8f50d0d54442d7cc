"""The games: the list and each game's rules page."""

from __future__ import annotations

from flask import Blueprint, Flask, abort, current_app, redirect, render_template, url_for
from werkzeug.wrappers import Response

from pbem.games import REGISTRY
from pbem.web.lobby.computer import form_context as computer_form_context

bp = Blueprint("games", __name__)


@bp.get("/")
def home() -> str:
    return render_template("games/index.html", games=sorted(REGISTRY.values(),
                                                            key=lambda rules: rules.title))


@bp.get("/games")
def index() -> str:
    return home()


@bp.get("/games/<slug>")
def rules_page(slug: str) -> Response | str:
    rules = REGISTRY.get(slug.lower())
    if rules is None:
        abort(404)
    if rules.slug != slug:
        return redirect(url_for("games.rules_page", slug=rules.slug), 301)
    settings = current_app.config["PBEM_SETTINGS"]
    return render_template(f"games/{slug}/rules.html", rules=rules,
                           max_extension_days=settings.max_extension_days,
                           autoplay_limit=settings.autoplay_limit, **computer_form_context())


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
