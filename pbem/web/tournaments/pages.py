"""Tournament pages: the list, the form to organise one, and a tournament's page (standings,
crosstable, pairings per round, the knockout bracket drawn as SVG); the forms to join, leave,
start and withdraw (signed in, by session and CSRF token)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Blueprint, Flask, current_app, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.tournaments import running, service, table
from pbem.core.tournaments.service import FORMATS, Organising
from pbem.errors import InvalidRequestError, PbemError
from pbem.games import REGISTRY
from pbem.games.base import RulesError
from pbem.i18n import N_, _
from pbem.web.accounts.auth import current_admin, current_player, player_required, signed_in_player
from pbem.web.lobby.challenges import options_from_form
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.inputs import whole_number

bp = Blueprint("tournaments", __name__, url_prefix="/tournaments")

# Each format's words on the pages (translated where shown: `_(formats[key])`).
FORMAT_WORDS = {
    "round-robin": N_("Round robin (every pair meets once, all matches at once)"),
    "double-round-robin": N_("Double round robin (twice, seats swapped)"),
    "swiss": N_("Swiss (a set number of rounds, near scores meet)"),
    "knockout": N_("Knockout (seeded; a draw is replayed)"),
    "tables": N_("Tables of 3-4 (for games of three or four, by score)"),
}

TIEBREAK_NAMES = {
    "sonneborn_berger": N_("Sonneborn-Berger"), "direct_encounter": N_("Direct encounter"),
    "buchholz": N_("Buchholz"), "median_buchholz": N_("Median Buchholz"),
    "tables_won": N_("Tables won"),
}


@bp.get("")
def index() -> str:
    status = request.args.get("status") or None
    listed = [table.describe(t, detail=False) for t in table.listing(
        status if status in ("open", "running", "finished", "cancelled") else None)]
    return render_template("tournaments/index.html", tournaments=listed, status=status,
                           formats=FORMAT_WORDS)


@bp.get("/new")
@player_required
def new() -> str:
    return _form(None)[0]


@bp.post("")
@player_required
def create() -> Response | tuple[str, int]:
    form = request.form
    game = form.get("game", "")
    spec: dict[str, Any] = {
        "name": form.get("name", ""), "game": game, "format": form.get("format", ""),
        "options": options_from_form(form, game),
        "clock": (form.get("clock") or "").strip() or "3d",
        "on_timeout": form.get("on_timeout") or TimeoutPolicy.FORFEIT,
        "min_players": form.get("min_players") or 2,
        "max_players": form.get("max_players") or 8,
        "round_days": form.get("round_days") or 14,
        "max_replays": form.get("max_replays") or 2,
        "rated": form.get("rated") == "on",
        "invitation_only": form.get("invitation_only") == "on",
        "invited": form.get("invited") or "",
        "starts_at": (form.get("starts_at") or "").strip() or None,
    }
    if form.get("format") in ("swiss", "tables"):
        spec["rounds"] = form.get("rounds") or 5
    try:
        tournament = service.create_tournament(signed_in_player(), spec, now())
    except (PbemError, RulesError) as error:
        return _form(str(error), 422 if isinstance(error, RulesError) else error.status)
    return redirect_with(_("Tournament created: share its page so players can join."),
                         "tournaments.show", tournament_id=tournament.id)


@bp.get("/<int:tournament_id>")
def show(tournament_id: int) -> str:
    tournament = service.get_tournament(tournament_id)
    found = table.describe(tournament)
    viewer = current_player()
    extra: dict[str, Any] = {"crosstable": None, "bracket": None}
    if tournament.format in ("round-robin", "double-round-robin"):
        extra["crosstable"] = table.crosstable(tournament)
    if tournament.format == "knockout":
        extra["bracket"] = bracket_drawing(table.bracket(tournament))
    return render_template(
        "tournaments/show.html", t=found, formats=FORMAT_WORDS, tiebreak_names=TIEBREAK_NAMES,
        joined=service.is_in(tournament, viewer), organiser=_organising(tournament) is not None,
        live=table.live_matches(tournament) if tournament.status in ("running", "paused")
        else [], active=[(e.player_id, e.player.public_name)
                         for e in service.entries(tournament, active_only=True)], **extra)


@bp.post("/<int:tournament_id>/<any(join, leave, start, withdraw):action>")
@player_required
def act(tournament_id: int, action: str) -> Response:
    player, when = signed_in_player(), now()
    try:
        if action == "join":
            service.join(tournament_id, player, when)
            flash(_("You are in. Your matches come by email when the tournament starts."), "ok")
        elif action == "leave":
            service.leave(tournament_id, player, when)
            flash(_("You have left the tournament."), "ok")
        elif action == "start":
            running.start(tournament_id, Organising(player),
                          current_app.config["PBEM_SETTINGS"].secret_key, when)
            flash(_("Started: every player has been emailed their matches."), "ok")
        else:
            forfeited = service.withdraw(tournament_id, player, when)
            flash(_("You have withdrawn; %(count)s match(es) in play were forfeited.",
                    count=forfeited), "ok")
    except PbemError as error:
        flash(str(error), "error")
    return redirect(url_for("tournaments.show", tournament_id=tournament_id), 303)


@bp.post("/<int:tournament_id>/manage/<any(pause, resume, remove, adjudicate):action>")
def manage(tournament_id: int, action: str) -> Response:
    """The organiser's (or a signed-in admin's) actions, each audit-logged by the service."""
    tournament = service.get_tournament(tournament_id)
    by = _organising(tournament)
    if by is None:
        raise service.NotOrganiserError(_("Only the tournament's organiser or an admin may do "
                                          "that."))
    form, when = request.form, now()
    reason = form.get("reason", "")
    try:
        if action == "pause":
            service.pause(tournament_id, by, reason, when)
            flash(_("Paused: no new round, and every clock of its matches is held."), "ok")
        elif action == "resume":
            service.resume(tournament_id, by, reason, when)
            flash(_("Resumed."), "ok")
        elif action == "remove":
            forfeited = service.remove_player(tournament_id, _whole(form.get("player")), by,
                                              reason, when)
            flash(_("Removed; %(count)s match(es) in play were forfeited.", count=forfeited), "ok")
        else:
            chosen = form.get("winner") or ""
            winners = [] if chosen == "draw" else [_whole(chosen)]
            service.adjudicate(tournament_id, _whole(form.get("match")), winners, by, reason,
                               when)
            flash(_("Adjudicated: the players have been told the result."), "ok")
    except PbemError as error:
        flash(str(error), "error")
    return redirect(url_for("tournaments.show", tournament_id=tournament_id), 303)


def _organising(tournament: Any) -> Organising | None:
    admin = current_admin()
    if admin is not None:
        return Organising(admin=admin.email)
    viewer = current_player()
    if viewer is not None and viewer.id == tournament.organiser_id:
        return Organising(player=viewer)
    return None


def _whole(text: str | None) -> int:
    value = whole_number(text or "")
    if value is None:
        raise InvalidRequestError(_("Choose from the list."))
    return value


def bracket_drawing(rounds: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """Where each box and line of the bracket goes: one column per round, each tie centred
    between the two ties that feed it (drawn server-side, no script)."""
    box_w, box_h, gap_x, gap_y = 150, 44, 40, 12
    boxes, lines = [], []
    centres: list[list[float]] = []
    for column, ties in enumerate(rounds):
        x = column * (box_w + gap_x) + 4
        mids = []
        for index, tie in enumerate(ties):
            if column == 0 or len(centres[column - 1]) < 2 * index + 2:
                mid = index * (box_h + gap_y) * (2 ** column) + (box_h / 2) * (2 ** column) + 4
            else:
                above, below = centres[column - 1][2 * index], centres[column - 1][2 * index + 1]
                mid = (above + below) / 2
                for feed in (above, below):
                    lines.append({"x1": x - gap_x, "y1": feed, "x2": x - gap_x / 2, "y2": feed})
                lines.append({"x1": x - gap_x / 2, "y1": above, "x2": x - gap_x / 2,
                              "y2": below})
                lines.append({"x1": x - gap_x / 2, "y1": mid, "x2": x, "y2": mid})
            mids.append(mid)
            names = [p if p is not None else _("(bye)") for p in tie["players"]]
            boxes.append({"x": x, "y": mid - box_h / 2, "w": box_w, "h": box_h,
                          "top": names[0], "bottom": names[1] if len(names) > 1 else "",
                          "winner": tie["winner"], "match": tie["matches"][-1]
                          if tie["matches"] else None})
        centres.append(mids)
    height = max((b["y"] + b["h"] for b in boxes), default=0) + 8
    width = len(rounds) * (box_w + gap_x) + 8
    return {"boxes": boxes, "lines": lines, "width": width, "height": height}


def _form(error: str | None, status: int = 200) -> tuple[str, int]:
    games = sorted(REGISTRY.values(), key=lambda rules: rules.title)
    # The start's example is tomorrow at 18:00 UTC: a time the form would take.
    example = (now() + timedelta(days=1)).replace(hour=18, minute=0, second=0, microsecond=0)
    return render_template("tournaments/new.html", error=error, games=games,
                           form=request.form, formats=FORMAT_WORDS,
                           policies=TimeoutPolicy.WORDS, choices=FORMATS,
                           start_example=example.strftime("%Y-%m-%dT%H:%M"),
                           # A fresh form is rated, as a challenge is; a form sent back
                           # keeps what was sent (an unticked box sends nothing).
                           rated=_form_rated(request.form)), status


def _form_rated(form: Any) -> bool:
    return not form or form.get("rated") == "on"


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
