"""Tournaments' tables: the tournament, its entries, its rounds and each round's pairings.

A pairing is one game of a round: its players (entry ids, in seat order) and, once it is over,
the tournament points each won. A bye is a pairing of one player and no match. A knockout tie
replayed after a draw is several pairings with the same `board`, numbered by `game`.
"""

from __future__ import annotations

from enum import StrEnum

import peewee

from pbem.core.accounts.models import Player
from pbem.core.db.base import BaseModel, JSONField
from pbem.core.matches.models import Match


class TournamentStatus(StrEnum):
    OPEN = "open"          # taking entries
    RUNNING = "running"
    PAUSED = "paused"      # running, but no new round is paired and the clocks are held
    FINISHED = "finished"
    CANCELLED = "cancelled"  # the start came with too few players


class Tournament(BaseModel):
    name = peewee.CharField(max_length=80)
    organiser = peewee.ForeignKeyField(Player, backref="tournaments_organised",
                                       on_delete="CASCADE")
    organiser_id: int
    game = peewee.CharField(max_length=40)
    options = JSONField(default=dict)
    time_control = peewee.CharField(max_length=40)
    on_timeout = peewee.CharField(max_length=16)
    format = peewee.CharField(max_length=24)
    # Swiss and tables: the number of rounds asked for; round robins and knockouts: set at the
    # start from the number of players.
    rounds = peewee.IntegerField(null=True)
    min_players = peewee.IntegerField()
    max_players = peewee.IntegerField()
    rated = peewee.BooleanField(default=False)
    # Invitation-only: the addresses invited (lower case); an open tournament has none.
    invitation_only = peewee.BooleanField(default=False)
    invited = JSONField(default=list)
    # None: starts when full (the worker starts it); else at that time with enough players.
    starts_at = peewee.DateTimeField(null=True)
    round_days = peewee.IntegerField(default=14)  # each round's deadline, from its start
    max_replays = peewee.IntegerField(default=2)  # knockout: drawn games replayed
    status = peewee.CharField(max_length=16, default=TournamentStatus.OPEN, index=True)
    current_round = peewee.IntegerField(default=0)
    # Bumped by every change to the tournament (join, leave, start, a new round, the end).
    version = peewee.IntegerField(default=0)
    created_at = peewee.DateTimeField()
    started_at = peewee.DateTimeField(null=True)
    finished_at = peewee.DateTimeField(null=True)


class EntryStatus(StrEnum):
    ACTIVE = "active"
    WITHDRAWN = "withdrawn"
    REMOVED = "removed"


class TournamentEntry(BaseModel):
    tournament = peewee.ForeignKeyField(Tournament, backref="entries", on_delete="CASCADE",
                                        index=False)
    tournament_id: int
    player = peewee.ForeignKeyField(Player, backref="tournament_entries", on_delete="CASCADE")
    player_id: int
    joined_at = peewee.DateTimeField()
    # The seed number (1 = best) given at the start: by rating where there is one, else by
    # order of joining.
    seed = peewee.IntegerField(null=True)
    rating = peewee.FloatField(null=True)
    status = peewee.CharField(max_length=16, default=EntryStatus.ACTIVE)
    left_at = peewee.DateTimeField(null=True)

    class Meta:
        indexes = ((("tournament", "player"), True),)


class RoundStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"


class TournamentRound(BaseModel):
    tournament = peewee.ForeignKeyField(Tournament, backref="round_rows", on_delete="CASCADE",
                                        index=False)
    tournament_id: int
    number = peewee.IntegerField()
    status = peewee.CharField(max_length=16, default=RoundStatus.RUNNING)
    started_at = peewee.DateTimeField()
    deadline = peewee.DateTimeField(null=True)
    # Set when the deadline has brought the running matches' deadlines forward (once).
    deadline_applied = peewee.BooleanField(default=False)
    finished_at = peewee.DateTimeField(null=True)

    class Meta:
        # One row per round number: a second worker pairing the same round fails here too.
        indexes = ((("tournament", "number"), True),)


class Pairing(BaseModel):
    tournament = peewee.ForeignKeyField(Tournament, backref="pairings", on_delete="CASCADE",
                                        index=False)
    tournament_id: int
    round = peewee.ForeignKeyField(TournamentRound, backref="pairings", on_delete="CASCADE")
    round_id: int
    board = peewee.IntegerField()
    game = peewee.IntegerField(default=1)
    players = JSONField()  # entry ids in seat order
    match = peewee.ForeignKeyField(Match, null=True, backref="tournament_pairing",
                                   on_delete="SET NULL", index=True)
    match_id: int | None
    points = JSONField(null=True)  # tournament points per player, once over
    winner = peewee.IntegerField(null=True)  # knockout: the entry that won this game
    played = peewee.BooleanField(default=True)  # false for a bye or a forfeit
    finished = peewee.BooleanField(default=False)

    class Meta:
        indexes = ((("tournament", "round", "board", "game"), True),)
