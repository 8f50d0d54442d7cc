"""The worker's computer moves: claim a queued job, think, move through the door.

The door queues a `computer_job` row in the same transaction as the change that made it a
computer seat's turn (matches/computer_turns.py). Here a worker

1. **claims** one due job with a conditional update (`leased_until` empty or lapsed →
   this worker's token and a lease): of several workers, exactly one gets it, and nobody
   thinks about the same move twice while the lease holds. A worker that dies mid-thought
   leaves the lease to lapse, and another takes the job over;
2. **thinks outside any transaction** (`pbem.bots.choose_move`, seeded from the match id,
   ply and seat, so the same position gives the same move): no lock is held while the search
   runs, so a person's resignation never waits for the computer;
3. **moves through the door** (`ComputerMove`): under the match's lock it checks the
   position is the one thought about and the job is still this worker's, and deletes the job
   with the move. A resignation or an abort that came first wins: the move is refused and
   the job, now moot, is dropped without an error.

Jobs are read from the table, so a worker that was stopped catches up on start, and any
number of workers can share the queue.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbem.core.db.connection import UNAVAILABLE
from pbem.core.matches.changes import SERVER, Channel, apply_change
from pbem.core.matches.computer_turns import move_seed
from pbem.core.matches.creation import rules_for
from pbem.core.matches.models import ComputerJob, Match, Seat
from pbem.core.matches.play import ComputerMove
from pbem.core.matches.sweep import SweepFailure
from pbem.errors import PbemError

log = logging.getLogger(__name__)

# A job whose thinking failed (a bug, a damaged position) is tried again after this, times
# the attempts so far, and given up after MAX_ATTEMPTS: the match goes to the admin's queue.
RETRY_AFTER = timedelta(minutes=1)
MAX_ATTEMPTS = 5
PARKED = timedelta(days=36500)  # a job given up waits for an admin's ruling, not a worker

Think = Callable[..., Any]  # choose_move(rules, state, seat, level, seed, clock=...) -> Move


@dataclass(frozen=True)
class ComputerReport:
    moved: int = 0
    dropped: int = 0  # moot: the match ended or moved on before the computer's move
    failed: int = 0


def run_due(now: Callable[[], datetime], think: Think, clock: Callable[[], float],
            lease: timedelta, limit: int = 50,
            stopping: Callable[[], bool] = lambda: False) -> ComputerReport:
    """Make the computer's due moves, one claimed job at a time, at most `limit`.

    `now` and `clock` are the worker's: `now()` is read afresh for each claim and move (a
    long thought must not make a move in the past), `clock` caps each thought at its level's
    time budget. When `stopping()` turns true (the worker is asked to stop), no new job is
    claimed: the ones left wait in the table for the next worker."""
    moved = dropped = failed = 0
    for _ in range(limit):
        if stopping():
            break
        job = claim_next(now(), lease)
        if job is None:
            break
        result = run_claimed(job, now, think, clock)
        moved += result == "moved"
        dropped += result == "dropped"
        failed += result == "failed"
    return ComputerReport(moved, dropped, failed)


def claim_next(now: datetime, lease: timedelta) -> ComputerJob | None:
    """Claim the oldest due job no one holds: a conditional update that only one worker can
    win (a job taken from under us is skipped, and the next one tried)."""
    free = ComputerJob.leased_until.is_null() | (ComputerJob.leased_until < now)
    candidates = [row.id for row in ComputerJob.select(ComputerJob.id)
                  .where(ComputerJob.due_at <= now, free)
                  .order_by(ComputerJob.due_at, ComputerJob.id).limit(10)]
    for job_id in candidates:
        token = secrets.token_hex(16)
        claimed = (ComputerJob.update(leased_until=now + lease, lease_token=token,
                                      attempts=ComputerJob.attempts + 1)
                   .where(ComputerJob.id == job_id, ComputerJob.due_at <= now, free)
                   .execute())
        if claimed == 1:
            job: ComputerJob | None = ComputerJob.get_or_none(ComputerJob.id == job_id,
                                                              ComputerJob.lease_token == token)
            if job is not None:
                return job
    return None


def run_claimed(job: ComputerJob, now: Callable[[], datetime], think: Think,
                clock: Callable[[], float]) -> str:
    """Think about a claimed job's move and make it; "moved", "dropped" (moot), "released"
    (refused but still owed: free for another try) or "failed"."""
    try:
        match = Match.get_or_none(Match.id == job.match_id)
        seat = Seat.get_or_none(Seat.match == job.match_id, Seat.seat == job.seat)
        if match is None or seat is None or not _still_owed(job, match, seat):
            _drop(job)
            return "dropped"
        rules = rules_for(match)
        state = rules.load(match.state)
        level = seat.computer_level or job.level
        chosen = think(rules, state, job.seat, level, move_seed(match.id, match.ply, job.seat),
                       clock=clock)
        text = rules.format_move(state, chosen)
        change = ComputerMove(seat=job.seat, by=SERVER, via=Channel.WORKER, text=text,
                              expected_ply=match.ply, level=level, job_id=job.id,
                              lease_token=job.lease_token)
        apply_change(match.id, change, now())
        return "moved"
    except PbemError as refused:
        # The match moved on while the computer thought (a resignation, an abort, a lost
        # lease): the door refused cleanly. Drop the job if it is moot; else free it at once.
        log.info("computer move in match %s refused: %s", job.match_id, refused)
        return _after_refusal(job)
    except UNAVAILABLE:
        raise  # the database is down: the worker says so and tries again next tick
    except Exception:
        log.exception("the computer could not move for seat %s of match %s (attempt %s)",
                      job.seat, job.match_id, job.attempts)
        _retry_later(job, now())
        return "failed"


def _still_owed(job: ComputerJob, match: Match, seat: Seat) -> bool:
    return (match.is_live and match.turn == job.turn and job.seat in (match.to_move or [])
            and seat.computer_level is not None)


def _drop(job: ComputerJob) -> None:
    ComputerJob.delete().where(ComputerJob.id == job.id,
                               ComputerJob.lease_token == job.lease_token).execute()


def _after_refusal(job: ComputerJob) -> str:
    match = Match.get_or_none(Match.id == job.match_id)
    seat = Seat.get_or_none(Seat.match == job.match_id, Seat.seat == job.seat)
    if match is None or seat is None or not _still_owed(job, match, seat):
        _drop(job)
        return "dropped"
    # Still owed (only another seat's part of the same decision came in, say): free the job
    # at once, to be thought about again on the position as it is now.
    (ComputerJob.update(leased_until=None, lease_token=None)
     .where(ComputerJob.id == job.id, ComputerJob.lease_token == job.lease_token).execute())
    return "released"


def _retry_later(job: ComputerJob, now: datetime) -> None:
    if job.attempts >= MAX_ATTEMPTS:
        # The computer's seat has no clock, so no timeout would ever bring the match to an
        # admin: put it in the queue (cause "error"), where a ruling settles it.
        log.error("giving up the computer's move in match %s after %s attempts; it is in the "
                  "admin's queue", job.match_id, job.attempts)
        # Parked, not deleted (the door would queue it again): the ruling that settles the
        # match moves it on, and the door then drops the job as moot.
        (ComputerJob.update(leased_until=None, lease_token=None, due_at=now + PARKED)
         .where(ComputerJob.id == job.id, ComputerJob.lease_token == job.lease_token)
         .execute())
        apply_change(job.match_id, SweepFailure(seat=job.seat), now)
        return
    (ComputerJob.update(leased_until=None, lease_token=None,
                        due_at=now + RETRY_AFTER * job.attempts)
     .where(ComputerJob.id == job.id, ComputerJob.lease_token == job.lease_token).execute())
