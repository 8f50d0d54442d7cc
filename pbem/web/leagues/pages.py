"""League and ladder pages: the list, a league's divisions (the current season first, its
standings with who goes up and down, the games), a ladder's places and challenges; the forms
to join, leave, challenge and accept (signed in, by session and CSRF token)."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.leagues import describe, ladders, seasons
from pbem.errors import InvalidRequestError, PbemError
from pbem.i18n import _
from pbem.web.accounts.auth import current_player, player_required, signed_in_player
from pbem.web.site.clock import now

bp = Blueprint("leagues", __name__)


@bp.get("/leagues")
def index() -> str:
    return render_template(
        "leagues/index.html",
        leagues=[describe.describe_league(lg, detail=False) for lg in describe.league_listing()],
        ladders=[describe.describe_ladder(ld, detail=False) for ld in describe.ladder_listing()])


@bp.get("/leagues/<int:league_id>")
def show(league_id: int) -> str:
    found = describe.describe_league(seasons.get_league(league_id))
    viewer = current_player()
    member = viewer is not None and any(
        m["name"] == viewer.public_name and m["status"] == "member" for m in found["members"])
    return render_template("leagues/show.html", league=found, member=member)


@bp.post("/leagues/<int:league_id>/<any(join, leave):action>")
@player_required
def act(league_id: int, action: str) -> Response:
    try:
        if action == "join":
            seasons.join(league_id, signed_in_player(), now())
            flash(_("You are in. Your games come by email when the next season starts."), "ok")
        else:
            seasons.leave(league_id, signed_in_player(), now())
            flash(_("You have left the league: the season in play is played out."), "ok")
    except PbemError as error:
        flash(str(error), "error")
    return redirect(url_for("leagues.show", league_id=league_id), 303)


@bp.get("/ladders/<int:ladder_id>")
def ladder(ladder_id: int) -> str:
    found = describe.describe_ladder(ladders.get_ladder(ladder_id))
    viewer = current_player()
    mine = None
    if viewer is not None:
        mine = next((p["place"] for p in found["places"] if p["player"] == viewer.public_name),
                    None)
    return render_template("leagues/ladder.html", ladder=found, mine=mine,
                           viewer=viewer.public_name if viewer is not None else None)


@bp.post("/ladders/<int:ladder_id>/<any(join, leave, challenge, accept):action>")
@player_required
def ladder_act(ladder_id: int, action: str) -> Response:
    player, when = signed_in_player(), now()
    try:
        if action == "join":
            place = ladders.join(ladder_id, player, when)
            flash(_("You are on the ladder, at place %(place)s.", place=place), "ok")
        elif action == "leave":
            ladders.leave(ladder_id, player, when)
            flash(_("You have left the ladder."), "ok")
        elif action == "challenge":
            ladders.challenge(ladder_id, player, {"place": _whole(request.form.get("place"))},
                              when)
            flash(_("Challenge sent: the game starts when it is accepted."), "ok")
        else:
            ladders.accept(_whole(request.form.get("challenge")), player,
                           current_app.config["PBEM_SETTINGS"].secret_key, when,
                           ladder_id=ladder_id)
            flash(_("Accepted: the game has started, and its first mail is on its way."), "ok")
    except PbemError as error:
        flash(str(error), "error")
    return redirect(url_for("leagues.ladder", ladder_id=ladder_id), 303)


def _whole(text: str | None) -> int:
    value = (text or "").strip()
    if not value.isdigit() or len(value) > 9:
        raise InvalidRequestError(_("Choose from the list."))
    return int(value)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
