"""Seat clocks, reminders and the deadline sweep.

A seat's clock runs only while it owes a move, and stops while its player is on vacation or the
server is down. `start_clock` and `stop_clock` are called by the move and match services;
`sweep` is the worker's job: it reminds seats whose `remind_at` has come and settles seats
whose `deadline` has passed, each exactly once, even with two workers (a conditional UPDATE on
the seat's version claims it). It reads only due rows through the indexed columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbem.core import notify
from pbem.core.clocks import TimeControl, deadline, reminder_lead, running_time
from pbem.core.db import write_transaction
from pbem.core.models import (
    Adjudication,
    AdjudicationStatus,
    Heartbeat,
    Match,
    MatchStatus,
    MessageStatus,
    OutboxMessage,
    Seat,
    Vacation,
)
from pbem.games import get_rules


class TimeoutPolicy:
    ADJUDICATE = "adjudicate"
    FORFEIT = "forfeit"
    AUTOPLAY = "autoplay"
    ALL = ("adjudicate", "forfeit", "autoplay")


@dataclass(frozen=True)
class SweepReport:
    reminded: int = 0
    settled: int = 0
    held: int = 0  # due, but the seat's turn email was never delivered: sent to the queue
    extended_by_outage: int = 0


# --- clocks ---------------------------------------------------------------------------------

def start_clock(match: Match, seat: Seat, now: datetime) -> None:
    """The seat now owes a move: its deadline is its allowance of running time from now."""
    if seat.allowance_seconds <= 0:
        seat.allowance_seconds = int(TimeControl.parse(match.time_control).bank.total_seconds())
    seat.owes_since = now
    _set_deadline(seat, now)
    seat.save()


def stop_clock(match: Match, seat: Seat, now: datetime) -> None:
    """The seat moved: charge the running time it used and set its next allowance."""
    if seat.owes_since is None:
        return
    control = TimeControl.parse(match.time_control)
    used = running_time(seat.owes_since, now, pauses_for(seat.player_id, seat.owes_since))
    allowance = timedelta(seconds=seat.allowance_seconds)
    seat.allowance_seconds = int(control.allowance_after_move(allowance, used).total_seconds())
    seat.owes_since = seat.deadline = seat.remind_at = None
    seat.version += 1
    seat.save()


def stop_all_clocks(match: Match) -> None:
    Seat.update(owes_since=None, deadline=None, remind_at=None,
                version=Seat.version + 1).where(Seat.match == match).execute()


def refresh_player_deadlines(player_id: int, now: datetime) -> None:
    """Recompute the deadlines of every seat the player owes a move in (after a vacation)."""
    owing = Seat.select().join(Match).where(Seat.player == player_id,
                                            Seat.owes_since.is_null(False),
                                            Match.status == MatchStatus.ACTIVE)
    for seat in owing:
        _set_deadline(seat, now)
        seat.version += 1
        seat.save()


def pauses_for(player_id: int, since: datetime) -> list[tuple[datetime, datetime]]:
    rows = Vacation.select().where(Vacation.player == player_id, Vacation.ends_at > since)
    return [(row.starts_at, row.ends_at) for row in rows]


def time_left(seat: Seat, now: datetime) -> timedelta | None:
    return None if seat.deadline is None else seat.deadline - now


def _set_deadline(seat: Seat, now: datetime) -> None:
    allowance = timedelta(seconds=seat.allowance_seconds)
    pauses = pauses_for(seat.player_id, seat.owes_since)
    seat.deadline = deadline(seat.owes_since, allowance, pauses)
    remind = deadline(seat.owes_since, allowance - reminder_lead(allowance), pauses)
    seat.remind_at = remind if remind > now else None


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
    query = (Seat.select(Seat.id).join(Match)
             .where(column <= now, Match.status == MatchStatus.ACTIVE)
             .order_by(column).limit(batch))
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
        rules = get_rules(match.game)
        notify.queue_reminder(match, rules, rules.load(match.state), seat.seat, now)
    return True


def _settle(seat_id: int, now: datetime) -> str:
    with write_transaction():
        seat = Seat.get_or_none(Seat.id == seat_id)
        if seat is None or seat.deadline is None or seat.deadline > now:
            return "skipped"
        match = seat.match
        if not match.is_live or not _claim(seat, deadline=None, remind_at=None):
            return "skipped"
        if _turn_email_undelivered(match, seat.seat):
            # The player may never have been told: an admin looks before anything happens.
            _open_entry(match, seat.seat, "undelivered", now)
            return "held"
        if match.on_timeout == TimeoutPolicy.FORFEIT:
            from pbem.core.rulings import forfeit

            forfeit(match, seat.seat, now)
        elif match.on_timeout == TimeoutPolicy.ADJUDICATE:
            _open_entry(match, seat.seat, "timeout", now)
    if match.on_timeout == TimeoutPolicy.AUTOPLAY:
        from pbem.core.rulings import autoplay

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


def close_moot_entries(match: Match, seat: int | None, now: datetime, why: str) -> None:
    """A seat moved (or the match ended) before the admin ruled: the entry is moot."""
    query = Adjudication.update(status=AdjudicationStatus.CLOSED, reason=why, ruled_at=now,
                                ruled_by="pbem").where(Adjudication.match == match,
                                                       Adjudication.status ==
                                                       AdjudicationStatus.OPEN)
    if seat is not None:
        query = query.where(Adjudication.seat == seat)
    query.execute()


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
        running = (Seat.select().join(Match)
                   .where(Seat.deadline >= last, Match.status == MatchStatus.ACTIVE))
        return sum(_claim(seat, deadline=seat.deadline + outage,
                          remind_at=seat.remind_at and seat.remind_at + outage)
                   for seat in running)
