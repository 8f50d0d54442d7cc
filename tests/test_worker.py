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
    assert sorted(jobs) == ["accounts", "admin-digest", "computer", "deadlines", "digests",
                            "outbox", "storage", "tournaments"]
    assert jobs["outbox"].trigger.interval.total_seconds() == 7
    assert jobs["computer"].trigger.interval.total_seconds() == 3
    assert all(job.max_instances == 1 and job.coalesce for job in jobs.values())
    polling = Worker(load_settings({**base, "imap_host": "127.0.0.1"}, environ={}))
    assert "inbox" in {job.id for job in polling.schedule(BackgroundScheduler()).get_jobs()}
