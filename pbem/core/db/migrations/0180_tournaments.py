"""Tournaments: the tournament, its entries, its rounds and each round's pairings (new tables
only; nothing existing changes)."""

from __future__ import annotations

from typing import Any

from peewee import (
    BooleanField,
    CharField,
    DateTimeField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class Match(Base):
        pass

    class Tournament(Base):
        name = CharField(max_length=80)
        organiser = ForeignKeyField(Player, backref="tournaments_organised",
                                    on_delete="CASCADE")
        game = CharField(max_length=40)
        options = TextField()
        time_control = CharField(max_length=40)
        on_timeout = CharField(max_length=16)
        format = CharField(max_length=24)
        rounds = IntegerField(null=True)
        min_players = IntegerField()
        max_players = IntegerField()
        rated = BooleanField(default=False)
        invitation_only = BooleanField(default=False)
        invited = TextField()
        starts_at = DateTimeField(null=True)
        round_days = IntegerField(default=14)
        max_replays = IntegerField(default=2)
        status = CharField(max_length=16, default="open", index=True)
        current_round = IntegerField(default=0)
        version = IntegerField(default=0)
        created_at = DateTimeField()
        started_at = DateTimeField(null=True)
        finished_at = DateTimeField(null=True)

    class TournamentEntry(Base):
        tournament = ForeignKeyField(Tournament, backref="entries", on_delete="CASCADE")
        player = ForeignKeyField(Player, backref="tournament_entries", on_delete="CASCADE")
        joined_at = DateTimeField()
        seed = IntegerField(null=True)
        rating = FloatField(null=True)
        status = CharField(max_length=16, default="active")
        left_at = DateTimeField(null=True)

        class Meta:
            indexes = ((("tournament", "player"), True),)

    class TournamentRound(Base):
        tournament = ForeignKeyField(Tournament, backref="round_rows", on_delete="CASCADE")
        number = IntegerField()
        status = CharField(max_length=16, default="running")
        started_at = DateTimeField()
        deadline = DateTimeField(null=True)
        deadline_applied = BooleanField(default=False)
        finished_at = DateTimeField(null=True)

        class Meta:
            indexes = ((("tournament", "number"), True),)

    class Pairing(Base):
        tournament = ForeignKeyField(Tournament, backref="pairings", on_delete="CASCADE")
        round = ForeignKeyField(TournamentRound, backref="pairings", on_delete="CASCADE")
        board = IntegerField()
        game = IntegerField(default=1)
        players = TextField()
        match = ForeignKeyField(Match, null=True, backref="tournament_pairing",
                                on_delete="SET NULL", index=True)
        points = TextField(null=True)
        winner = IntegerField(null=True)
        played = BooleanField(default=True)
        finished = BooleanField(default=False)

        class Meta:
            indexes = ((("tournament", "round", "board", "game"), True),)

    db.create_tables([Tournament, TournamentEntry, TournamentRound, Pairing], safe=True)
