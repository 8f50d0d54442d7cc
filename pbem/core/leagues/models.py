"""Leagues' and ladders' tables.

What is stored is what happened: a league's members and when they joined or left, each
season's divisions as they were drawn, each game's match (and whose clock ran out in it); a
ladder's members and its events (joins, leaves, challenge results, timeouts) in order.
Standings and places are derived from those (`plan.py`); `LeagueDivision.standings` and
`LadderMember.place` are only a copy for reading, written from the derivation every time a
result arrives and again by `pbem leagues rebuild`.
"""

from __future__ import annotations

from enum import StrEnum

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel, JSONField
from pbem.core.matches.models import Match


class LeagueStatus(StrEnum):
    OPEN = "open"          # taking members; the first season not started yet
    RUNNING = "running"    # a season is being played
    BREAK = "break"        # between seasons: the next starts at `next_season_at`


class League(BaseModel):
    name = peewee.CharField(max_length=80)
    organiser = peewee.ForeignKeyField(Player, backref="leagues_organised", on_delete="CASCADE")
    organiser_id: int
    game = peewee.CharField(max_length=40)
    options = JSONField(default=dict)
    time_control = peewee.CharField(max_length=40)
    on_timeout = peewee.CharField(max_length=16)
    rated = peewee.BooleanField(default=False)
    division_size = peewee.IntegerField()  # players per division (tables: table size times tables)
    table_size = peewee.IntegerField(null=True)  # games for three or four: seats per table
    promote = peewee.IntegerField(default=2)
    relegate = peewee.IntegerField(default=2)
    season_days = peewee.IntegerField(default=60)
    break_days = peewee.IntegerField(default=7)
    status = peewee.CharField(max_length=16, default=LeagueStatus.OPEN)
    season = peewee.IntegerField(default=0)  # the current (or last) season's number
    next_season_at = peewee.DateTimeField(null=True, index=True)
    version = peewee.IntegerField(default=0)
    created_at = peewee.DateTimeField()


class LeagueMember(BaseModel):
    league = peewee.ForeignKeyField(League, backref="members", on_delete="CASCADE", index=False)
    league_id: int
    player = peewee.ForeignKeyField(Player, backref="league_memberships", on_delete="CASCADE")
    player_id: int
    joined_at = peewee.DateTimeField()
    left_at = peewee.DateTimeField(null=True)  # leaves at the end of the season in play

    class Meta:
        indexes = ((("league", "player"), True),)


class LeagueSeason(BaseModel):
    league = peewee.ForeignKeyField(League, backref="seasons", on_delete="CASCADE", index=False)
    league_id: int
    number = peewee.IntegerField()
    started_at = peewee.DateTimeField()
    ends_at = peewee.DateTimeField()
    finished_at = peewee.DateTimeField(null=True)
    # Set once `ends_at` has brought every live game's late seats due (`SeasonDeadline`).
    deadline_applied = peewee.BooleanField(default=False)
    # Players sitting this season out (timed out of more than half their games last season).
    on_hold = JSONField(default=list)

    class Meta:
        indexes = ((("league", "number"), True),)


class LeagueDivision(BaseModel):
    season = peewee.ForeignKeyField(LeagueSeason, backref="divisions", on_delete="CASCADE",
                                    index=False)
    season_id: int
    number = peewee.IntegerField()  # 1 is the top division
    players = JSONField()  # player ids, in their seeding order
    standings = JSONField(default=list)  # a copy of the derivation, for reading

    class Meta:
        indexes = ((("season", "number"), True),)


class LeagueGame(BaseModel):
    division = peewee.ForeignKeyField(LeagueDivision, backref="games", on_delete="CASCADE")
    division_id: int
    players = JSONField()  # player ids in seat order
    match = peewee.ForeignKeyField(Match, backref="league_game", on_delete="CASCADE",
                                   unique=True)
    match_id: int
    # Seats whose clock ran out (the door's `timed_out`, kept when the match ended).
    timed_out = JSONField(default=list)


class Ladder(BaseModel):
    name = peewee.CharField(max_length=80)
    organiser = peewee.ForeignKeyField(Player, backref="ladders_organised", on_delete="CASCADE")
    organiser_id: int
    game = peewee.CharField(max_length=40)
    options = JSONField(default=dict)
    time_control = peewee.CharField(max_length=40)
    on_timeout = peewee.CharField(max_length=16)
    rated = peewee.BooleanField(default=False)
    challenge_range = peewee.IntegerField(default=5)
    incoming_limit = peewee.IntegerField(default=3)
    accept_days = peewee.IntegerField(default=7)
    version = peewee.IntegerField(default=0)
    created_at = peewee.DateTimeField()


class LadderMember(BaseModel):
    ladder = peewee.ForeignKeyField(Ladder, backref="members", on_delete="CASCADE", index=False)
    ladder_id: int
    player = peewee.ForeignKeyField(Player, backref="ladder_memberships", on_delete="CASCADE")
    player_id: int
    place = peewee.IntegerField(null=True)  # a copy of the derivation; None once left
    on_hold = peewee.BooleanField(default=False)  # a copy too

    class Meta:
        indexes = ((("ladder", "player"), True),)


class ChallengeStatus(StrEnum):
    OPEN = "open"          # waiting for the defender to accept
    PLAYING = "playing"    # accepted: its match is in play
    DONE = "done"          # decided (by the match, or by not being accepted in time)
    WITHDRAWN = "withdrawn"


class LadderChallenge(BaseModel):
    ladder = peewee.ForeignKeyField(Ladder, backref="challenges", on_delete="CASCADE")
    ladder_id: int
    challenger = peewee.ForeignKeyField(Player, backref="+", on_delete="CASCADE")
    challenger_id: int
    defender = peewee.ForeignKeyField(Player, backref="+", on_delete="CASCADE")
    defender_id: int
    status = peewee.CharField(max_length=16, default=ChallengeStatus.OPEN)
    match = peewee.ForeignKeyField(Match, null=True, backref="ladder_challenge",
                                   on_delete="SET NULL", unique=True)
    match_id: int | None
    created_at = peewee.DateTimeField()
    decided_at = peewee.DateTimeField(null=True)


class LadderEvent(BaseModel):
    """One thing that moves places, in the order it happened: `join`, `leave`, `result`
    (winner, loser), `timeout` (player). Places are these replayed (`plan.ladder_places`)."""

    ladder = peewee.ForeignKeyField(Ladder, backref="events", on_delete="CASCADE", index=False)
    ladder_id: int
    kind = peewee.CharField(max_length=16)
    player = peewee.ForeignKeyField(Player, backref="+", on_delete="CASCADE")
    player_id: int
    other = peewee.ForeignKeyField(Player, null=True, backref="+", on_delete="CASCADE")
    other_id: int | None
    challenge = peewee.ForeignKeyField(LadderChallenge, null=True, backref="events",
                                       on_delete="SET NULL")
    challenge_id: int | None
    at = peewee.DateTimeField()

    class Meta:
        indexes = ((("ladder", "id"), False),)
