"""The daily mail to every admin while the adjudication queue holds entries older than a day.

The worker calls `send_if_due` every few minutes with its clock; it queues the mails once a
UTC day, at or after `queue_digest_hour`, and only when old entries wait. The day it last
looked is kept in the job's row, read under a lock, so two workers never both send.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.core.accounts.admins import admins_to_mail
from pbem.core.accounts.models import Player
from pbem.core.admin import console
from pbem.core.admin.models import JobRun
from pbem.core.db.connection import locking, write_transaction
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.models import Adjudication, Seat

JOB = "admin-digest"
STALE_AFTER = timedelta(days=1)


@dataclass
class DigestReport:
    admins: int = 0  # how many admins were mailed
    entries: int = 0  # how many old entries the mail listed


def send_if_due(now: datetime, hour: int) -> DigestReport:
    """Queue today's mail if it is due."""
    if now.hour < hour:
        return DigestReport()
    today = now.date().isoformat()
    with write_transaction():
        # The row exists before it is locked, so workers starting together queue on it
        # (a lock on a missing row locks nothing).
        (JobRun.insert(name=JOB, finished_at=now, seconds=0.0, detail={})
         .on_conflict_ignore().execute())
        query = JobRun.select().where(JobRun.name == JOB)
        row = locking(query).get()
        if row.detail.get("day") == today:
            return DigestReport()
        stale = console.stale_entries(now, STALE_AFTER)
        recipients = admins_to_mail() if stale else []
        entries = [_line(entry, now) for entry in stale]
        for address in recipients:
            OutboxMessage.create(to_address=address, template="admin_queue",
                                 params={"entries": entries},
                                 message_id=f"pbem.{secrets.token_hex(12)}",
                                 status=MessageStatus.PENDING, next_attempt_at=now,
                                 created_at=now)
        detail = {"day": today, "entries": len(entries), "admins": len(recipients)}
        JobRun.update(finished_at=now, detail=detail).where(JobRun.id == row.id).execute()
    return DigestReport(len(recipients), len(entries) if recipients else 0)


def _line(entry: Adjudication, now: datetime) -> dict[str, object]:
    late = (Seat.select(Seat, Player).join(Player)
            .where(Seat.match == entry.match_id, Seat.seat == entry.seat).first())
    return {"entry": entry.id, "match": entry.match_id, "game": entry.match.game,
            "late": late.player.public_name if late else f"seat {entry.seat}",
            "late_for": console.late_for(entry.opened_at, now), "cause": entry.cause}
