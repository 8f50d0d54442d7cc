"""Playing the computer on the web: the form (on /me, each game's page and its own page) and
the POST that starts the match and opens the player's seat. The API's twin is
`POST /api/challenges/computer` (web/accounts/api.py)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, render_template, request
from werkzeug.wrappers import Response

from pbem.bots import LEVELS
from pbem.core.computer.opponents import ComputerRequest, play_computer
from pbem.errors import PbemError
from pbem.games import REGISTRY
from pbem.games.base import RulesError
from pbem.i18n import _
from pbem.web.accounts.auth import player_required, signed_in_player
from pbem.web.lobby.challenges import options_from_form
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

bp = Blueprint("computer", __name__)


@bp.get("/computer")
@player_required
def new() -> str:
    return _form_page(fresh_form(request.args.get("game", "")), None)[0]


def fresh_form(game: str) -> dict[str, str]:
    """The form as first shown: the game asked for, and every game's options at their
    defaults. The option controls draw a form naming a game as one that was sent (a box left
    unticked is off), so the defaults are filled in as a sent form would carry them: without
    this, Mimic started with `mimic_goal_wins` off."""
    form = {"game": game}
    for rules in REGISTRY.values():
        for option in rules.options:
            field = f"option.{rules.slug}.{option.name}"
            if option.default is True:
                form[field] = "on"
            elif not isinstance(option.default, bool):
                form[field] = str(option.default)
    return form


@bp.post("/computer")
@player_required
def create() -> Response | tuple[str, int]:
    form = request.form
    game = form.get("game", "")
    try:
        played = play_computer(signed_in_player(), ComputerRequest(
            game=game, level=form.get("level", ""), options=options_from_form(form, game),
            clock=(form.get("clock") or "").strip() or _settings().default_time_control,
            seat=form.get("seat") or "random", players=form.get("players") or None),
            _settings().secret_key, now())
    except (PbemError, RulesError) as error:
        return _form_page(form, str(error),
                          422 if isinstance(error, RulesError) else error.status)
    # The play page follows the match by itself (its script polls), so no reload is asked for.
    return redirect_with(_("Your match against the computer has started; you play seat "
                           "%(seat)s. The computer answers within seconds, and this page shows "
                           "its move when it comes.", seat=played.seat + 1),
                         "play.show", token=played.token)


def form_context() -> dict[str, Any]:
    """What the form needs, for the pages that include it (/me, a game's page)."""
    return {"computer_games": sorted(REGISTRY.values(), key=lambda rules: rules.title),
            "computer_levels": list(LEVELS.values()),
            "computer_clock": _settings().default_time_control}


def _form_page(form: Any, error: str | None, status: int | None = None) -> tuple[str, int]:
    return render_template("computer/new.html", form=form, error=error, **form_context()), (
        status or (400 if error else 200))


def _settings() -> Any:
    return current_app.config["PBEM_SETTINGS"]


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
