"""Raw message in, `Receipt` out: the one entry point of reply by email."""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime
from email.utils import parseaddr

import peewee

from pbem.config import Settings
from pbem.core.db.connection import is_read_only
from pbem.core.db.text import cleaned
from pbem.core.mailin.bounces import receive_report
from pbem.core.mailin.replies import Letter, Policy, Receipt, receive
from pbem.mail.addresses import find_reply_key, redacted
from pbem.mail.inbound.bounces import read_report
from pbem.mail.inbound.reading import (
    RECIPIENT_HEADERS,
    MalformedMail,
    oversized,
    parse,
    read,
)

log = logging.getLogger(__name__)

# What "could not be handled now" means: the database is down or locked. The message must be
# offered again later (pipe exit 75, IMAP left unflagged, HTTP 503); nothing was recorded.
TEMPORARY_ERRORS: tuple[type[BaseException], ...] = (peewee.OperationalError,
                                                     peewee.InterfaceError)


def handle(raw: bytes, settings: Settings, via: str, now: datetime,
           recipient: str | None = None) -> Receipt:
    """Act on one raw message. `recipient` is the envelope recipient when the transport knows
    it (a pipe's argument); otherwise the headers say where the mail was sent.

    Every message ends as a recorded handling or a recorded refusal: only the database being
    unreachable (TEMPORARY_ERRORS) is raised, for the transport to offer the message again.
    Anything else that goes wrong, a bug of ours included, is recorded as a malformed message
    (the admin's inbound page shows it) instead of blocking the messages after it."""
    policy = _policy(settings)
    try:
        return _handle(raw, settings, via, now, recipient, policy)
    except TEMPORARY_ERRORS:
        raise
    except peewee.DatabaseError as error:
        if is_read_only(error):  # a standby after a failover: offer the message again later
            raise peewee.OperationalError(f"the database is read-only: {error}") from error
        log.exception("inbound mail via %s could not be handled; recorded as malformed", via)
        return receive(_malformed_letter(raw, via, error), policy, now)
    except Exception as error:
        log.exception("inbound mail via %s could not be handled; recorded as malformed", via)
        return receive(_malformed_letter(raw, via, error), policy, now)


def _policy(settings: Settings) -> Policy:
    return Policy(secret_key=settings.secret_key,
                    require_sender_match=settings.inbound_require_sender_match,
                    error_answers_per_hour=settings.inbound_error_answers_per_hour,
                    own_addresses=_own_addresses(settings))


def _handle(raw: bytes, settings: Settings, via: str, now: datetime, recipient: str | None,
            policy: Policy) -> Receipt:
    if oversized(raw):
        return receive(_oversized_letter(raw, via), policy, now)
    try:
        message = parse(raw)
        # A delivery report or a complaint about a mail of ours is recognised first: it is
        # never a reply, and never answered.
        report = read_report(raw, message, settings, via, recipient)
        if report is not None:
            return receive_report(report, now)
        reading = read(raw, message)
    except TEMPORARY_ERRORS:
        raise
    except Exception as error:
        # Mail no reader survives (too deep, or broken past repair): refused and recorded, so
        # the next message is read. A bug of ours shows on the admin's inbound page too.
        log.warning("inbound mail %s could not be read: %s", via, error)
        return receive(_malformed_letter(raw, via, error), policy, now)
    found = find_reply_key(settings, [recipient or "", *reading.recipients])
    domain_suffix = f"@{settings.mail_domain}"
    ours = tuple(ref[: -len(domain_suffix)] for ref in reading.references
                 if ref.lower().endswith(domain_suffix.lower()))
    # Every text from the message is made storable here: a lone surrogate (a UTF-7 body) or
    # a NUL must not stop the message from being recorded.
    letter = Letter(
        message_key=reading.message_key, via=via, message_id=cleaned(reading.message_id),
        sender=cleaned(reading.sender), recipient=redacted(found[0]) if found else None,
        reply_key=cleaned(found[1]) if found else None,
        automatic=cleaned(reading.automatic), first_line=cleaned(reading.first_line),
        conditional=cleaned(reading.conditional),
        text=cleaned(reading.own_text),
        answers_to=tuple(cleaned(ref) or "" for ref in ours))
    return receive(letter, policy, now)


def _malformed_letter(raw: bytes, via: str, error: Exception) -> Letter:
    why = f"could not be read: {type(error).__name__}"
    if isinstance(error, MalformedMail):
        why = f"could not be read: {error}"
    return Letter(message_key=hashlib.sha256(raw).hexdigest(), via=via, malformed=why)


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
