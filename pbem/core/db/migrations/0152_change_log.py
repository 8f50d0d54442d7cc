"""The change log: one row per change made to a match through the door (its kind, seat, who,
which channel, what it did and when). Adds the table and nothing else: matches made before it
simply have no rows for what happened earlier."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField, Model, TextField


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        pass

    class ChangeLog(Base):
        match = ForeignKeyField(Match, backref="changes", on_delete="CASCADE")
        version = IntegerField()
        kind = CharField(max_length=32)
        seat = IntegerField(null=True)
        actor = CharField(max_length=254)
        channel = CharField(max_length=8)
        payload = TextField()
        at = DateTimeField()

        class Meta:
            table_name = "change_log"
            indexes = ((("match", "version"), False),)

    db.create_tables([ChangeLog], safe=True)
