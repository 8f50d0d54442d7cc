"""Matches: search by id, game, player and status; a match in full (hidden information
shown and marked) with its clocks, offers and rulings; and the admin's actions on it."""

from __future__ import annotations

from datetime import timedelta

from flask import current_app, render_template, request
from werkzeug.wrappers import Response

from pbem.core.admin import actions as admin_actions
from pbem.core.admin import console
from pbem.core.admin import players as player_admin
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.models import Match, MatchStatus
from pbem.games import REGISTRY
from pbem.i18n import _
from pbem.web.admin.access import acted, actor, bp, posted_action_key, row_or_404, staff_required
from pbem.web.site.clock import now
from pbem.web.site.inputs import whole_number

STATUSES = (MatchStatus.ACTIVE, MatchStatus.FINISHED, MatchStatus.ABORTED)


@bp.get("/matches")
@staff_required
def matches() -> str | tuple[str, int]:
    args = request.args
    text_id = (args.get("id") or "").strip().lstrip("#")
    match_id = whole_number(text_id) if text_id else None
    error = None
    if text_id and match_id is None:
        error = _("%(text)r is not a match number.", text=text_id)
    query = console.MatchQuery(match_id, (args.get("game") or "").strip(),
                               (args.get("player") or "").strip()[:254],
                               str(args.get("status")) if args.get("status") in STATUSES
                               else "")
    found = [] if error else console.find_matches(query)
    return render_template("admin/matches.html", found=found, query=query, error=error,
                           games=sorted(REGISTRY), title_of=_title,
                           statuses=STATUSES), 422 if error else 200


def _title(slug: str) -> str:
    """A game's title, as pages name it (its slug, should the game be gone)."""
    rules = REGISTRY.get(slug)
    return rules.title if rules is not None else slug


@bp.get("/matches/<int:match_id>")
@staff_required
def match(match_id: int) -> str:
    found = row_or_404(Match, match_id)
    return render_template("admin/match.html", match=found,
                           title=_title(found.game),
                           record=console.full_record(found, now()),
                           max_days=current_app.config["PBEM_SETTINGS"].max_extension_days)


@bp.post("/matches/<int:match_id>/<any(pause, resume, extend, reissue, abort, void):action>")
@staff_required
def act(match_id: int, action: str) -> Response:
    form, key = request.form, posted_action_key()
    return acted(lambda: _act(match_id, action, form.get("reason", ""), key), "admin.match",
                 match_id=match_id)


def _act(match_id: int, action: str, reason: str, key: str | None) -> str:
    """Do one of the match page's actions; what it did, in the admin's words."""
    form = request.form
    if action == "pause":
        admin_actions.pause(match_id, actor(), reason, now(), key)
        return _("The clocks are paused.")
    if action == "resume":
        admin_actions.resume(match_id, actor(), reason, now(), key)
        return _("The clocks run again.")
    if action == "extend":
        seat = whole_number(form.get("seat", ""))
        if seat is None:
            raise admin_actions.InvalidRequestError(_("Choose a seat to extend."))
        extension = TimeControl.parse((form.get("extension") or "").strip()).bank
        admin_actions.extend_seat(match_id, seat, extension, actor(), reason, now(),
                                  _max_extension(), key)
        return _("Seat %(seat)s has more time.", seat=seat)
    if action == "reissue":
        seat = whole_number(form.get("seat", ""))
        if seat is None:
            raise admin_actions.InvalidRequestError(_("Choose a seat."))
        player_admin.reissue_link(current_app.config["PBEM_SETTINGS"].secret_key,
                                  match_id, seat, actor(), reason, now(), key)
        return _("Seat %(seat)s has a new link; it was emailed and the old one stopped.",
                 seat=seat)
    if action == "void":
        admin_actions.void(match_id, actor(), reason, now(), key)
        return _("The match no longer counts for ratings; every rating was recomputed "
                 "without it.")
    admin_actions.abort(match_id, actor(), reason, now(), key)
    return _("The match is aborted; every player was told.")


def _max_extension() -> timedelta:
    return timedelta(days=current_app.config["PBEM_SETTINGS"].max_extension_days)
