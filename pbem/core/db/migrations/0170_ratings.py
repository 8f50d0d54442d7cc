"""Ratings: the `rating` and `rating_event` tables, a `rated` flag on matches, challenges and
seeks, and a seek's optional rating range. Matches made before are unrated (they were never
offered as rated), so the flag defaults to false on matches and to true on new lobby rows."""

from __future__ import annotations

from typing import Any

from peewee import (
    BooleanField,
    CharField,
    DateTimeField,
    DoubleField,
    ForeignKeyField,
    IntegerField,
    Model,
)

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Player(Base):
        pass

    class Match(Base):
        pass

    class Rating(Base):
        player = ForeignKeyField(Player, on_delete="CASCADE")
        game = CharField(max_length=40)
        mu = DoubleField()
        sigma = DoubleField()
        display = IntegerField()
        games = IntegerField(default=0)
        wins = IntegerField(default=0)
        draws = IntegerField(default=0)
        losses = IntegerField(default=0)
        last_played_at = DateTimeField(null=True)

        class Meta:
            indexes = ((("game", "player"), True), (("game", "display", "player"), False))

    class RatingEvent(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE")
        player = ForeignKeyField(Player, on_delete="CASCADE")
        game = CharField(max_length=40)
        seat = IntegerField()
        rank = IntegerField()
        outcome = CharField(max_length=8)
        mu_before = DoubleField()
        sigma_before = DoubleField()
        days_away = IntegerField(default=0)
        mu_after = DoubleField()
        sigma_after = DoubleField()
        display_before = IntegerField()
        display_after = IntegerField()
        timed_out = BooleanField(default=False)
        at = DateTimeField()

        class Meta:
            table_name = "rating_event"
            indexes = ((("player", "game", "id"), False), (("player", "at"), False),
                       (("match", "seat"), True))

    db.create_tables([Rating, RatingEvent], safe=True)
    add_column_once(migrator, db, "match", "rated", BooleanField(default=False))
    add_column_once(migrator, db, "challenge", "rated", BooleanField(default=True))
    add_column_once(migrator, db, "seek", "rated", BooleanField(default=True))
    add_column_once(migrator, db, "seek", "rating_min", IntegerField(null=True))
    add_column_once(migrator, db, "seek", "rating_max", IntegerField(null=True))
