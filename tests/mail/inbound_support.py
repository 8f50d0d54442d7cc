"""Helpers for the reply-by-email tests: matches, the mails pbem wrote, and replies to them."""

from __future__ import annotations

import secrets
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import parseaddr
from functools import lru_cache

from pbem.config import Settings
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.mail.compose import Composer
from tests.conftest import START, SUPPORT_TEMPLATES

ALICE, BOB = "alice@example.org", "bob@example.org"


def start(game: str = "nim", players: tuple[str, ...] = (ALICE, BOB), seed: int = 1,
          **options: str) -> Match:
    return create_match(game, list(players), options, "unused", START, seed=seed).match


def latest(address: str, template: str | None = "your_turn") -> OutboxMessage:
    query = OutboxMessage.select().where(OutboxMessage.to_address == address)
    if template:
        query = query.where(OutboxMessage.template == template)
    row = query.order_by(OutboxMessage.id.desc()).first()
    assert row is not None, f"no {template} mail to {address}"
    return row


def as_sent(settings: Settings, row: OutboxMessage) -> EmailMessage:
    """The mail exactly as the outbox would send it, read back as a mail client reads it."""
    sent = _composer(settings).to_email(row, START).as_bytes()
    return message_from_bytes(sent, policy=policy.default)  # type: ignore[return-value]


@lru_cache(maxsize=4)
def _composer(settings: Settings) -> Composer:
    # One per settings, so templates are compiled once (whole matches render hundreds).
    return Composer(settings, (SUPPORT_TEMPLATES,))


def reply(mail: EmailMessage, body: str, sender: str | None = None,
          headers: dict[str, str] | None = None, html: str | None = None) -> bytes:
    """A plain reply as a mail client writes it: to the Reply-To, threaded, quoting the mail."""
    answer = EmailMessage()
    answer["From"] = sender or mail["To"]
    answer["To"] = mail["Reply-To"]
    answer["Subject"] = f"Re: {mail['Subject']}"
    answer["Message-ID"] = f"<{secrets.token_hex(8)}@mail.example.org>"
    answer["In-Reply-To"] = mail["Message-ID"]
    answer["References"] = f"{mail.get('References', '')} {mail['Message-ID']}".strip()
    for name, value in (headers or {}).items():
        del answer[name]
        answer[name] = value
    original = mail.get_body(("plain",)).get_content()
    quoted = "\n".join(f"> {line}" for line in original.splitlines())
    text = f"{body}\n\nOn Mon, 5 Jan 2026 at 12:00, pbem <pbem@pbem.test> wrote:\n{quoted}\n"
    answer.set_content(text)
    if html is not None:
        answer.add_alternative(html, subtype="html")
    return answer.as_bytes()


def sender_of(mail: EmailMessage) -> str:
    return parseaddr(mail["To"])[1]


def last_inbound() -> InboundMessage:
    row = InboundMessage.select().order_by(InboundMessage.id.desc()).first()
    assert row is not None
    return row
