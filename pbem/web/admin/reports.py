"""Reported chat messages: the open reports, each with the message and the room around it,
and what staff do about one (hide the message, bar its writer from the chat, or dismiss the
report), each written to the audit log. Moderators may act here as admins do."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.accounts.models import Player
from pbem.core.admin import chat as chat_admin
from pbem.core.admin.audit import AlreadyDoneError
from pbem.core.conversation import moderation
from pbem.core.matches.models import Match, Seat
from pbem.errors import PbemError
from pbem.i18n import _
from pbem.web.admin.access import actor, bp, posted_action_key, staff_required
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with


@bp.get("/reports")
@staff_required
def reports() -> str:
    return render_template("admin/reports.html", reports=moderation.open_reports())


@bp.get("/reports/<int:report_id>")
@staff_required
def report(report_id: int) -> str:
    view = moderation.report_view(report_id)
    match = Match.get_by_id(view.message.match_id)
    seats = {seat.seat: seat.player.public_name for seat in
             Seat.select(Seat, Player).join(Player).where(Seat.match == match.id)}
    return render_template("admin/report.html", view=view, match=match, seats=seats,
                           reporter=Player.get_by_id(view.report.reporter_id),
                           author=Player.get_by_id(view.message.author_id))


@bp.post("/reports/<int:report_id>/<any(hide, bar, dismiss):action>")
@staff_required
def report_action(report_id: int, action: str) -> Response:
    reason = (request.form.get("reason") or "").strip()
    act = {"hide": chat_admin.hide, "bar": chat_admin.bar, "dismiss": chat_admin.dismiss}[action]
    try:
        act(report_id, actor(), reason, now(), posted_action_key())
    except AlreadyDoneError as error:
        flash(str(error), "ok")
    except PbemError as error:
        return redirect_with(str(error), "admin.report", category="error", report_id=report_id)
    else:
        flash({"hide": _("The message is hidden from everyone."),
               "bar": _("The writer is barred from the chat and the message is hidden."),
               "dismiss": _("The report is dismissed; the message stays.")}[action], "ok")
    return redirect(url_for("admin.reports"), 303)
