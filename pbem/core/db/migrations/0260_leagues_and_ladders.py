"""Leagues and ladders (core/leagues): their tables, and `match.competition`, which marks a
match a league or a ladder plays. JSON columns are plain text, as `JSONField` stores them."""

from __future__ import annotations

from typing import Any

from peewee import (
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "match", "competition", CharField(max_length=16, null=True))

    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class Match(Base):
        pass

    class Common(Base):
        name = CharField(max_length=80)
        organiser = ForeignKeyField(Player, backref="+", on_delete="CASCADE")
        game = CharField(max_length=40)
        options = TextField()
        time_control = CharField(max_length=40)
        on_timeout = CharField(max_length=16)
        rated = BooleanField(default=False)
        version = IntegerField(default=0)
        created_at = DateTimeField()

    class League(Common):
        division_size = IntegerField()
        table_size = IntegerField(null=True)
        promote = IntegerField(default=2)
        relegate = IntegerField(default=2)
        season_days = IntegerField(default=60)
        break_days = IntegerField(default=7)
        status = CharField(max_length=16, default="open")
        season = IntegerField(default=0)
        next_season_at = DateTimeField(null=True, index=True)

    class LeagueMember(Base):
        league = ForeignKeyField(League, backref="+", on_delete="CASCADE", index=False)
        player = ForeignKeyField(Player, backref="+", on_delete="CASCADE")
        joined_at = DateTimeField()
        left_at = DateTimeField(null=True)

        class Meta:
            table_name = "league_member"
            indexes = ((("league", "player"), True),)

    class LeagueSeason(Base):
        league = ForeignKeyField(League, backref="+", on_delete="CASCADE", index=False)
        number = IntegerField()
        started_at = DateTimeField()
        ends_at = DateTimeField()
        finished_at = DateTimeField(null=True)
        deadline_applied = BooleanField(default=False)
        on_hold = TextField()

        class Meta:
            table_name = "league_season"
            indexes = ((("league", "number"), True),)

    class LeagueDivision(Base):
        season = ForeignKeyField(LeagueSeason, backref="+", on_delete="CASCADE", index=False)
        number = IntegerField()
        players = TextField()
        standings = TextField()

        class Meta:
            table_name = "league_division"
            indexes = ((("season", "number"), True),)

    class LeagueGame(Base):
        division = ForeignKeyField(LeagueDivision, backref="+", on_delete="CASCADE")
        players = TextField()
        match = ForeignKeyField(Match, backref="+", on_delete="CASCADE", unique=True)
        timed_out = TextField()

        class Meta:
            table_name = "league_game"

    class Ladder(Common):
        challenge_range = IntegerField(default=5)
        incoming_limit = IntegerField(default=3)
        accept_days = IntegerField(default=7)

    class LadderMember(Base):
        ladder = ForeignKeyField(Ladder, backref="+", on_delete="CASCADE", index=False)
        player = ForeignKeyField(Player, backref="+", on_delete="CASCADE")
        place = IntegerField(null=True)
        on_hold = BooleanField(default=False)

        class Meta:
            table_name = "ladder_member"
            indexes = ((("ladder", "player"), True),)

    class LadderChallenge(Base):
        ladder = ForeignKeyField(Ladder, backref="+", on_delete="CASCADE")
        challenger = ForeignKeyField(Player, backref="+", on_delete="CASCADE")
        defender = ForeignKeyField(Player, backref="+", on_delete="CASCADE")
        status = CharField(max_length=16, default="open")
        match = ForeignKeyField(Match, null=True, backref="+", on_delete="SET NULL", unique=True)
        created_at = DateTimeField()
        decided_at = DateTimeField(null=True)

        class Meta:
            table_name = "ladder_challenge"

    class LadderEvent(Base):
        ladder = ForeignKeyField(Ladder, backref="+", on_delete="CASCADE", index=False)
        kind = CharField(max_length=16)
        player = ForeignKeyField(Player, backref="+", on_delete="CASCADE")
        other = ForeignKeyField(Player, null=True, backref="+", on_delete="CASCADE")
        challenge = ForeignKeyField(LadderChallenge, null=True, backref="+",
                                    on_delete="SET NULL")
        at = DateTimeField()

        class Meta:
            table_name = "ladder_event"
            indexes = ((("ladder", "id"), False),)

    db.create_tables([League, LeagueMember, LeagueSeason, LeagueDivision, LeagueGame, Ladder,
                      LadderMember, LadderChallenge, LadderEvent], safe=True)
