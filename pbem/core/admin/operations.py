"""What an operator watches: the worker's job runs, the health check and the metrics.

`record_run` is called by the worker after each job; `health` and `metric_values` only read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import peewee

from pbem.core.admin.models import Heartbeat, JobRun
from pbem.core.db.connection import UNAVAILABLE, database, unavailable_reason
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import UNSENT, MessageStatus, OutboxMessage
from pbem.core.matches.models import Adjudication, AdjudicationStatus, Match


def record_run(name: str, seconds: float, now: datetime,
               detail: dict[str, Any] | None = None) -> None:
    """Keep the last run of a worker job (one row per job, overwritten)."""
    updated = (JobRun.update(finished_at=now, seconds=seconds, detail=detail or {})
               .where(JobRun.name == name).execute())
    if not updated:
        (JobRun.insert(name=name, finished_at=now, seconds=seconds, detail=detail or {})
         .on_conflict_ignore().execute())


def last_run(name: str) -> JobRun | None:
    return JobRun.get_or_none(JobRun.name == name)


@dataclass
class Health:
    database: bool
    heartbeat_age_seconds: float | None
    max_heartbeat_age_seconds: float
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {"status": "ok" if self.ok else "unhealthy", "database": self.database,
                "worker_heartbeat_age_seconds": self.heartbeat_age_seconds,
                "max_heartbeat_age_seconds": self.max_heartbeat_age_seconds,
                "problems": self.problems}


def health(now: datetime, max_heartbeat_age_seconds: float) -> Health:
    """Is the database reachable, and has the worker ticked recently?"""
    result = Health(False, None, max_heartbeat_age_seconds)
    try:
        with database.connection_context():
            database.execute_sql("SELECT 1")
            result.database = True
            beat = Heartbeat.get_or_none(Heartbeat.name == "worker")
    except (*UNAVAILABLE, peewee.DatabaseError) as error:
        result.problems.append(f"database unreachable: {unavailable_reason(error)}")
        return result
    if beat is None:
        result.problems.append("the worker has never run")
    else:
        result.heartbeat_age_seconds = max(0.0, (now - beat.seen_at).total_seconds())
        if result.heartbeat_age_seconds > max_heartbeat_age_seconds:
            result.problems.append(f"the worker last ticked "
                                   f"{int(result.heartbeat_age_seconds)} s ago")
    return result


@dataclass(frozen=True)
class Sample:
    name: str
    help: str
    value: float
    labels: tuple[tuple[str, str], ...] = ()


def metric_values(now: datetime) -> list[Sample]:
    """Every metric's current value, read from the database (none kept in process memory,
    so every web process answers the same)."""
    samples: list[Sample] = []
    rows: Any = (Match.select(Match.status, peewee.fn.COUNT(Match.id))
                 .group_by(Match.status).tuples())
    counts: dict[str, int] = {status: count for status, count in rows}
    for status in ("active", "finished", "aborted", *sorted(set(counts) - {
            "active", "finished", "aborted"})):
        samples.append(Sample("pbem_matches", "Matches by status", counts.get(status, 0),
                              (("status", status),)))
    open_entries = Adjudication.select().where(Adjudication.status == AdjudicationStatus.OPEN)
    oldest = open_entries.select(peewee.fn.MIN(Adjudication.opened_at)).scalar()
    samples.append(Sample("pbem_queue_entries", "Open entries in the adjudication queue",
                          open_entries.count()))
    samples.append(Sample("pbem_queue_oldest_age_seconds",
                          "Age of the oldest open queue entry (0 when empty)",
                          _age(now, oldest)))
    backlog = OutboxMessage.select().where(UNSENT, OutboxMessage.status.in_(
        [MessageStatus.PENDING, MessageStatus.SENDING]))
    samples.append(Sample("pbem_outbox_backlog", "Emails waiting to be sent", backlog.count()))
    samples.append(Sample("pbem_outbox_retrying", "Emails waiting after a failed attempt",
                          backlog.where(OutboxMessage.attempts > 0).count()))
    samples.append(Sample("pbem_outbox_oldest_age_seconds", "Age of the oldest unsent email",
                          _age(now, backlog.select(peewee.fn.MIN(OutboxMessage.created_at))
                               .scalar())))
    samples.append(Sample("pbem_outbox_failed", "Emails that failed for good",
                          OutboxMessage.select().where(
                              UNSENT, OutboxMessage.status == MessageStatus.FAILED).count()))
    beat = Heartbeat.get_or_none(Heartbeat.name == "worker")
    samples.append(Sample("pbem_worker_heartbeat_age_seconds",
                          "Seconds since the worker's last deadline sweep (-1: never)",
                          _age(now, beat.seen_at) if beat else -1))
    for run in JobRun.select().order_by(JobRun.name):
        samples.append(Sample("pbem_job_duration_seconds", "How long a worker job's last run "
                              "took", run.seconds, (("job", run.name),)))
        samples.append(Sample("pbem_job_last_run_age_seconds", "Seconds since a worker job "
                              "last finished", _age(now, run.finished_at), (("job", run.name),)))
    samples.extend(_inbound(now))
    return samples


def _inbound(now: datetime) -> list[Sample]:
    """Replies by email: how many came in, by what became of them."""
    rows: Any = (InboundMessage.select(InboundMessage.action,
                                       peewee.fn.COUNT(InboundMessage.id))
                 .group_by(InboundMessage.action).tuples())
    counts: list[tuple[str, int]] = sorted(rows)
    return [Sample("pbem_inbound_messages", "Inbound emails processed, by outcome", count,
                   (("action", action),)) for action, count in counts]


def _age(now: datetime, then: datetime | None) -> float:
    return 0.0 if then is None else max(0.0, (now - then).total_seconds())
