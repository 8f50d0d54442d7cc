"""The records' one table: each player's tally per game, kept as matches start and end, so a
player page reads a few rows however many matches the player has played."""

from __future__ import annotations

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel


class PlayerTally(BaseModel):
    """Per player and game: seats in live, finished and aborted matches, and the finished
    ones' wins, losses and draws (as `standings.settle` writes them on the seats). Written in
    the transaction that starts (`creation`), ends (the door) or imports the match."""

    player = peewee.ForeignKeyField(Player, on_delete="CASCADE", index=False)
    player_id: int
    game = peewee.CharField(max_length=40)
    live = peewee.IntegerField(default=0)
    finished = peewee.IntegerField(default=0)
    aborted = peewee.IntegerField(default=0)
    wins = peewee.IntegerField(default=0)
    losses = peewee.IntegerField(default=0)
    draws = peewee.IntegerField(default=0)

    class Meta:
        table_name = "player_tally"
        indexes = ((("player", "game"), True),)
