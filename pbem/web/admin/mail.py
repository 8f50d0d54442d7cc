"""Mail: the outbox filtered by state, one message's headers and body as rendered, "retry
now" for a failed or waiting message, and the log of inbound mail (reply by email)."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import Message

from flask import current_app, render_template, request
from werkzeug.wrappers import Response

from pbem.core.admin import actions as admin_actions
from pbem.core.mailout.models import UNSENT, MessageStatus, OutboxMessage
from pbem.core.matches.models import Seat
from pbem.core.matches.seat_links import token_for
from pbem.i18n import _
from pbem.web.admin.access import acted, actor, admin_required, bp, posted_action_key, row_or_404
from pbem.web.site.clock import now

# Private links in a re-rendered mail: an admin sees which kind of link it was, not the link.
_LINK = re.compile(r"(https?://\S+?/(?:play|mail/preferences|mail/unsubscribe))/\S+")
FILTERS = {
    "failed": lambda q: q.where(UNSENT, OutboxMessage.status == MessageStatus.FAILED),
    "retrying": lambda q: q.where(UNSENT, OutboxMessage.status.in_(
        [MessageStatus.PENDING, MessageStatus.SENDING]), OutboxMessage.attempts > 0),
    "waiting": lambda q: q.where(UNSENT, OutboxMessage.status.in_(
        [MessageStatus.PENDING, MessageStatus.SENDING])),
    "sent": lambda q: q.where(OutboxMessage.status == MessageStatus.SENT),
    "all": lambda q: q,
}


@bp.get("/mail")
@admin_required
def outbox() -> str:
    shown = request.args.get("show", "failed")
    if shown not in FILTERS:
        shown = "failed"
    query = FILTERS[shown](OutboxMessage.select().order_by(OutboxMessage.id.desc())).limit(200)
    counts = {name: FILTERS[name](OutboxMessage.select()).count() for name in FILTERS}
    return render_template("admin/mail.html", messages=list(query), shown=shown,
                           counts=counts, filters=list(FILTERS))


@bp.get("/mail/<int:message_id>")
@admin_required
def message(message_id: int) -> str:
    """A mail as it is (or was) sent, rendered again (bodies are never stored); private
    links show only as the kind of link they were, never the live link."""
    found = row_or_404(OutboxMessage, message_id)
    # The mail composer (and the email package under it) is imported on an admin's first
    # look at a mail: most web workers never build one, and their memory stays lean.
    from pbem.mail.compose import Composer

    settings = current_app.config["PBEM_SETTINGS"]
    composer = Composer(settings, current_app.config["PBEM_EXTRA_TEMPLATE_DIRS"])
    try:
        email = composer.to_email(found, found.sent_at or now())
        headers = [(name, _masked_header(name, str(value))) for name, value in email.items()]
        body = _LINK.sub(lambda m: f"{m.group(1)}/…", _without_seat_link(found, _plain_text(email)))
        error = None
    except Exception as problem:  # a template gone since: show why instead of a 500
        headers, body, error = [], "", f"{type(problem).__name__}: {problem}"
    retention = timedelta(days=settings.mail_retention_days)
    pruned = found.sent_at is not None and found.sent_at < now() - retention
    return render_template("admin/message.html", message=found, headers=headers, body=body,
                           error=error, pruned=pruned, retention=settings.mail_retention_days)


@bp.post("/mail/<int:message_id>/retry")
@admin_required
def retry(message_id: int) -> Response:
    key = posted_action_key()

    def _retry() -> str:
        admin_actions.retry_mail(message_id, actor(), now(), key)
        return _("Email %(id)s will be sent at the worker's next tick.", id=message_id)

    return acted(_retry, "admin.message", message_id=message_id)


def _without_seat_link(message: OutboxMessage, body: str) -> str:
    """The seat's private link acts as the player: an admin reads the mail, not the key."""
    if message.match_id is None or message.seat is None:
        return body
    seat = Seat.get_or_none(Seat.match == message.match_id, Seat.seat == message.seat)
    if seat is None:
        return body
    return body.replace(token_for(current_app.config["PBEM_SETTINGS"].secret_key, seat),
                        _("[private link hidden]"))


@bp.get("/inbound")
@admin_required
def inbound() -> str:
    """Every email that came in for reply by email, and what became of it."""
    # Imported here for the same reason as the composer above.
    from pbem.core.mailin.replies import recent as recent_inbound

    return render_template("admin/inbound.html", messages=recent_inbound())


def _masked_header(name: str, value: str) -> str:
    # A reply address carries the seat's reply key, which moves for the player by email.
    if name.lower() == "reply-to" and "@" in value:
        local, _at, domain = value.rpartition("@")
        hidden = _("[reply key hidden]")
        return f"{local.split('.', 1)[0]}.{hidden}@{domain}"
    return value


def _plain_text(email: Message) -> str:
    for part in email.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                return payload.decode(part.get_content_charset() or "utf-8", "replace")
    return ""
