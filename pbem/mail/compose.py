"""Render outbox rows into email messages: a template triple per kind, no request context.

`templates/email/<name>/subject.txt`, `body.txt` and `body.html`. The HTML part draws the board
as a table (`games/<slug>/board_table.html`), since Gmail and Outlook do not show SVG. Every
message of a match to one player threads under that player's welcome email.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

import jinja2

from pbem.config import Settings
from pbem.core.models import OutboxMessage, Seat
from pbem.core.tokens import token_for
from pbem.mail.addresses import reply_address_for, with_reply_hint
from pbem.mail.links import account_links
from pbem.paths import TEMPLATES


def mail_environment(extra_template_dirs: tuple[str, ...] = ()) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES), *extra_template_dirs]),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


class Composer:
    def __init__(self, settings: Settings, extra_template_dirs: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self.env = mail_environment(extra_template_dirs)

    def render(self, message: OutboxMessage) -> None:
        """Fill in the row's subject and bodies (once: a retry resends the same text)."""
        if message.subject is not None:
            return
        context = self.context_for(message)
        folder = f"email/{message.template}"
        message.subject = " ".join(self.env.get_template(f"{folder}/subject.txt")
                                   .render(context).split())
        message.body_text = self.env.get_template(f"{folder}/body.txt").render(context)
        message.body_html = self.env.get_template(f"{folder}/body.html").render(context)
        message.body_text, message.body_html = with_reply_hint(
            self.env, context, self.reply_to(message), message.body_text, message.body_html)

    def context_for(self, message: OutboxMessage) -> dict[str, Any]:
        context = dict(message.context)
        base = self.settings.base_url
        context["base_url"] = base
        if message.match_id is not None:
            context["match_url"] = f"{base}/matches/{message.match_id}"
            context["rules_url"] = f"{base}/games/{context['game']}"
        context.update(account_links(self.settings, message))
        if message.match_id is not None and message.seat is not None:
            seat = Seat.get((Seat.match == message.match_id) & (Seat.seat == message.seat))
            context["play_url"] = f"{base}/play/{token_for(self.settings.secret_key, seat)}"
        return context

    def to_email(self, message: OutboxMessage, now: datetime) -> EmailMessage:
        self.render(message)
        email = EmailMessage()
        email["From"] = self.settings.mail_from
        email["To"] = message.to_address
        email["Subject"] = message.subject
        email["Date"] = format_datetime(now.replace(tzinfo=UTC))
        email["Message-ID"] = self.message_id(message.message_id)
        if message.in_reply_to:
            root = self.message_id(message.in_reply_to)
            email["In-Reply-To"] = root
            email["References"] = root
        if reply_to := self.reply_to(message):
            email["Reply-To"] = reply_to
        email["Auto-Submitted"] = "auto-generated"
        email["X-Auto-Response-Suppress"] = "All"
        if message.match_id is not None:
            email["X-Pbem-Match"] = str(message.match_id)
        email.set_content(message.body_text)
        email.add_alternative(message.body_html, subtype="html")
        return email

    def message_id(self, key: str) -> str:
        # A key of ours gets our domain; a whole id (a player's mail we answer) is kept.
        return key if key.startswith("<") else f"<{key}@{self.settings.mail_domain}>"

    def reply_to(self, message: OutboxMessage) -> str | None:
        return reply_address_for(self.settings, message.match_id, message.seat)

