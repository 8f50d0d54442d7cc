"""The worker's deadline job: reminders, timeouts and outage fairness.

It reminds seats whose `remind_at` has come and settles seats whose `deadline` has passed,
reading only due rows through the indexed columns. Each seat is settled as one change through
the door (changes.py): the match row is locked first, so two workers settle a timeout exactly
once and a move racing the timeout either comes first (the seat no longer owes it) or finds the
match already settled. A timeout is settled by the match's policy or opens an entry in the
admin's queue.

Each seat is settled in its own guard and its own transaction: if one match cannot be settled
(its stored state is corrupted, say), the sweep logs it, opens an admin queue entry for that
match (cause "error") and goes on with every other deadline.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar

import peewee

from pbem.core.db.connection import UNAVAILABLE, write_transaction
from pbem.core.db.retry import is_transient, retrying
from pbem.core.matches.changes import UNLOGGED, Change, Locked, apply_change, turn_mail_failed
from pbem.core.matches.computer_turns import StandIn
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.matches.models import (
    Adjudication,
    AdjudicationStatus,
    Heartbeat,
    Match,
    Move,
    Seat,
)
from pbem.core.matches.rulings import autoplay_in, forfeit
from pbem.games.base import CommitsDeals

log = logging.getLogger(__name__)
# A timeout's cause when the late seat owed its salt (settled by taking the one it was given).
SALT_CAUSE = "salt"


@dataclass(frozen=True)
class SweepReport:
    reminded: int = 0
    settled: int = 0
    held: int = 0  # due, but the seat's turn email was never delivered: sent to the queue
    extended_by_outage: int = 0
    failed: int = 0  # could not be settled: an admin queue entry was opened instead


@dataclass(frozen=True)
class Limits:
    """How far the autoplay policy goes: after `autoplay_limit` autoplayed moves in a row by
    one seat, its next timeout is settled by `after_limit` (adjudicate or forfeit) instead."""

    autoplay_limit: int = 3
    after_limit: str = TimeoutPolicy.ADJUDICATE
    # The computer that moves for the late seat (setting `autoplay_level`).
    stand_in: StandIn = field(default_factory=StandIn)


@dataclass(frozen=True)
class _Due:
    seat_id: int
    match_id: int
    number: int


# --- the sweep ------------------------------------------------------------------------------

def sweep(now: datetime, outage_grace: timedelta, batch: int = 200,
          limits: Limits | None = None) -> SweepReport:
    """The worker's deadline job: outage extension, reminders, then due deadlines."""
    limits = limits or Limits()
    extended = retrying(lambda: _extend_for_outage(now, outage_grace))
    reminded = failed = 0
    for due in _due(Seat.remind_at, now, batch):
        result = _guarded(due, now, functools.partial(_remind, due, now))
        reminded += result is True
        failed += result == "failed"
    settled = held = 0
    for due in _due(Seat.deadline, now, batch):
        result = _guarded(due, now, functools.partial(_settle, due, now, limits))
        settled += result == "settled"
        held += result == "held"
        failed += result == "failed"
    return SweepReport(reminded, settled, held, extended, failed)


def _due(column: Any, now: datetime, batch: int) -> list[_Due]:
    # Only seats that owe a move in a live match have a deadline or reminder time (every end
    # of a match clears them), so the column's own index finds due work: no join, no scan of
    # live matches, however many there are.
    query = (Seat.select(Seat.id, Seat.match, Seat.seat).where(column <= now)
             .order_by(column).limit(batch))
    return [_Due(row.id, row.match_id, row.seat) for row in query]


def _guarded(due: _Due, now: datetime, action: Callable[[], Any]) -> Any:
    """Run one seat's settlement; if it fails for any reason, keep the sweep going."""
    try:
        return action()
    except UNAVAILABLE as error:
        if not isinstance(error, peewee.OperationalError) or not is_transient(error):
            raise  # the database is down: the worker says so and tries again next tick
        log.exception("could not settle seat %s of match %s", due.number, due.match_id)
        return "failed"
    except Exception:
        log.exception("could not settle seat %s of match %s; opening an admin entry",
                      due.number, due.match_id)
        try:
            _open_error_entry(due, now)
        except Exception:
            log.exception("could not open an admin entry for match %s either", due.match_id)
        return "failed"


def _remind(due: _Due, now: datetime) -> bool:
    reminded: bool = apply_change(due.match_id, Reminder(seat=due.number), now)
    return reminded


def _settle(due: _Due, now: datetime, limits: Limits) -> str:
    settled: str = apply_change(due.match_id, Timeout(seat=due.number, limits=limits), now)
    return settled


@dataclass(frozen=True, kw_only=True)
class Reminder(Change):
    """The seat's reminder time has come: mail it that its move is still due."""

    kind: ClassVar[str] = "reminder"

    def apply(self, door: Locked) -> bool:
        number, now = _number(self), door.now
        seat = door.seat(number)
        if not door.match.is_live:
            _clear_stray_times(seat)
            return False
        if seat.remind_at is None or seat.remind_at > now:
            return False
        seat.remind_at = None
        seat.version += 1
        seat.save()
        door.touch()
        if seat.deadline is None or seat.deadline <= now:
            # Time is already up: the timeout settles the seat; a reminder would say
            # "still your turn" about a turn that is over.
            return False
        door.tell("reminder", seat=number, state=door.state)
        return True


@dataclass(frozen=True, kw_only=True)
class Timeout(Change):
    """The seat's deadline has passed: the match's timeout policy settles it."""

    kind: ClassVar[str] = "timeout"
    limits: Limits | None = field(default=None, metadata=UNLOGGED)

    def apply(self, door: Locked) -> str:
        number, now = _number(self), door.now
        limits = self.limits or Limits()
        seat = door.seat(number)
        if not door.match.is_live:
            _clear_stray_times(seat)
            return "skipped"
        if seat.deadline is None or seat.deadline > now:
            return "skipped"
        seat.deadline = seat.remind_at = None
        seat.version += 1
        seat.save()
        door.touch()
        if turn_mail_failed(door.match.id, number):
            # The player may never have been told: an admin looks before anything happens.
            open_entry(door, number, "undelivered")
            door.note(settled="held", cause="undelivered")
            return "held"
        if _owes_salt(door, number):
            # A salt may be left to chance: the seat takes the one it was given, whatever the
            # policy, so the first deal never waits on an absent player and nobody loses a
            # match (or waits for an admin) before a card is dealt.
            door.note(policy=TimeoutPolicy.AUTOPLAY, cause=SALT_CAUSE)
            autoplay_in(door, number, "the clock ran out before the first deal: the salt it "
                        "was given", limits.stand_in)
            return "settled"
        policy, cause = door.match.on_timeout, "timeout"
        if policy == TimeoutPolicy.AUTOPLAY and _autoplay_streak(door.match, number,
                                                                 limits.autoplay_limit):
            policy, cause = limits.after_limit, "autoplay-limit"
        door.note(policy=policy, cause=cause)
        if policy == TimeoutPolicy.AUTOPLAY:
            autoplay_in(door, number, "the clock ran out (autoplay policy)", limits.stand_in)
        elif policy == TimeoutPolicy.FORFEIT:
            why = _forfeit_reason(door, number, cause, limits)
            forfeit(door, number, why)
        elif policy == TimeoutPolicy.CLAIM:
            seat.out_of_time_at = now
            seat.save()
            door.tell("claim-available", late=number, state=door.state)
        else:
            open_entry(door, number, cause)
        return "settled"

    def timed_out(self, logged: dict[str, Any]) -> frozenset[int]:
        # Only a forfeit ends the match on time here (an autoplayed move may end it too, on
        # the board: that is no loss on time).
        if logged.get("policy") == TimeoutPolicy.FORFEIT and self.seat is not None:
            return frozenset({self.seat})
        return frozenset()


@dataclass(frozen=True, kw_only=True)
class SweepFailure(Change):
    """The sweep could not settle the seat: put the match in front of an admin, once, and
    stop the sweep retrying it every minute (the entry stands for the seat's deadline)."""

    kind: ClassVar[str] = "sweep-failure"

    def apply(self, door: Locked) -> None:
        number = _number(self)
        seat = door.seat(number)
        seat.deadline = seat.remind_at = None
        seat.version += 1
        seat.save()
        door.touch()
        already = Adjudication.select().where(Adjudication.match == door.match,
                                              Adjudication.status == AdjudicationStatus.OPEN,
                                              Adjudication.cause == "error").exists()
        if not already:
            entry = Adjudication.create(match=door.match, seat=number, cause="error",
                                        opened_at=door.now)
            door.pending.rulings = True
            door.note(entry=entry.id, cause="error")


@dataclass(frozen=True, kw_only=True)
class OutageCredit(Change):
    """The worker was silent (an outage): no clock ran meanwhile, so every deadline still
    running in the match moves back by the silence."""

    kind: ClassVar[str] = "outage-credit"
    outage: timedelta
    since: datetime

    def apply(self, door: Locked) -> int:
        moved = 0
        for seat in door.seats:
            if seat.deadline is None or seat.deadline < self.since:
                continue
            seat.deadline = seat.deadline + self.outage
            seat.remind_at = seat.remind_at and seat.remind_at + self.outage
            seat.version += 1
            seat.save()
            moved += 1
        if moved:
            door.touch()
            door.note(seats=moved)
        return moved


def _number(change: Change) -> int:
    if change.seat is None:
        raise ValueError(f"a {change.kind} change needs its seat")
    return change.seat


def _owes_salt(door: Locked, seat: int) -> bool:
    """Whether the seat's move is its salt for a committed deal (the first deal waits for it:
    docs, players, "Fair play")."""
    if not isinstance(door.rules, CommitsDeals):
        return False
    salts = door.rules.deal_salts(door.state)
    return seat < len(salts) and salts[seat] is None


def _clear_stray_times(seat: Seat) -> None:
    """A seat of an ended match keeps no deadline (it would be found due at every sweep)."""
    if seat.deadline is not None or seat.remind_at is not None:
        seat.deadline = seat.remind_at = None
        seat.version += 1
        seat.save()


def open_entry(door: Locked, seat: int, cause: str) -> None:
    entry = Adjudication.create(match=door.match, seat=seat, cause=cause, opened_at=door.now)
    door.pending.rulings = True
    door.note(entry=entry.id)
    door.tell("adjudication-opened", late=seat, cause=cause, state=door.state)


def _open_error_entry(due: _Due, now: datetime) -> None:
    apply_change(due.match_id, SweepFailure(seat=due.number), now)


def _autoplay_streak(match: Match, seat: int, limit: int) -> bool:
    """Has the seat's last `limit` moves all been made for it by the server?"""
    if limit <= 0:
        return True
    last = list(Move.select(Move.note).where(Move.match == match, Move.seat == seat)
                .order_by(Move.ply.desc()).limit(limit))
    return len(last) == limit and all(move.note for move in last)


def _forfeit_reason(door: Locked, seat: int, cause: str, limits: Limits) -> str | None:
    if cause != "autoplay-limit":
        return None
    name = door.rules.seat_label(door.state, seat)
    times = "once" if limits.autoplay_limit == 1 else f"{limits.autoplay_limit} times"
    return f"{name} ran out of time {times} in a row, was moved for, and now forfeits"


# --- outages --------------------------------------------------------------------------------

def _extend_for_outage(now: datetime, grace: timedelta) -> int:
    """If the worker was silent longer than `grace`, no clock ran meanwhile: push back every
    deadline still running by the length of the silence, instead of letting it expire. The
    silence is claimed once (a conditional update of the heartbeat); each match then gets its
    credit through the door, in match order, like any other change."""
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
    matches = [row.match_id for row in Seat.select(Seat.match).distinct()
               .where(Seat.deadline >= last).order_by(Seat.match)]
    return sum(apply_change(match_id, OutageCredit(outage=outage, since=last), now)
               for match_id in matches)


def clock_moved(step: timedelta, move_clock: Callable[[], object]) -> None:
    """The development clock jumps forward by `step` (`pbem dev clock advance`), which
    `move_clock` does. The worker was not silent, so its heartbeat moves with the clock and
    the jump is never taken for an outage (which would push every deadline back by as much,
    and nothing would fall due). Both happen under the heartbeat's lock: a sweep running
    meanwhile finds the heartbeat changed under it and claims no outage."""
    with write_transaction():
        beat = Heartbeat.get_or_none(Heartbeat.name == "worker")
        if beat is not None:
            Heartbeat.update(seen_at=beat.seen_at + step).where(
                Heartbeat.id == beat.id).execute()
        move_clock()
