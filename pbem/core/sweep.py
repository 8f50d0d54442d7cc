"""The worker's deadline job: reminders, timeouts and outage fairness.

It reminds seats whose `remind_at` has come and settles seats whose `deadline` has passed,
each exactly once even with two workers (a conditional UPDATE on the seat's version claims
it), reading only due rows through the indexed columns. A timeout is settled by the match's
policy (rulings.py) or opens an entry in the admin's queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbem.core import notify
from pbem.core.db import write_transaction
from pbem.core.deadlines import TimeoutPolicy
from pbem.core.models import (
    Adjudication,
    Heartbeat,
    Match,
    MessageStatus,
    OutboxMessage,
    Seat,
)
from pbem.core.rulings import autoplay, forfeit
from pbem.games import get_rules


@dataclass(frozen=True)
class SweepReport:
    reminded: int = 0
    settled: int = 0
    held: int = 0  # due, but the seat's turn email was never delivered: sent to the queue
    extended_by_outage: int = 0


# --- the sweep ------------------------------------------------------------------------------

def sweep(now: datetime, outage_grace: timedelta, batch: int = 200) -> SweepReport:
    """The worker's deadline job: outage extension, reminders, then due deadlines."""
    extended = _extend_for_outage(now, outage_grace)
    reminded = sum(_remind(seat_id, now) for seat_id in _due(Seat.remind_at, now, batch))
    settled = held = 0
    for seat_id in _due(Seat.deadline, now, batch):
        result = _settle(seat_id, now)
        settled += result == "settled"
        held += result == "held"
    return SweepReport(reminded, settled, held, extended)


def _due(column: Any, now: datetime, batch: int) -> list[int]:
    # Only seats that owe a move in a live match have a deadline or reminder time (every end
    # of a match clears them), so the column's own index finds due work: no join, no scan of
    # live matches, however many there are.
    query = Seat.select(Seat.id).where(column <= now).order_by(column).limit(batch)
    return [row.id for row in query]


def _claim(seat: Seat, **changes: Any) -> bool:
    """Change a due seat only if nobody else did since we read it (exactly-once)."""
    updated = (Seat.update(version=Seat.version + 1, **changes)
               .where(Seat.id == seat.id, Seat.version == seat.version).execute())
    return updated == 1


def _remind(seat_id: int, now: datetime) -> bool:
    with write_transaction():
        seat = Seat.get_or_none(Seat.id == seat_id)
        if seat is None or seat.remind_at is None or seat.remind_at > now:
            return False
        if not _claim(seat, remind_at=None):
            return False
        match = seat.match
        if not match.is_live:
            return False
        rules = get_rules(match.game)
        notify.queue_reminder(match, rules, rules.load(match.state), seat.seat, now)
    return True


def _settle(seat_id: int, now: datetime) -> str:
    with write_transaction():
        seat = Seat.get_or_none(Seat.id == seat_id)
        if seat is None or seat.deadline is None or seat.deadline > now:
            return "skipped"
        match = seat.match
        if not _claim(seat, deadline=None, remind_at=None) or not match.is_live:
            return "skipped"  # (a stray deadline of an ended match is cleared all the same)
        if _turn_email_undelivered(match, seat.seat):
            # The player may never have been told: an admin looks before anything happens.
            _open_entry(match, seat.seat, "undelivered", now)
            return "held"
        if match.on_timeout == TimeoutPolicy.FORFEIT:
            forfeit(match, seat.seat, now)
        elif match.on_timeout == TimeoutPolicy.ADJUDICATE:
            _open_entry(match, seat.seat, "timeout", now)
    if match.on_timeout == TimeoutPolicy.AUTOPLAY:
        autoplay(match.id, seat.seat, now, reason="the clock ran out (autoplay policy)")
    return "settled"


def _open_entry(match: Match, seat: int, cause: str, now: datetime) -> None:
    Adjudication.create(match=match, seat=seat, cause=cause, opened_at=now)
    rules = get_rules(match.game)
    notify.queue_adjudication_opened(match, rules, rules.load(match.state), seat, cause, now)


def _turn_email_undelivered(match: Match, seat: int) -> bool:
    """The seat's latest turn email failed, or is being retried after failing. (One merely
    queued is not: if the worker itself is down, the outage rule protects the seat.)"""
    latest = (OutboxMessage.select(OutboxMessage.status, OutboxMessage.attempts)
              .where(OutboxMessage.match == match, OutboxMessage.seat == seat,
                     OutboxMessage.template == "your_turn")
              .order_by(OutboxMessage.id.desc()).first())
    if latest is None or latest.status == MessageStatus.SENT:
        return False
    return latest.status == MessageStatus.FAILED or latest.attempts > 0


# --- outages --------------------------------------------------------------------------------

def _extend_for_outage(now: datetime, grace: timedelta) -> int:
    """If the worker was silent longer than `grace`, no clock ran meanwhile: push back every
    deadline still running by the length of the silence, instead of letting it expire."""
    with write_transaction():
        beat = Heartbeat.get_or_none(Heartbeat.name == "worker")
        if beat is None:
            # Two workers starting together may both get here: the second insert is ignored.
            Heartbeat.insert(name="worker", seen_at=now).on_conflict_ignore().execute()
            return 0
        last = beat.seen_at
        claimed = (Heartbeat.update(seen_at=now)
                   .where(Heartbeat.id == beat.id, Heartbeat.seen_at == last).execute())
        if claimed != 1 or now - last <= grace:
            return 0
        outage = now - last
        running = Seat.select().where(Seat.deadline >= last)
        return sum(_claim(seat, deadline=seat.deadline and seat.deadline + outage,
                          remind_at=seat.remind_at and seat.remind_at + outage)
                   for seat in running)
