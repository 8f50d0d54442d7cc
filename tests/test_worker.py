"""The worker's schedule: every job, each on its own interval, never overlapping itself."""

from __future__ import annotations

from pathlib import Path

from apscheduler.schedulers.background import BackgroundScheduler

from pbem.config import load_settings
from pbem.worker import Worker


def test_every_job_is_scheduled_once_and_imap_only_when_configured(tmp_path: Path) -> None:
    base = {"development": True, "instance_path": str(tmp_path), "outbox_interval_seconds": 7,
            "computer_interval_seconds": 3}
    plain = Worker(load_settings(base, environ={})).schedule(BackgroundScheduler())
    jobs = {job.id: job for job in plain.get_jobs()}
    assert sorted(jobs) == ["accounts", "admin-digest", "analysis", "computer", "deadlines",
                            "digests", "leagues", "outbox", "push", "storage", "tournaments",
                            "waiting-turns"]
    assert jobs["outbox"].trigger.interval.total_seconds() == 7
    assert jobs["waiting-turns"].trigger.interval.total_seconds() == 7
    assert jobs["computer"].trigger.interval.total_seconds() == 3
    assert jobs["analysis"].trigger.interval.total_seconds() == 30
    assert all(job.max_instances == 1 and job.coalesce for job in jobs.values())
    polling = Worker(load_settings({**base, "imap_host": "127.0.0.1"}, environ={}))
    assert "inbox" in {job.id for job in polling.schedule(BackgroundScheduler()).get_jobs()}


def test_a_tick_skipped_while_its_job_still_runs_is_not_logged(tmp_path: Path,
                                                                caplog) -> None:
    """A drain runs for its whole slice under a steady inflow: the ticks that find it still
    running are expected, and were a dozen warnings a busy half-minute."""
    import logging

    Worker(load_settings({"development": True, "instance_path": str(tmp_path)},
                         environ={})).schedule(BackgroundScheduler())
    scheduler_log = logging.getLogger("apscheduler.scheduler")
    with caplog.at_level(logging.WARNING, logger="apscheduler.scheduler"):
        scheduler_log.warning('Execution of job "%s" skipped: maximum number of running '
                              'instances reached (%d)', "outbox", 1)
        scheduler_log.warning("Run time of job %s was missed by %s", "outbox", "0:05:00")
    assert [record.getMessage() for record in caplog.records] == [
        "Run time of job outbox was missed by 0:05:00"]


def test_the_timed_jobs_record_their_runs_and_the_computer_only_what_it_did(worker) -> None:
    """What the console's metrics read: each job's last run, with what it did."""
    from dataclasses import asdict

    from pbem.core.admin.operations import last_run
    from pbem.core.tournaments.running import AdvanceReport

    worker.run_once()
    assert last_run("deadlines").detail == {"settled": 0, "failed": 0}
    assert last_run("outbox").detail == {"sent": 0, "failed": 0}
    assert last_run("tournaments").detail == asdict(AdvanceReport())
    assert last_run("computer") is None  # nothing to move: no row
