"""Match lifecycle: draw offers (a table) and the `claim` timeout policy's mark on a seat."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, ForeignKeyField, IntegerField, Model, TextField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        class Meta:
            table_name = "match"

    class DrawOffer(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE")
        seat = IntegerField()
        ply = IntegerField()
        status = CharField(max_length=16, default="open")
        accepted_by = TextField()
        answered_by = IntegerField(null=True)
        how = CharField(max_length=40, null=True)
        offered_at = DateTimeField()
        answered_at = DateTimeField(null=True)

    db.create_tables([DrawOffer], safe=True)
    add_column_once(migrator, db, "seat", "out_of_time_at", DateTimeField(null=True))
