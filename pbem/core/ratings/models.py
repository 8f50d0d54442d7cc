"""The ratings' tables: a player's current rating in a game, and one row per rating event.

`RatingEvent` is the history: one row per (rated match, player who counted), written in the
same transaction as the change that ended the match, in finishing order (its id). `pbem
ratings rebuild` replays these rows and must reach the same `Rating` rows.
"""

from __future__ import annotations

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel
from pbem.core.matches.models import Match


class Rating(BaseModel):
    """A player's rating in one game now. Locked (in player-id order) by the change that ends
    a rated match, so two of the player's matches ending at once both apply."""

    player = peewee.ForeignKeyField(Player, backref="ratings", on_delete="CASCADE")
    player_id: int
    game = peewee.CharField(max_length=40)
    mu = peewee.DoubleField()
    sigma = peewee.DoubleField()
    # `display(mu, sigma)`, stored so the leaderboard is an index range, not a sort.
    display = peewee.IntegerField()
    games = peewee.IntegerField(default=0)
    wins = peewee.IntegerField(default=0)
    draws = peewee.IntegerField(default=0)
    losses = peewee.IntegerField(default=0)
    # The last rated result in this game: sigma grows with whole days since (see model.py),
    # and the leaderboard lists only those who played within a year.
    last_played_at = peewee.DateTimeField(null=True)

    class Meta:
        indexes = (
            (("game", "player"), True),
            (("game", "display", "player"), False),
        )


class RatingEvent(BaseModel):
    """One player's rating change from one match: what went in and what came out."""

    match = peewee.ForeignKeyField(Match, backref="rating_events", on_delete="CASCADE", index=False)
    match_id: int
    player = peewee.ForeignKeyField(Player, backref="rating_events", on_delete="CASCADE",
                                    index=False)
    player_id: int
    game = peewee.CharField(max_length=40)
    seat = peewee.IntegerField()
    # The rank openskill was given (1 is first; ties share a rank).
    rank = peewee.IntegerField()
    # "win", "draw" or "loss", as the seat's outcome (for W/D/L counts on rebuild).
    outcome = peewee.CharField(max_length=8)
    mu_before = peewee.DoubleField()
    sigma_before = peewee.DoubleField()  # as stored, before growth with days away
    days_away = peewee.IntegerField(default=0)
    mu_after = peewee.DoubleField()
    sigma_after = peewee.DoubleField()
    display_before = peewee.IntegerField()
    display_after = peewee.IntegerField()
    # The player left this match by running out of time (the vanished-player guard).
    timed_out = peewee.BooleanField(default=False)
    at = peewee.DateTimeField()

    class Meta:
        table_name = "rating_event"
        indexes = (
            (("player", "game", "id"), False),
            (("player", "at"), False),
            (("match", "seat"), True),
        )
