"""Presence's table: when each seat last looked at its match."""

from __future__ import annotations

import peewee

from pbem.core.db.base import BaseModel
from pbem.core.matches.models import Match


class Presence(BaseModel):
    """A seat's latest look at its match: its play page or its live updates (the poll), or
    the API's record of the seat. One row per seat that ever looked, updated in place."""

    # The unique (match, seat) index serves lookups by match alone as well.
    match = peewee.ForeignKeyField(Match, on_delete="CASCADE", index=False)
    match_id: int
    seat = peewee.IntegerField()
    seen_at = peewee.DateTimeField()

    class Meta:
        indexes = ((("match", "seat"), True),)
