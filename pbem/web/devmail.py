"""The development mailbox (development mode only): every email the server wrote, with
clickable links, so a newcomer can play a match without a mail server."""

from __future__ import annotations

import re

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

from pbem.core.matches import create_match
from pbem.core.models import OutboxMessage
from pbem.errors import NotFoundError, PbemError
from pbem.games import REGISTRY
from pbem.games.base import RulesError
from pbem.mail.compose import Composer
from pbem.web.clock import now

bp = Blueprint("devmail", __name__, url_prefix="/dev/mail")
_URL = re.compile(r"https?://[^\s<>\"]+")


@bp.get("")
def index() -> str:
    messages = list(OutboxMessage.select().order_by(OutboxMessage.id.desc()).limit(200))
    games = sorted(REGISTRY.values(), key=lambda rules: rules.title)
    return render_template("devmail/index.html", messages=messages, games=games)


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
        flash(f"Match {created.match.id} started: open the emails below.", "ok")
    return redirect(url_for("devmail.index"), code=303)


@bp.get("/<int:message_id>")
def show(message_id: int) -> str:
    message = _message(message_id)
    rendered = _composer().render(message)  # rendered afresh: bodies are never stored
    body = _URL.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>',
                    str(escape(rendered.text)))
    return render_template("devmail/show.html", message=message, subject=rendered.subject,
                           body=Markup(body))


@bp.get("/<int:message_id>/html")
def html_part(message_id: int) -> Response:
    response = make_response(_composer().render(_message(message_id)).html)
    # Email HTML uses inline styles; show it under its own, still script-free, policy.
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'")
    return response


def _message(message_id: int) -> OutboxMessage:
    message = OutboxMessage.get_or_none(OutboxMessage.id == message_id)
    if message is None:
        raise NotFoundError(f"There is no message {message_id}.")
    return message


def _composer() -> Composer:
    return Composer(current_app.config["PBEM_SETTINGS"],
                    current_app.config["PBEM_EXTRA_TEMPLATE_DIRS"])


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
