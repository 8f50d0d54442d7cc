"""Open seeks: the list, posting one, joining one (the match starts when it is full)."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, render_template, request
from werkzeug.wrappers import Response

from pbem.core.accounts.models import Player
from pbem.core.lobby import seeks
from pbem.errors import InvalidRequestError, PbemError
from pbem.games import REGISTRY
from pbem.games.base import RulesError
from pbem.i18n import _
from pbem.web.accounts.auth import current_player, player_required, signed_in_player
from pbem.web.lobby.challenges import options_from_form
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.inputs import whole_number

bp = Blueprint("seeks", __name__, url_prefix="/seeks")


@bp.get("")
def index() -> str:
    return _page(None)[0]


@bp.post("")
@player_required
def create() -> Response | tuple[str, int]:
    form = request.form
    settings = current_app.config["PBEM_SETTINGS"]
    try:
        count = whole_number(form.get("players") or "")
        if count is None or count > 99:
            raise InvalidRequestError(_("The number of players is a whole number, like 2."))
        seeks.create_seek(settings, _player(), form.get("game", ""),
                          options_from_form(form, form.get("game", "")),
                          (form.get("clock") or "").strip() or settings.default_time_control,
                          count, now(),
                          on_timeout=form.get("on_timeout") or settings.default_on_timeout,
                          rated=form.get("rated") == "on",
                          rating_min=_bound(form.get("rating_min"), low=True),
                          rating_max=_bound(form.get("rating_max"), low=False),
                          computers=form.get("computers", ""))
    except (PbemError, RulesError) as error:
        return _page(str(error), 422 if isinstance(error, RulesError) else error.status)
    return redirect_with(_("Seek posted: the match starts when its seats are taken."),
                         "seeks.index")


@bp.post("/<int:seek_id>/join")
@player_required
def join(seek_id: int) -> Response:
    seek = seeks.join(current_app.config["PBEM_SETTINGS"], seek_id, _player(), now())
    if seek.match_id is not None:
        return redirect_with(_("The seek is full: match %(match)s has started. Your link is "
                               "below and in your email.", match=seek.match_id), "me.home")
    return redirect_with(_("You have a seat; the match starts when the others are taken."),
                         "seeks.index")


@bp.post("/<int:seek_id>/cancel")
@player_required
def cancel(seek_id: int) -> Response:
    seeks.cancel(seek_id, _player(), now())
    return redirect_with(_("Seek cancelled."), "seeks.index")


def _page(error: str | None, status: int = 200) -> tuple[str, int]:
    viewer = current_player()
    settings = current_app.config["PBEM_SETTINGS"]
    listed = [seeks.describe(seek, viewer) for seek in seeks.open_seeks(viewer=viewer)]
    games = sorted(REGISTRY.values(), key=lambda rules: rules.title)
    return render_template("seeks/index.html", seeks=listed, error=error, games=games,
                           form=request.form, default_clock=settings.default_time_control
                           ), status


def _bound(text: str | None, low: bool) -> int | None:
    """A rating range's end from the form: blank is open."""
    text = (text or "").strip()
    if not text:
        return None
    number = whole_number(text)
    if number is None or number > 99_999:
        raise InvalidRequestError(
            _("The lowest rating is a whole number, like 1200, or blank.") if low
            else _("The highest rating is a whole number, like 1200, or blank."))
    return number


def _player() -> Player:
    return signed_in_player()


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
