"""The development mailbox (development mode only): every email the server wrote, with
clickable links, so a newcomer can play a match without a mail server."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from markupsafe import Markup, escape
from werkzeug.wrappers import Response

from pbem.core.mailout.contexts import RenderCache
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.errors import NotFoundError, PbemError
from pbem.games import REGISTRY
from pbem.games.base import RulesError
from pbem.i18n import _
from pbem.mail.compose import Composer
from pbem.mail.inbound import TEMPORARY_ERRORS, handle
from pbem.web.site.clock import now

bp = Blueprint("devmail", __name__, url_prefix="/dev/mail")
_URL = re.compile(r"https?://[^\s<>\"]+")


PAGE = 100


@bp.get("")
def index() -> tuple[str, int]:
    """Every mail, newest first, a page at a time; filtered by recipient (any part of the
    address) and by match."""
    wanted = _Filter.from_args(request.args)
    query = OutboxMessage.select().order_by(OutboxMessage.id.desc())
    if wanted.to:
        query = query.where(OutboxMessage.to_address.contains(wanted.to.lower()))
    if wanted.match is not None:
        query = query.where(OutboxMessage.match == wanted.match)
    if wanted.before is not None:
        query = query.where(OutboxMessage.id < wanted.before)
    messages = list(query.limit(PAGE + 1)) if not wanted.error else []
    older = messages[PAGE - 1].id if len(messages) > PAGE else None
    messages = messages[:PAGE]
    games = sorted(REGISTRY.values(), key=lambda rules: rules.title)
    subjects, replies = _subjects_and_replies(messages)
    # The game last started stays chosen (the form posts and comes back here with it).
    return render_template("devmail/index.html", messages=messages, games=games,
                           subjects=subjects, replies=replies, wanted=wanted, older=older,
                           chosen=request.args.get("game")), 400 if wanted.error else 200


@dataclass(frozen=True)
class _Filter:
    to: str = ""
    match: int | None = None
    before: int | None = None
    error: str | None = None

    @classmethod
    def from_args(cls, args: Any) -> _Filter:
        to = args.get("to", "").strip()[:254]
        numbers: dict[str, int | None] = {}
        for name in ("match", "before"):
            text = args.get(name, "").strip()
            if text and not (text.isascii() and text.isdigit() and len(text) < 18):
                return cls(to=to, error=_("“%(text)s” is not a match number: give digits "
                                          "only, like 12.", text=text[:40]))
            numbers[name] = int(text) if text else None
        return cls(to=to, match=numbers["match"], before=numbers["before"])


def _subjects_and_replies(messages: list[OutboxMessage]
                          ) -> tuple[dict[int, str | None], dict[int, str | None]]:
    """Each listed mail's subject, from its record (a mail about a match keeps none once
    sent: its match's thread subject is given again), and the reply address of a seat's mail
    (to try replies by hand from a mail client); one batch of reads for them all."""
    composer, cache = _composer(), RenderCache()
    cache.prefetch(messages)
    return ({message.id: composer.recorded_subject(message, cache) for message in messages},
            {message.id: composer.reply_to(message, cache) for message in messages})


@bp.post("/new-match")
def new_match() -> Response:
    """Start a match from the mailbox page, so a newcomer has emails to click at once."""
    game = request.form.get("game", "")
    emails = [email for email in re.split(r"[\s,;]+", request.form.get("players", "")) if email]
    settings = current_app.config["PBEM_SETTINGS"]
    try:
        created = create_match(game, emails, {}, settings.secret_key, now())
    except (RulesError, PbemError) as error:
        flash(str(error), "error")
    else:
        flash(_("Match %(id)s started: open the emails below.", id=created.match.id), "ok")
    return redirect(url_for("devmail.index", game=game or None), code=303)


@bp.get("/<int:message_id>")
def show(message_id: int) -> str:
    message = _message(message_id)
    rendered = _composer().render(message)  # rendered afresh: bodies are never stored
    body = _URL.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>',
                    str(escape(rendered.text)))
    return render_template("devmail/show.html", message=message, subject=rendered.subject,
                           body=Markup(body), reply_to=_composer().reply_to(message))


@bp.post("/<int:message_id>/reply")
def reply(message_id: int) -> Response:
    """Reply to a mail as its recipient would from a mail client, through the real pipeline."""
    message = _message(message_id)
    settings = current_app.config["PBEM_SETTINGS"]
    # Read back as a mail client would read it (the outbox builds it with compat32).
    original = message_from_bytes(_composer().to_email(message, now()).as_bytes(),
                                  policy=policy.default)
    sender = request.form.get("sender", "").strip() or message.to_address
    raw = _reply_bytes(original, request.form.get("body", ""), sender)
    try:
        receipt = handle(raw, settings, "dev", now())
    except TEMPORARY_ERRORS as error:
        flash(_("The database could not be reached: %(error)s", error=error), "error")
    else:
        # The action and its detail are the pipeline's own words (as the admin's log shows).
        action = receipt.action.replace("_", " ")
        if receipt.detail:
            action = f"{action} ({receipt.detail})"
        flash(_("Reply handled: %(action)s; the answer is below.", action=action)
              if receipt.answer else
              _("Reply handled: %(action)s; no answer was sent.", action=action), "ok")
    return redirect(url_for("devmail.index"), code=303)


@bp.get("/<int:message_id>/html")
def html_part(message_id: int) -> Response:
    response = make_response(_composer().render(_message(message_id)).html)
    # Email HTML uses inline styles; show it under its own, still script-free, policy.
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'")
    return response


def _reply_bytes(original: EmailMessage, body: str, sender: str) -> bytes:
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = original["Reply-To"] or parseaddr(original["From"])[1]
    reply["Subject"] = f"Re: {original['Subject']}"
    reply["Message-ID"] = f"<dev.{secrets.token_hex(10)}@dev.mailbox>"
    reply["In-Reply-To"] = original["Message-ID"]
    reply["References"] = f"{original.get('References', '')} {original['Message-ID']}".strip()
    # Quoted below the player's text, as mail clients do, so the pipeline strips it for real.
    part = original.get_body(("plain",))
    quoted = "\n".join(f"> {line}" for line in (part.get_content() if part else "").splitlines())
    reply.set_content(f"{body.strip()}\n\nOn {original['Date']}, {original['From']} wrote:\n"
                      f"{quoted}\n")
    return reply.as_bytes()


def _message(message_id: int) -> OutboxMessage:
    message = OutboxMessage.get_or_none(OutboxMessage.id == message_id)
    if message is None:
        raise NotFoundError(_("There is no message %(id)s.", id=message_id))
    return message


def _composer() -> Composer:
    return Composer(current_app.config["PBEM_SETTINGS"],
                    current_app.config["PBEM_EXTRA_TEMPLATE_DIRS"])


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
