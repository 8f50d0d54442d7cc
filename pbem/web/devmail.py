"""The development mailbox (development mode only): every email the server wrote, with
clickable links, so a newcomer can play a match without a mail server."""

from __future__ import annotations

import re

from flask import Blueprint, Flask, current_app, make_response, render_template
from markupsafe import Markup, escape
from werkzeug.wrappers import Response

from pbem.core.models import OutboxMessage
from pbem.errors import NotFoundError
from pbem.mail.compose import Composer

bp = Blueprint("devmail", __name__, url_prefix="/dev/mail")
_URL = re.compile(r"https?://[^\s<>\"]+")


@bp.get("")
def index() -> str:
    messages = list(OutboxMessage.select().order_by(OutboxMessage.id.desc()).limit(200))
    composer = _composer()
    for message in messages:
        composer.render(message)  # pending ones are shown as they will be sent
    return render_template("devmail/index.html", messages=messages)


@bp.get("/<int:message_id>")
def show(message_id: int) -> str:
    message = _message(message_id)
    _composer().render(message)
    body = _URL.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>',
                    str(escape(message.body_text)))
    return render_template("devmail/show.html", message=message, body=Markup(body))


@bp.get("/<int:message_id>/html")
def html_part(message_id: int) -> Response:
    message = _message(message_id)
    _composer().render(message)
    response = make_response(message.body_html)
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
