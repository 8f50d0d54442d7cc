"""Feeds' table: each player's feed generation (a revoked link is a bumped generation)."""

from __future__ import annotations

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel


class FeedLink(BaseModel):
    """A player's feed generation: their secret feed links are derived from it, and replacing
    them bumps it. No row: generation 0, never revoked."""

    player = peewee.ForeignKeyField(Player, on_delete="CASCADE", unique=True)
    player_id: int
    generation = peewee.IntegerField(default=0)
