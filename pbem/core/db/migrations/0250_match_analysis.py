"""Analyses of finished matches (`core/computer`'s `match_analysis`): asked for on the match's
page, computed by the worker."""

from __future__ import annotations

from typing import Any

from peewee import (
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    SmallIntegerField,
    TextField,
)


def up(migrator: Any, db: Any) -> None:
    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Match(Base):
        class Meta:
            table_name = "match"

    class MatchAnalysis(Base):
        match = ForeignKeyField(Match, on_delete="CASCADE", unique=True)
        status = CharField(max_length=16, default="queued")
        level = SmallIntegerField()
        plies = TextField(null=True)
        requested_at = DateTimeField()
        finished_at = DateTimeField(null=True)
        leased_until = DateTimeField(null=True)
        lease_token = CharField(max_length=32, null=True)
        attempts = IntegerField(default=0)

        class Meta:
            table_name = "match_analysis"

    db.create_tables([MatchAnalysis], safe=True)
