"""Bounces that come back later, and complaints: what a delivery report or a feedback report
about one of pbem's mails does, once the mail layer (`pbem/mail/inbound/bounces.py`) has read
it and found the mail it is about.

- A permanent failure (5.x.x) marks the address undeliverable, as a refusal at sending does
  (`accounts.players.mark_undeliverable`): the player's opponents and the admins see it.
- A transient failure (4.x.x: a full mailbox, a delay) is recorded only: the mail server goes
  on trying, and the address may well work tomorrow.
- A complaint (the player pressed "this is spam") unsubscribes the player from every mail but
  those about their turns (`turns`, no chat mail) and shows on the admin console.
- A report that matches no mail and no player is recorded and nothing else.

No report is ever answered: an answer would go to a mail server's robot, or to a stranger.
Each report is recorded once, under its Message-ID's hash, in `inboundmessage` beside the
replies (the admin's inbound page lists both), so a report delivered twice acts once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

import peewee

from pbem.core.accounts.models import Player
from pbem.core.accounts.players import mark_undeliverable
from pbem.core.db.connection import database, write_transaction
from pbem.core.db.retry import retrying
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailin.replies import Receipt
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.preferences import ChatMail, MailPreference

log = logging.getLogger(__name__)


class Kind:
    PERMANENT = "permanent"
    TRANSIENT = "transient"
    COMPLAINT = "complaint"
    UNKNOWN = "unknown"  # a report about our mail that says neither


# What each becomes on the inbound record (`InboundMessage.action`).
ACTIONS = {Kind.PERMANENT: "bounced", Kind.TRANSIENT: "delayed", Kind.COMPLAINT: "complaint",
           Kind.UNKNOWN: "bounce_unread"}
UNMATCHED = "bounce_unmatched"


@dataclass(frozen=True)
class Report:
    """A delivery report or a complaint, as the mail layer read it."""

    message_key: str                 # SHA-256 of its Message-ID (or of the whole message)
    via: str
    kind: str                        # a `Kind`
    message_id: str | None = None
    sender: str | None = None
    outbox_id: int | None = None     # the mail it is about, when found (VERP or Message-ID)
    found_by: str | None = None      # "verp", "message-id", or None
    addresses: tuple[str, ...] = ()  # the failed or complaining addresses it names
    status: str = ""                 # what it says (a status code, a feedback type)


def receive_report(report: Report, now: datetime) -> Receipt:
    """Record the report once and do what it says; never answer it."""
    record = retrying(lambda: _claim_once(report, now))
    if record is None:
        return Receipt("duplicate", "this report was already recorded")
    receipt = retrying(lambda: _act(report, record, now))
    log.info("inbound report via %s: %s (%s)", report.via, receipt.action, receipt.detail)
    return receipt


def complaints(limit: int = 50) -> list[InboundMessage]:
    """The latest complaints, newest first, for the admin console."""
    return list(InboundMessage.select()
                .where(InboundMessage.action == ACTIONS[Kind.COMPLAINT])
                .order_by(InboundMessage.id.desc()).limit(limit))


def _claim_once(report: Report, now: datetime) -> InboundMessage | None:
    try:
        with write_transaction(), database.atomic():
            return InboundMessage.create(
                message_key=report.message_key, message_id=(report.message_id or "")[:200]
                or None, received_at=now, via=report.via,
                sender=(report.sender or "")[:254] or None, action="received")
    except peewee.IntegrityError:
        return None


def _act(report: Report, record: InboundMessage, now: datetime) -> Receipt:
    with write_transaction():
        mail = (OutboxMessage.get_or_none(OutboxMessage.id == report.outbox_id)
                if report.outbox_id is not None else None)
        # The address pbem wrote to is the one that failed, even when the report names
        # where it was forwarded; without the mail, the addresses the report names.
        addresses = (mail.to_address,) if mail is not None else tuple(
            address for address in report.addresses
            if Player.select().where(Player.email == address).exists())
        if not addresses:
            action, detail = UNMATCHED, f"{report.kind} {report.status}".strip()
        else:
            action = ACTIONS[report.kind]
            detail = _detail(report, mail, addresses)
            for address in addresses:
                _consequence(report, address, detail, now)
        record.action, record.detail = action, detail[:2000]
        record.recipient = addresses[0][:254] if addresses else None
        if mail is not None and mail.match_id is not None:
            record.match_id, record.seat = mail.match_id, mail.seat
        record.save()
    return Receipt(action, detail, None, record.match_id, record.seat)


def _consequence(report: Report, address: str, detail: str, now: datetime) -> None:
    if report.kind == Kind.PERMANENT:
        mark_undeliverable(address, f"bounced later: {detail}", now)
    elif report.kind == Kind.COMPLAINT:
        # Their turns still come (a match must not be lost to a spam button); the rest stops.
        (Player.update(mail_pref=MailPreference.TURNS)
         .where(Player.email == address, Player.mail_pref == MailPreference.EACH).execute())
        Player.update(chat_mail=ChatMail.OFF).where(Player.email == address).execute()


def _detail(report: Report, mail: OutboxMessage | None, addresses: tuple[str, ...]) -> str:
    about = f"mail {mail.id} ({mail.template})" if mail is not None else "no mail found"
    how = f", found by {report.found_by}" if report.found_by else ""
    return f"{report.status or report.kind}: {about}{how}, to {', '.join(addresses)}"
