"""The admin pages: login, the adjudication queue, and rulings (CSRF-protected forms)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from pbem.core import offers
from pbem.core.admins import authenticate
from pbem.core.clocks import TimeControl
from pbem.core.matches import get_match
from pbem.core.models import Adjudication, OutboxMessage
from pbem.core.records import public_record
from pbem.core.rulings import RULINGS, make_ruling, open_entries
from pbem.errors import PbemError
from pbem.web.clock import now
from pbem.web.matches import requested_moves

log = logging.getLogger(__name__)
bp = Blueprint("admin", __name__, url_prefix="/admin")


def login_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not session.get("admin"):
            return redirect(url_for("admin.login", next=request.path))
        return view(*args, **kwargs)
    return wrapped


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int] | str:
    if request.method == "GET":
        return render_template("admin/login.html", error=None)
    admin = authenticate(request.form.get("email", ""), request.form.get("password", ""))
    if admin is None:
        return render_template("admin/login.html", error="Wrong email or password."), 401
    session.clear()
    session["admin"] = admin.email
    target = request.args.get("next", "")
    # Only ever return to a page of this site.
    return redirect(target if target.startswith("/admin") else url_for("admin.queue"), 303)


@bp.post("/logout")
def logout() -> Response:
    session.clear()
    return redirect(url_for("admin.login"), 303)


@bp.get("")
@login_required
def queue() -> str:
    return render_template("admin/queue.html", entries=open_entries())


@bp.get("/adjudications/<int:entry_id>")
@login_required
def entry(entry_id: int) -> str:
    found = Adjudication.get_or_none(Adjudication.id == entry_id)
    if found is None:
        abort(404)
    match = get_match(found.match_id)
    emails = (OutboxMessage.select().where(OutboxMessage.match == match,
                                           OutboxMessage.seat == found.seat)
              .order_by(OutboxMessage.id))
    try:
        record = public_record(match, now(), moves_upto=requested_moves(match.ply))
    except Exception:
        # An entry with cause "error": the stored match cannot be read, yet must be ruled on.
        log.exception("match %s cannot be shown", match.id)
        record = None
    return render_template("admin/entry.html", entry=found, record=record, match=match,
                           offers=offers.history(match), emails=list(emails), rulings=RULINGS)


@bp.post("/adjudications/<int:entry_id>")
@login_required
def rule(entry_id: int) -> Response | tuple[str, int]:
    found = Adjudication.get_or_none(Adjudication.id == entry_id)
    if found is None:
        abort(404)
    ruling = request.form.get("ruling", "")
    extension_text = (request.form.get("extension") or "").strip()
    try:
        extension = TimeControl.parse(extension_text).bank if ruling == "extend" else None
        make_ruling(found.match_id, ruling, request.form.get("reason", ""), session["admin"],
                    now(), extension=extension, entry_id=entry_id,
                    max_extension=timedelta(days=current_app.config['PBEM_SETTINGS']
                                            .max_extension_days))
    except PbemError as error:
        flash(str(error), "error")
        return redirect(url_for("admin.entry", entry_id=entry_id), 303)
    flash(f"Ruling made on match {found.match_id}: {RULINGS[ruling]}.", "ok")
    return redirect(url_for("admin.queue"), 303)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
