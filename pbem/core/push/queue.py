"""The push outbox: one row per subscription a push goes to, claimed under a lease (a sender
that dies mid-send leaves it to be sent again after the lease), retried with backoff on a
temporary failure, recorded as sent exactly once."""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.core.db.connection import write_transaction
from pbem.core.push.models import PushMessage, PushStatus, PushSubscription

FIRST_RETRY = timedelta(minutes=1)
LONGEST_RETRY = timedelta(hours=1)
MAX_ATTEMPTS = 6


def queue_push(player_id: int, template: str, match_id: int | None, seat: int | None,
               ply: int | None, now: datetime) -> int:
    """A push of `template` to every browser the player subscribed; how many were queued."""
    subscriptions = [row.id for row in PushSubscription.select(PushSubscription.id)
                     .where(PushSubscription.player == player_id)]
    for subscription in subscriptions:
        PushMessage.insert(subscription=subscription, match=match_id, seat=seat, ply=ply,
                           template=template, status=PushStatus.PENDING, next_attempt_at=now,
                           created_at=now).execute()
    return len(subscriptions)


def claim(now: datetime, limit: int, lease: timedelta) -> list[PushMessage]:
    """Claim due pushes: each by a conditional update on its version, so two senders never
    take the same one."""
    due = list(PushMessage.select(PushMessage.id, PushMessage.version).where(
        ((PushMessage.status == PushStatus.PENDING) & (PushMessage.next_attempt_at <= now))
        | ((PushMessage.status == PushStatus.SENDING) & (PushMessage.claimed_until < now)))
        .order_by(PushMessage.next_attempt_at, PushMessage.id).limit(limit))
    claimed = []
    for row in due:
        with write_transaction():
            taken = (PushMessage.update(status=PushStatus.SENDING, claimed_until=now + lease,
                                        version=PushMessage.version + 1)
                     .where(PushMessage.id == row.id, PushMessage.version == row.version)
                     .execute())
        if taken == 1:
            claimed.append(row.id)
    return list(PushMessage.select(PushMessage, PushSubscription).join(PushSubscription)
                .where(PushMessage.id.in_(claimed or [0])).order_by(PushMessage.id))


def record_sent(message: PushMessage, now: datetime) -> None:
    (PushMessage.update(status=PushStatus.SENT, sent_at=now, claimed_until=None,
                        attempts=PushMessage.attempts + 1, version=PushMessage.version + 1)
     .where(PushMessage.id == message.id).execute())


def record_failure(message: PushMessage, error: str, temporary: bool, now: datetime) -> bool:
    """Store the failure; True if the push will be tried again."""
    attempts = message.attempts + 1
    retry = temporary and attempts < MAX_ATTEMPTS
    (PushMessage.update(status=PushStatus.PENDING if retry else PushStatus.FAILED,
                        attempts=attempts, last_error=error[:2000], claimed_until=None,
                        next_attempt_at=now + min(FIRST_RETRY * 2 ** (attempts - 1),
                                                  LONGEST_RETRY) if retry else now,
                        version=PushMessage.version + 1)
     .where(PushMessage.id == message.id).execute())
    return retry
