"""The worker: the process that runs APScheduler (as many as you like on PostgreSQL).

Jobs read due work from the database on every tick instead of scheduling one job per item, so
nothing is lost when the worker restarts and a restart needs no job store. Web processes never
start a scheduler; `pbem serve` runs the web app and this worker in one process for small
installs and development. Several workers share the due work without doing it twice: each
item is claimed by a row lock or a conditional update (see the sweep, the outbox, the inbox).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import peewee
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from pbem.bots import choose_move
from pbem.clock import clock_for, think_clock
from pbem.config import Settings
from pbem.core import settlers
from pbem.core.accounts.sessions import SessionPolicy
from pbem.core.admin.digest import DigestReport, send_if_due
from pbem.core.admin.operations import record_run
from pbem.core.computer.analysis import ANALYSIS_INTERVAL_SECONDS, ANALYSIS_LEASE, run_due_analyses
from pbem.core.computer.jobs import ComputerReport, run_due
from pbem.core.db import generation
from pbem.core.db.connection import (
    database,
    discard_connection,
    is_read_only,
    is_unavailable,
    reclaim_space,
    unavailable_reason,
)
from pbem.core.leagues import ladders as league_ladders
from pbem.core.leagues import seasons as league_seasons
from pbem.core.lobby import expiry
from pbem.core.lobby.expiry import HousekeepingReport
from pbem.core.mailout.digest import queue_due_digests
from pbem.core.mailout.waiting import release_due
from pbem.core.matches.computer_turns import StandIn
from pbem.core.matches.sweep import Limits, SweepReport, sweep
from pbem.core.tournaments.running import AdvanceReport, advance
from pbem.mail.compose import Composer
from pbem.mail.inbound.imap import PollReport, poll
from pbem.mail.outbox import DrainReport, deliver_due, prune_sent
from pbem.mail.senders import Sender, sender_for
from pbem.push.sender import PushReport
from pbem.push.sender import deliver_due as deliver_push

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StorageReport:
    freed_pages: int = 0  # SQLite pages given back to the file system


@dataclass(frozen=True)
class TurnMailReport:
    told: int = 0  # waiting turn mails sent (or pushed) now that their players are away


@dataclass(frozen=True)
class MailReport:
    digests: int = 0
    pruned: int = 0  # sent mails whose params were dropped after the retention period


class Worker:
    """The jobs, each a plain method that can also run once (`pbem worker --once`, tests)."""

    def __init__(self, settings: Settings, sender: Sender | None = None,
                 clock: Callable[[], datetime] | None = None,
                 extra_template_dirs: tuple[str, ...] = ()) -> None:
        # What every change to a match sets going (core/settlers.py).
        settlers.install(settings.notify_away_seconds)
        self.settings = settings
        self.sender = sender or sender_for(settings)
        self.composer = Composer(settings, extra_template_dirs)
        self.clock = clock or clock_for(settings)
        # Set on SIGTERM or SIGINT: the outbox stops after the mail in flight.
        self.stopping = threading.Event()
        self.running = _JobsRunning()

    def send_outbox(self) -> DrainReport:
        """Send batches until the outbox has nothing due, the time slice is used up, or the
        worker is stopping. One batch a tick capped a server at batch ÷ interval mails a
        second (5/s at the old defaults) however fast a batch went; draining keeps up with
        whatever comes in, and several workers share the load (each claims its own batch)."""
        def work() -> DrainReport:
            slice_ends = time.monotonic() + self.settings.outbox_slice_seconds
            report = DrainReport()
            while not self.stopping.is_set():
                batch = deliver_due(self.settings, self.sender, self.composer, self.clock(),
                                    stopping=self.stopping.is_set)
                report = report + batch
                # Until a claim finds nothing due: stopping at the first batch short of full
                # left the mails that came in meanwhile to the next tick, and under a steady
                # inflow the worker then sat out a whole interval each time it caught up
                # (idle a tenth of the time at 300 mails/s on PostgreSQL, and fell behind).
                if (not batch.claimed or self.stopping.is_set()
                        or time.monotonic() >= slice_ends):
                    break
            return report
        report = self._timed("outbox", DrainReport(), work,
                             lambda done: {"sent": done.sent, "failed": done.failed})
        if report.sent or report.retrying or report.failed:
            log.info("outbox: %s sent, %s to retry, %s failed",
                     report.sent, report.retrying, report.failed)
        return report

    def release_turn_mails(self) -> TurnMailReport:
        """Turn mails that waited while their players looked at the match (or for a push to
        be opened), now due: `notify_away_seconds` passed (core/mailout/waiting.py)."""
        report = _guarded("waiting turns", TurnMailReport(),
                          lambda: TurnMailReport(release_due(self.clock())))
        if report.told:
            log.info("turn mails: %s told after their players left", report.told)
        return report

    def send_pushes(self) -> PushReport:
        """Web push notifications that are due (pbem/push/sender.py)."""
        report = _guarded("push", PushReport(),
                          lambda: deliver_push(self.settings, self.clock()))
        if report.sent or report.retrying or report.failed or report.gone:
            log.info("push: %s sent, %s to retry, %s failed, %s subscriptions gone",
                     report.sent, report.retrying, report.failed, report.gone)
        return report

    def sweep_deadlines(self) -> SweepReport:
        grace = timedelta(seconds=self.settings.outage_grace_seconds)
        limits = Limits(self.settings.autoplay_limit, self.settings.after_autoplay_limit,
                        StandIn(self.settings.autoplay_level, think_clock))
        report = self._timed("deadlines", SweepReport(),
                             lambda: sweep(self.clock(), grace, limits=limits),
                             lambda done: {"settled": done.settled, "failed": done.failed})
        if any(vars(report).values()):
            log.info("deadlines: %s", vars(report))
        return report

    def run_tournaments(self) -> AdvanceReport:
        """Start tournaments that are due or full, pair each round whose last is over, bring
        round deadlines down on late matches, and end finished tournaments."""
        report = self._timed("tournaments", AdvanceReport(),
                             lambda: advance(self.settings.secret_key, self.clock()), vars)
        if any(vars(report).values()):
            log.info("tournaments: %s", vars(report))
        return report

    def run_leagues(self) -> league_seasons.SeasonReport:
        """Close each league season whose games are over, start each that is due (a break
        after the last), and decide ladder challenges not accepted in time."""
        def work() -> league_seasons.SeasonReport:
            report = league_seasons.advance(self.settings.secret_key, self.clock())
            report.expired = league_ladders.expire(self.clock())
            return report

        report = self._timed("leagues", league_seasons.SeasonReport(), work, vars)
        if any(vars(report).values()):
            log.info("leagues: %s", vars(report))
        return report

    def computer_moves(self) -> ComputerReport:
        """The computer's due moves: each job claimed by one worker, thought about outside
        any transaction (within its level's time budget), moved through the door."""
        lease = timedelta(seconds=self.settings.computer_lease_seconds)
        report = self._timed(
            "computer", ComputerReport(),
            lambda: run_due(self.clock, choose_move, think_clock, lease,
                            stopping=self.stopping.is_set),
            # A run is recorded only when it did something.
            lambda done: ({"moved": done.moved, "failed": done.failed}
                          if done.moved or done.dropped or done.failed else None))
        if report.moved or report.dropped or report.failed:
            log.info("computer: %s moved, %s moot, %s failed",
                     report.moved, report.dropped, report.failed)
        return report

    def _timed(self, name: str, empty: Report, work: Callable[[], Report],
               recorded: Callable[[Report], dict[str, Any] | None]) -> Report:
        """A job's work, guarded (`_guarded`), and its run recorded for the console: how long
        it took and what `recorded` says it did (None: nothing worth a record)."""
        def timed() -> Report:
            started = time.monotonic()
            report = work()
            facts = recorded(report)
            if facts is not None:
                record_run(name, time.monotonic() - started, self.clock(), facts)
            return report
        return _guarded(name, empty, timed)

    def mail_admins(self) -> DigestReport:
        """The daily mail to admins about queue entries waiting over a day."""
        report = _guarded("admin digest", DigestReport(), lambda: send_if_due(
            self.clock(), self.settings.queue_digest_hour))
        if report.admins:
            log.info("admin digest: mailed %s admins about old queue entries", report.admins)
        return report

    def housekeeping(self) -> HousekeepingReport:
        policy = SessionPolicy.from_days(self.settings.session_idle_days,
                                         self.settings.session_max_days)
        report = _guarded("accounts", HousekeepingReport(),
                          lambda: expiry.run(self.clock(), policy))
        if report.expired_challenges:
            log.info("challenges: %s expired", report.expired_challenges)
        return report

    def read_inbox(self) -> PollReport:
        """Reply by email over IMAP (only when `imap_host` is set). With the database down,
        the messages stay unseen for a later poll."""
        report = _guarded("inbox", PollReport(), lambda: poll(self.settings, self.clock))
        if report.handled or report.left:
            log.info("inbox: %s handled, %s left for later", report.handled, report.left)
        return report

    def queue_digests(self) -> MailReport:
        """Daily digests that are due, and the retention of sent mail."""
        now = self.clock()
        retention = timedelta(days=self.settings.mail_retention_days)
        report = _guarded("digests", MailReport(), lambda: MailReport(
            queue_due_digests(now), prune_sent(now, retention)))
        if report.digests or report.pruned:
            log.info("mail: %s digests queued, %s sent mails past retention",
                     report.digests, report.pruned)
        return report

    def analyse_matches(self) -> int:
        """Analyse one finished match someone asked about (`core/computer/analysis.py`)."""
        done = self._timed("analysis", 0,
                           lambda: run_due_analyses(self.clock, ANALYSIS_LEASE),
                           lambda count: {"analysed": count} if count else None)
        if done:
            log.info("analysis: %s match(es) analysed", done)
        return done

    def compact_storage(self) -> StorageReport:
        """Give the database's free pages back (SQLite), so the file does not keep what
        finished matches, pruned sessions and old mail no longer use."""
        return _guarded("storage", StorageReport(), lambda: StorageReport(reclaim_space()))

    def run_once(self) -> dict[str, object]:
        inbox = {"inbox": self.read_inbox()} if self.settings.imap_host else {}
        return {"deadlines": self.sweep_deadlines(), "computer": self.computer_moves(),
                "tournaments": self.run_tournaments(), "leagues": self.run_leagues(),
                "accounts": self.housekeeping(), **inbox,
                "digests": self.queue_digests(),
                "admin_digest": self.mail_admins(),
                "waiting_turns": self.release_turn_mails(),
                "push": self.send_pushes(),
                "outbox": self.send_outbox(), "storage": self.compact_storage()}

    def schedule(self, scheduler: BaseScheduler) -> BaseScheduler:
        every = self.settings.deadline_interval_seconds
        jobs: list[tuple[Callable[[], object], str, int, int]] = [
            (self.send_outbox, "outbox", self.settings.outbox_interval_seconds, 300),
            (self.release_turn_mails, "waiting-turns", self.settings.outbox_interval_seconds,
             300),
            (self.send_pushes, "push", self.settings.outbox_interval_seconds, 300),
            (self.sweep_deadlines, "deadlines", every, 300),
            (self.run_tournaments, "tournaments", every, 300),
            (self.run_leagues, "leagues", every, 300),
            (self.computer_moves, "computer", self.settings.computer_interval_seconds, 300),
            (self.mail_admins, "admin-digest", 600, 3600),
            (self.housekeeping, "accounts", every, 300),
            (self.queue_digests, "digests", every, 300),
            (self.compact_storage, "storage", 3600, 3600),
            (self.analyse_matches, "analysis", ANALYSIS_INTERVAL_SECONDS, 300),
        ]
        if self.settings.imap_host:
            jobs.append((self.read_inbox, "inbox", self.settings.imap_interval_seconds, 300))
        for job, name, seconds, grace in jobs:
            # Due work is read from the database, so a late or skipped tick loses nothing:
            # run late rather than drop, and never overlap.
            scheduler.add_job(self.running.counted(job), "interval", id=name, seconds=seconds,
                              next_run_time=datetime.now(UTC), misfire_grace_time=grace,
                              coalesce=True, max_instances=1)
        logging.getLogger("apscheduler.scheduler").addFilter(_STILL_RUNNING)
        return scheduler


class _StillRunning(logging.Filter):
    """Drops APScheduler's warning that a tick was skipped because its job is still running.
    Each job works until nothing is due (the outbox for up to its slice, 30 s of a steady
    inflow, while ticks come every 2 s), so that is the expected case, and the skipped tick
    loses nothing; logged, it was a dozen warnings a busy half-minute."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "maximum number of running instances reached" not in record.getMessage()


_STILL_RUNNING = _StillRunning()


def run_forever(worker: Worker) -> None:
    scheduler = worker.schedule(BlockingScheduler(timezone=UTC))
    log.info("worker started: outbox every %ss, deadlines every %ss",
             worker.settings.outbox_interval_seconds, worker.settings.deadline_interval_seconds)

    def stop(signum: int, _frame: object) -> None:
        # A routine restart (systemd, a Procfile runner, docker stop): finish the mail in
        # flight, hand the rest of its batch back, start no new job, then exit.
        log.info("worker stopping (signal %s): after the mail in flight", signum)
        worker.stopping.set()
        scheduler.shutdown(wait=False)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    scheduler.start()
    # The scheduler stopped without waiting for its jobs: a job still running (the mail in
    # flight) is waited for here, before the interpreter exits. Exiting shuts every thread
    # pool down, and the mail job, which records each sent mail on a pool thread of its own,
    # then failed to record the mail it had just sent ("cannot schedule new futures after
    # shutdown"): that mail went again after its lease.
    if not worker.running.wait_until_idle(STOP_WAIT_SECONDS):
        log.warning("worker stopped with a job still running after %ss", STOP_WAIT_SECONDS)
    log.info("worker stopped")


# How long a stopping worker waits for its jobs: the mail in flight, a computer move being
# thought about (its level's budget, cut short by the stop). Within systemd's 90 s.
STOP_WAIT_SECONDS = 60


class _JobsRunning:
    """How many of the worker's jobs are running, so a stop can wait for them."""

    def __init__(self) -> None:
        self.count = 0
        self.changed = threading.Condition()

    def counted(self, job: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            with self.changed:
                self.count += 1
            try:
                return job()
            finally:
                with self.changed:
                    self.count -= 1
                    self.changed.notify_all()
        run.__name__ = run.__qualname__ = getattr(job, "__name__", "job")
        return run

    def wait_until_idle(self, seconds: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: self.count == 0, seconds)


def start_in_background(worker: Worker) -> BackgroundScheduler:
    scheduler = worker.schedule(BackgroundScheduler(timezone=UTC))
    scheduler.start()
    log.info("worker started in this process: outbox every %ss, deadlines every %ss",
             worker.settings.outbox_interval_seconds, worker.settings.deadline_interval_seconds)
    return scheduler


def _log_unavailable(job: str, error: BaseException) -> None:
    # One line, not a traceback: nothing is lost, the next tick reads the due work again.
    log.error("%s: the database is unavailable (%s); trying again on the next tick",
              job, unavailable_reason(error))


Report = TypeVar("Report")


def _guarded(name: str, empty: Report, work: Callable[[], Report]) -> Report:
    """Run one job's work on its own connection; while the database is down, log one line
    and answer `empty`: the next tick tries again (due work stays in the database)."""
    try:
        with _connection():
            return work()
    except peewee.DatabaseError as error:
        if not is_unavailable(error):  # down, unreachable or read-only: the next tick retries
            raise
        _log_unavailable(name, error)
        return empty


class _connection:
    """Open the database for one job and close it after, unless it was already open."""

    def __enter__(self) -> None:
        self.opened = database.connect(reuse_if_open=True)
        generation.check()  # before the job's reads: what it keeps is keyed with it

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if isinstance(error, peewee.DatabaseError) and is_read_only(error):
            discard_connection()  # the next tick's connection finds the primary
        if self.opened and not database.is_closed():
            database.close()
