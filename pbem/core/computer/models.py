"""The computer's own table: analyses of finished matches, asked for on the match's page or
by `POST /api/matches/<id>/analysis`, computed by the worker (`analysis.py`)."""

from __future__ import annotations

import peewee

from pbem.core.db.base import BaseModel, JSONField
from pbem.core.matches.models import Match


class MatchAnalysis(BaseModel):
    """One analysis a finished match: asked for once (asking again returns it), claimed by one
    worker under a lease, and kept with its plies when done."""

    match = peewee.ForeignKeyField(Match, on_delete="CASCADE", unique=True)
    match_id: int
    status = peewee.CharField(max_length=16, default="queued")  # queued, done, failed
    level = peewee.SmallIntegerField()
    # [{ply, seat, played, best, estimate, played_estimate, mistake}], once done.
    plies = JSONField(null=True)
    requested_at = peewee.DateTimeField()
    finished_at = peewee.DateTimeField(null=True)
    leased_until = peewee.DateTimeField(null=True)
    lease_token = peewee.CharField(max_length=32, null=True)
    attempts = peewee.IntegerField(default=0)

    class Meta:
        table_name = "match_analysis"
