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
    MySQLDatabase,
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
    if isinstance(db, MySQLDatabase):
        # MariaDB's TEXT holds 64 KiB, and a long Move In Synch match's analysis (one entry a
        # ply) is more; MEDIUMTEXT holds 16 MiB. SQLite and PostgreSQL text has no such cap.
        db.execute_sql("ALTER TABLE match_analysis MODIFY plies MEDIUMTEXT NULL")
