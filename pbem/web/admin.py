"""The admin pages: login, the adjudication queue, and rulings (CSRF-protected forms)."""

from __future__ import annotations

import logging
import re
from datetime import timedelta

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from pbem.core import offers
from pbem.core.admins import authenticate
from pbem.core.clocks import TimeControl
from pbem.core.limits import Limit, LimitReachedError, release
from pbem.core.mailin import recent as recent_inbound
from pbem.core.matches import get_match
from pbem.core.models import Adjudication, OutboxMessage, SessionKind
from pbem.core.notify import message_key
from pbem.core.preferences import undeliverable_players
from pbem.core.records import public_record
from pbem.core.rulings import RULINGS, make_ruling, open_entries
from pbem.errors import PbemError
from pbem.mail.compose import Composer
from pbem.web.auth import admin_required, current_admin, sign_in, sign_out
from pbem.web.clock import now
from pbem.web.matches import requested_moves

log = logging.getLogger(__name__)
bp = Blueprint("admin", __name__, url_prefix="/admin")
# Private links in a re-rendered mail: an admin sees which kind of link it was, not the link.
_LINK = re.compile(r"(https?://\S+?/(?:play|mail/preferences|mail/unsubscribe))/\S+")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int] | str:
    if request.method == "GET":
        return render_template("admin/login.html", error=None)
    settings = current_app.config["PBEM_SETTINGS"]
    email = (request.form.get("email") or "").strip().lower()[:254]
    failures = Limit("admin-login", settings.login_failures_allowed,
                     timedelta(minutes=settings.rate_window_minutes), "failed logins")
    try:
        counted = failures.reserve([f"account:{email}", f"client:{request.remote_addr}"], now())
    except LimitReachedError as error:
        return render_template("admin/login.html", error=str(error)), 429
    admin = authenticate(email, request.form.get("password", ""))
    if admin is None:
        return render_template("admin/login.html", error="Wrong email or password."), 401
    release(counted)  # only failures count
    sign_in(SessionKind.ADMIN, admin=admin)
    target = request.args.get("next", "")
    # Only ever return to a page of this site.
    return redirect(target if target.startswith("/admin") else url_for("admin.queue"), 303)


@bp.post("/logout")
def logout() -> Response:
    sign_out(SessionKind.ADMIN)
    return redirect(url_for("admin.login"), 303)


@bp.get("")
@admin_required
def queue() -> str:
    return render_template("admin/queue.html", entries=open_entries(),
                           undeliverable=undeliverable_players())


@bp.get("/mail/<int:message_id>")
@admin_required
def mail(message_id: int) -> str:
    """A mail as it was sent, rendered again (bodies are never stored); its links are
    shown only as the kind of link they were, never the live seat link."""
    message = OutboxMessage.get_or_none(OutboxMessage.id == message_id)
    if message is None:
        abort(404)
    settings = current_app.config["PBEM_SETTINGS"]
    rendered = Composer(settings, current_app.config["PBEM_EXTRA_TEMPLATE_DIRS"]).render(message)
    text = _LINK.sub(lambda m: f"{m.group(1)}/…", rendered.text)
    retention = timedelta(days=settings.mail_retention_days)
    pruned = message.sent_at is not None and message.sent_at < now() - retention
    match = message.match if message.match_id is not None else None
    return render_template("admin/mail.html", message=message, subject=rendered.subject,
                           message_id=message_key(message, match),
                           body=text, pruned=pruned, retention=settings.mail_retention_days)


@bp.get("/adjudications/<int:entry_id>")
@admin_required
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
@admin_required
def rule(entry_id: int) -> Response | tuple[str, int]:
    found = Adjudication.get_or_none(Adjudication.id == entry_id)
    if found is None:
        abort(404)
    ruling = request.form.get("ruling", "")
    extension_text = (request.form.get("extension") or "").strip()
    try:
        extension = TimeControl.parse(extension_text).bank if ruling == "extend" else None
        make_ruling(found.match_id, ruling, request.form.get("reason", ""), _admin_email(),
                    now(), extension=extension, entry_id=entry_id,
                    max_extension=timedelta(days=current_app.config['PBEM_SETTINGS']
                                            .max_extension_days))
    except PbemError as error:
        flash(str(error), "error")
        return redirect(url_for("admin.entry", entry_id=entry_id), 303)
    flash(f"Ruling made on match {found.match_id}: {RULINGS[ruling]}.", "ok")
    return redirect(url_for("admin.queue"), 303)


def _admin_email() -> str:
    admin = current_admin()
    assert admin is not None  # admin_required ran first
    return admin.email
@bp.get("/inbound")
@admin_required
def inbound() -> str:
    """Every email that came in for reply by email, and what became of it."""
    return render_template("admin/inbound.html", messages=recent_inbound())


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
