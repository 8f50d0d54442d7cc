"""Drain the outbox: claim due messages, render, send, and record what happened.

A message is claimed with a conditional update (status and version), so two workers never send
the same message; a claim is a lease, so a worker that dies mid-send leaves the message to be
retried after the lease, under the same Message-ID. Temporary failures retry with exponential
backoff up to `outbox_max_attempts`; permanent failures stop at once and stay visible.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage

from pbem.config import Settings
from pbem.core.db import write_transaction
from pbem.core.models import MessageStatus, OutboxMessage
from pbem.mail.compose import Composer
from pbem.mail.senders import DeliveryError, Sender

LEASE = timedelta(minutes=5)
FIRST_RETRY = timedelta(minutes=1)
LONGEST_RETRY = timedelta(hours=2)


@dataclass(frozen=True)
class DrainReport:
    sent: int = 0
    retrying: int = 0
    failed: int = 0


def deliver_due(settings: Settings, sender: Sender, composer: Composer, now: datetime,
                batch: int | None = None) -> DrainReport:
    sent = retrying = failed = 0
    for message_id in _due_ids(now, batch or settings.outbox_batch_size):
        message = _claim(message_id, now)
        if message is None:
            continue
        try:
            email = _compose(composer, message, now)
            sender.send(email)
        except DeliveryError as error:
            if _record_failure(message, settings, str(error), error.temporary, now):
                retrying += 1
            else:
                failed += 1
            continue
        message.status = MessageStatus.SENT
        message.sent_at = now
        message.claimed_until = None
        message.attempts += 1
        message.save()
        sent += 1
    return DrainReport(sent, retrying, failed)


def _compose(composer: Composer, message: OutboxMessage, now: datetime) -> EmailMessage:
    try:
        return composer.to_email(message, now)
    except Exception as error:
        # A template or data bug: retrying will not help, and it must stay visible.
        raise DeliveryError(f"could not render the message: {error!r}", temporary=False) from error


def backoff(attempts: int) -> timedelta:
    return min(FIRST_RETRY * 2 ** max(attempts - 1, 0), LONGEST_RETRY)


def _due_ids(now: datetime, batch: int) -> list[int]:
    pending = (OutboxMessage.status == MessageStatus.PENDING) & (
        OutboxMessage.next_attempt_at <= now)
    abandoned = (OutboxMessage.status == MessageStatus.SENDING) & (
        OutboxMessage.claimed_until < now)
    query = (OutboxMessage.select(OutboxMessage.id).where(pending | abandoned)
             .order_by(OutboxMessage.next_attempt_at, OutboxMessage.id).limit(batch))
    return [row.id for row in query]


def _claim(message_id: int, now: datetime) -> OutboxMessage | None:
    with write_transaction():
        message = OutboxMessage.get_or_none(OutboxMessage.id == message_id)
        if message is None or message.status in (MessageStatus.SENT, MessageStatus.FAILED):
            return None
        if (message.status == MessageStatus.SENDING and message.claimed_until is not None
                and message.claimed_until >= now):
            return None
        claimed = (OutboxMessage.update(status=MessageStatus.SENDING,
                                        version=OutboxMessage.version + 1,
                                        claimed_until=now + LEASE)
                   .where(OutboxMessage.id == message_id,
                          OutboxMessage.version == message.version).execute())
    if claimed != 1:
        return None
    return OutboxMessage.get_by_id(message_id)


def _record_failure(message: OutboxMessage, settings: Settings, error: str, temporary: bool,
                    now: datetime) -> bool:
    """Store the failure; return True if the message will be retried."""
    message.attempts += 1
    message.last_error = error[:2000]
    message.claimed_until = None
    retry = temporary and message.attempts < settings.outbox_max_attempts
    message.status = MessageStatus.PENDING if retry else MessageStatus.FAILED
    if retry:
        message.next_attempt_at = now + backoff(message.attempts)
    message.save()
    return retry
