"""Computer opponents: the computer players (a level each), a seat played by the computer
(`seat.computer_level`), matches marked as having had one (`match.has_computer`, unrated), and
the queue of computer moves the worker makes (`computer_job`)."""

from __future__ import annotations

from typing import Any

from peewee import (
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    SmallIntegerField,
)

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "computer_level",
                    SmallIntegerField(null=True, unique=True))
    add_column_once(migrator, db, "seat", "computer_level", SmallIntegerField(null=True))
    add_column_once(migrator, db, "match", "has_computer", BooleanField(default=False))

    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        pass

    class ComputerJob(Base):
        match = ForeignKeyField(Match, backref="computer_jobs", on_delete="CASCADE")
        seat = IntegerField()
        turn = IntegerField()
        level = SmallIntegerField()
        due_at = DateTimeField()
        leased_until = DateTimeField(null=True)
        lease_token = CharField(max_length=32, null=True)
        attempts = IntegerField(default=0)
        created_at = DateTimeField()

        class Meta:
            table_name = "computer_job"
            indexes = ((("match", "seat", "turn"), True), (("due_at",), False))

    db.create_tables([ComputerJob], safe=True)
