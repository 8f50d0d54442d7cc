"""Drain the outbox: claim a batch of due messages, render, send, and record what happened.
The worker calls `deliver_due` batch after batch on each tick until nothing is due (or its
time slice, `outbox_slice_seconds`, is used up).

A batch is claimed in one statement (an UPDATE of the due rows' status, lease and version,
RETURNING them; on PostgreSQL the rows are chosen `FOR UPDATE SKIP LOCKED`, so several workers
share the outbox without waiting on each other or sending a message twice; MariaDB, which has
no UPDATE … RETURNING, locks them the same way and reads them back in the same transaction).
A claim is a lease: a worker that dies mid-send leaves its messages to be retried after the
lease, under the same Message-ID. A batch goes out over one SMTP connection. Temporary failures
retry with exponential backoff up to `outbox_max_attempts`; permanent failures stop at once,
stay visible, and mark the address undeliverable.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import peewee

from pbem.config import Settings
from pbem.core.accounts.players import mark_undeliverable
from pbem.core.db.connection import database, is_sqlite, write_transaction
from pbem.core.db.prepared import Prepared
from pbem.core.db.retry import retrying
from pbem.core.mailout.contexts import RenderCache
from pbem.core.mailout.models import RETAINED, UNSENT, MessageStatus, OutboxMessage
from pbem.mail.compose import Composer
from pbem.mail.senders import DeliveryError, Sender, Session, open_session
from pbem.mail.wire import Outgoing

# How long a claim holds: a batch of 50 takes well under a second to a nearby SMTP server and
# under a minute to a slow one. A worker killed mid-batch (kill -9, a crash) leaves its claim
# to expire; after this its mails go again (each recorded as sent the moment it was accepted,
# so at most the one in flight is sent twice).
LEASE = timedelta(seconds=90)
FIRST_RETRY = timedelta(minutes=1)
LONGEST_RETRY = timedelta(hours=2)


@dataclass(frozen=True)
class DrainReport:
    sent: int = 0
    retrying: int = 0
    failed: int = 0
    claimed: int = 0  # messages claimed (none: nothing was due)

    def __add__(self, other: DrainReport) -> DrainReport:
        return DrainReport(self.sent + other.sent, self.retrying + other.retrying,
                           self.failed + other.failed, self.claimed + other.claimed)


def deliver_due(settings: Settings, sender: Sender, composer: Composer, now: datetime,
                batch: int | None = None,
                stopping: Callable[[], bool] = lambda: False) -> DrainReport:
    """Send one claimed batch. Each mail is recorded as sent as soon as the SMTP server
    accepts it, so a worker stopped or killed mid-batch re-sends at most the mail in flight.
    When `stopping()` turns true (SIGTERM), the rest of the batch is handed back at once."""
    messages = claim_batch(now, batch or settings.outbox_batch_size,
                           timedelta(seconds=settings.outbox_lease_seconds))
    if not messages:
        return DrainReport()
    cache = RenderCache()
    cache.prefetch(messages)
    left: list[OutboxMessage] = []
    with open_session(sender) as session:
        delivery = _Delivery(session, now)
        try:
            for position, message in enumerate(messages):
                if stopping():
                    left = messages[position:]
                    break
                try:
                    outgoing = _compose(composer, message, now, cache)
                except DeliveryError as error:
                    delivery.failures.append((message, error))
                    continue
                # The previous message's verdict is read only now: the server took it in
                # while this one was rendered.
                delivery.read_verdict()
                delivery.begin(message, outgoing)
        finally:
            # Whatever stopped the loop, the message in flight is settled before the session
            # closes (QUIT would otherwise swallow its verdict, and a mail the server took
            # would go again after the lease).
            try:
                delivery.read_verdict()
            finally:
                try:
                    delivery.record()
                finally:
                    delivery.close()
    failures, sent = delivery.failures, delivery.sent
    with write_transaction():
        _release(left)
        retrying = 0
        for message, failure in failures:
            retrying += _record_failure(message, settings, str(failure), failure.temporary, now)
            if failure.bounce:
                mark_undeliverable(message.to_address, str(failure), now)
    return DrainReport(sent, retrying, len(failures) - retrying, len(messages))


class _Delivery:
    """A batch's messages on their way through one session, one in flight at a time: each is
    recorded as sent once its verdict says the server accepted it, and before the next
    message's bytes go, so a worker killed at any point re-sends at most one mail. The record
    is written while the server answers the next message's envelope, so the two waits
    overlap instead of adding up."""

    def __init__(self, session: Session, now: datetime) -> None:
        self.session = session
        self.now = now
        self.in_flight: OutboxMessage | None = None
        self.accepted: OutboxMessage | None = None  # accepted, not yet recorded as sent
        self.sent = 0
        self.failures: list[tuple[OutboxMessage, DeliveryError]] = []
        # On a database server the record is a round trip (and a WAL flush): a thread of
        # the batch's own, on its own connection, writes it while this one goes on through
        # the next message's envelope (MAIL, RCPT, DATA). SQLite's write is local and quick.
        self.recorder = None if is_sqlite() else ThreadPoolExecutor(1, "outbox-record")
        self.recorder_used = False  # its thread (and connection) exist once it had a record

    def begin(self, message: OutboxMessage, outgoing: Outgoing) -> None:
        try:
            self.session.begin(outgoing, self.start_record)
        except DeliveryError as error:
            self.failures.append((message, error))
        else:
            self.in_flight = message

    def read_verdict(self) -> None:
        """Read the verdict on the message in flight, if any; an accepted one is recorded by
        the next `begin` (or `record`)."""
        message, self.in_flight = self.in_flight, None
        if message is None:
            return
        try:
            self.session.end()
        except DeliveryError as error:
            self.failures.append((message, error))
            return
        self.accepted = message

    def start_record(self) -> Callable[[], None] | None:
        """Start recording the accepted message (see `Meanwhile`): on the recorder thread,
        returning what waits for it, or here and now on SQLite."""
        if self.accepted is None or self.recorder is None:
            self.record()
            return None
        try:
            written = self.recorder.submit(_record_on_this_thread, self.accepted, self.now)
        except RuntimeError:
            # The interpreter is exiting and its thread pools take no more work: the mail
            # the server took is recorded here, now, rather than not at all.
            self.record()
            return None
        self.recorder_used = True

        def wait() -> None:
            written.result()
            self._recorded()
        return wait

    def close(self) -> None:
        """Close the recorder thread's connection, and the thread (if it was started)."""
        if self.recorder is not None:
            if self.recorder_used:
                with contextlib.suppress(RuntimeError):  # the interpreter is exiting
                    self.recorder.submit(database.close).result()
            self.recorder.shutdown()
            self.recorder = None

    def record(self) -> None:
        """Record the accepted message as sent: one UPDATE, committed on its own (the
        driver's autocommit), since a transaction around it would add a BEGIN and a COMMIT
        round trip to every mail on a database server. Kept as accepted until it is
        recorded, so a failed write is tried again at the end of the batch."""
        if self.accepted is not None:
            _record_sent([self.accepted], self.now)
            self._recorded()

    def _recorded(self) -> None:
        self.accepted = None
        self.sent += 1


def _record_on_this_thread(message: OutboxMessage, now: datetime) -> None:
    database.connect(reuse_if_open=True)  # the recorder's own, until `_Delivery.close`
    _record_sent([message], now)


def _release(messages: Sequence[OutboxMessage]) -> None:
    """Hand unsent claimed messages back (the worker is stopping): due again at once, for
    whichever worker ticks next, instead of after the lease."""
    if messages:
        (OutboxMessage.update(status=MessageStatus.PENDING, claimed_until=None,
                              version=OutboxMessage.version + 1)
         .where(OutboxMessage.id.in_([m.id for m in messages]),
                OutboxMessage.status == MessageStatus.SENDING).execute())


def claim_batch(now: datetime, limit: int, lease: timedelta = LEASE) -> list[OutboxMessage]:
    """Claim up to `limit` due messages for this worker (see the module docstring)."""
    due = _due(now)
    chosen = (OutboxMessage.select(OutboxMessage.id).where(due)
              .order_by(OutboxMessage.next_attempt_at, OutboxMessage.id).limit(limit))
    claim = OutboxMessage.update(status=MessageStatus.SENDING,
                                 version=OutboxMessage.version + 1, claimed_until=now + lease)
    if isinstance(database.obj, peewee.MySQLDatabase):
        # MariaDB can neither UPDATE … RETURNING nor update a table it reads in a subquery:
        # the due rows are locked (SKIP LOCKED: another worker's claim passes them by),
        # updated by id and read back, in one transaction of three statements for the whole
        # batch.
        return retrying(lambda: _claim_locked(chosen, claim))
    if isinstance(database.obj, peewee.PostgresqlDatabase):
        # A CTE, not `id IN (subquery)`: PostgreSQL may run an IN subquery more than once
        # (and so take more than `limit` rows); a CTE holding FOR UPDATE is run exactly once.
        picked = chosen.for_update(skip_locked=True).cte("picked", columns=("id",))
        claim = claim.from_(picked).where(OutboxMessage.id == picked.c.id).with_cte(picked)
    else:
        claim = claim.where(OutboxMessage.id.in_(chosen) & due)
    sql, params = claim.sql()
    with write_transaction():
        rows = list(OutboxMessage.raw(f"{sql} RETURNING *", *params))
    return sorted(rows, key=lambda message: (message.next_attempt_at, message.id))


def _claim_locked(chosen: Any, claim: Any) -> list[OutboxMessage]:
    """MariaDB's claim (see `claim_batch`), at READ COMMITTED: at its default REPEATABLE READ
    the locking read also locks the gaps between all the due rows it scans, not only the
    batch's, and two workers' claims deadlocked each other writing into those gaps."""
    if not database.in_transaction():
        database.execute_sql("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
    with write_transaction():
        locked: Any = chosen.for_update(skip_locked=True).tuples()
        ids = [row_id for (row_id,) in locked]
        if not ids:
            return []
        claim.where(OutboxMessage.id.in_(ids)).execute()
        rows = list(OutboxMessage.select().where(OutboxMessage.id.in_(ids)))
    return sorted(rows, key=lambda message: (message.next_attempt_at, message.id))


def prune_sent(now: datetime, retention: timedelta) -> int:
    """Drop what renders a sent message (its params) once the retention period is over; the
    record (recipient, kind, Message-ID, status, times, a subject not its thread's) stays."""
    return (OutboxMessage.update(params=None)
            .where(RETAINED, OutboxMessage.status == MessageStatus.SENT,
                   OutboxMessage.sent_at < now - retention).execute())


def _compose(composer: Composer, message: OutboxMessage, now: datetime,
             cache: RenderCache) -> Outgoing:
    try:
        return composer.outgoing(message, now, cache)
    except Exception as error:
        # A template or data bug: retrying will not help, and it must stay visible.
        raise DeliveryError(f"could not render the message: {error!r}", temporary=False,
                            bounce=False) from error


def backoff(attempts: int) -> timedelta:
    return min(FIRST_RETRY * 2 ** max(attempts - 1, 0), LONGEST_RETRY)


def _due(now: datetime) -> peewee.Expression:
    pending = (OutboxMessage.status == MessageStatus.PENDING) & (
        OutboxMessage.next_attempt_at <= now)
    abandoned = (OutboxMessage.status == MessageStatus.SENDING) & (
        OutboxMessage.claimed_until < now)
    return UNSENT & (pending | abandoned)


def _record_sent(messages: Sequence[OutboxMessage], now: datetime) -> None:
    """One UPDATE per subject kept (a match's mails keep none: theirs is the thread's), not
    one per message."""
    by_subject: dict[str | None, list[int]] = defaultdict(list)
    for message in messages:
        by_subject[message.subject].append(message.id)
    # The prepared UPDATE passes values to the driver as they are, so the time is cut to the
    # second here, as `sent_at` (a SecondsField) keeps it on every other path.
    sent_at = OutboxMessage.sent_at.db_value(now)
    for subject, ids in by_subject.items():
        if len(ids) == 1:
            _SENT_ONE.run(subject, sent_at, ids[0])
            continue
        _sent(subject, now).where(OutboxMessage.id.in_(ids)).execute()


def _sent(subject: Any, now: Any) -> Any:
    return OutboxMessage.update(status=MessageStatus.SENT, sent_at=now, claimed_until=None,
                                attempts=OutboxMessage.attempts + 1, subject=subject,
                                version=OutboxMessage.version + 1)


# The usual case, a match's only mail in the batch: compiled once.
_SENT_ONE = Prepared(lambda subject, now, message_id: _sent(subject, now)
                     .where(OutboxMessage.id == message_id))


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
