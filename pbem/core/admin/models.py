"""The admin side's tables: the audit log and the worker's job runs (its heartbeat, read here
too, is the deadline sweep's: core/matches).
"""

from __future__ import annotations

import peewee

from pbem.core.db.base import BaseModel, JSONField
from pbem.core.matches.models import Heartbeat, Match

__all__ = ["AuditEntry", "Heartbeat", "JobRun"]  # the heartbeat is the deadline sweep's table


class AuditEntry(BaseModel):
    """Who did what, when and why: every ruling, from the web or the shell."""

    at = peewee.DateTimeField(index=True)
    actor = peewee.CharField(max_length=254)
    action = peewee.CharField(max_length=40)
    match = peewee.ForeignKeyField(Match, null=True, backref="audit", on_delete="CASCADE")
    match_id: int | None
    reason = peewee.TextField()
    detail = JSONField(default=dict)
    # The one-time key of the admin form that asked for this action: a second post of the
    # same form finds it and does nothing (unique, so racing posts cannot both act).
    action_key = peewee.CharField(max_length=64, null=True, unique=True)


class JobRun(BaseModel):
    """The last run of each worker job, for `/healthz` and `/admin/metrics`."""

    name = peewee.CharField(max_length=40, unique=True)
    finished_at = peewee.DateTimeField()
    seconds = peewee.FloatField()
    # A job's own counters (the daily admin digest keeps the day it last mailed).
    detail = JSONField(default=dict)
