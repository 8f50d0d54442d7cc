"""Raw message in, `Receipt` out: the one entry point of reply by email."""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime
from email.utils import parseaddr

import peewee

from pbem.config import Settings
from pbem.core.mailin.replies import Letter, Policy, Receipt, receive
from pbem.mail.addresses import find_reply_key, redacted
from pbem.mail.inbound.reading import RECIPIENT_HEADERS, oversized, read

log = logging.getLogger(__name__)

# What "could not be handled now" means: the database is down or locked. The message must be
# offered again later (pipe exit 75, IMAP left unflagged, HTTP 503); nothing was recorded.
TEMPORARY_ERRORS: tuple[type[BaseException], ...] = (peewee.OperationalError,
                                                     peewee.InterfaceError)


def handle(raw: bytes, settings: Settings, via: str, now: datetime,
           recipient: str | None = None) -> Receipt:
    """Act on one raw message. `recipient` is the envelope recipient when the transport knows
    it (a pipe's argument); otherwise the headers say where the mail was sent."""
    policy = Policy(secret_key=settings.secret_key,
                    require_sender_match=settings.inbound_require_sender_match,
                    error_answers_per_hour=settings.inbound_error_answers_per_hour,
                    own_addresses=_own_addresses(settings))
    if oversized(raw):
        return receive(_oversized_letter(raw, via), policy, now)
    reading = read(raw)
    found = find_reply_key(settings, [recipient or "", *reading.recipients])
    domain_suffix = f"@{settings.mail_domain}"
    ours = tuple(ref[: -len(domain_suffix)] for ref in reading.references
                 if ref.lower().endswith(domain_suffix.lower()))
    letter = Letter(
        message_key=reading.message_key, via=via, message_id=reading.message_id,
        sender=reading.sender, recipient=redacted(found[0]) if found else None,
        reply_key=found[1] if found else None, automatic=reading.automatic,
        first_line=reading.first_line, answers_to=ours)
    return receive(letter, policy, now)


def _oversized_letter(raw: bytes, via: str) -> Letter:
    # Read only the headers of a message too large to parse whole.
    head = raw[:64 * 1024].split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0] + b"\n\n"
    reading = read(head)
    key = reading.message_key if reading.message_id else hashlib.sha256(raw).hexdigest()
    return Letter(message_key=key, via=via, message_id=reading.message_id,
                  sender=reading.sender, oversized=True)


def _own_addresses(settings: Settings) -> frozenset[str]:
    own = {parseaddr(settings.mail_from)[1].lower()}
    if "@" in settings.reply_base:
        own.add(settings.reply_base.lower())
    return frozenset(address for address in own if address)


__all__ = ["RECIPIENT_HEADERS", "handle"]
