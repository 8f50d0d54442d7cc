"""Players choose which events mail them (and a daily digest hour), get a revocable calendar
feed, and an address the mail server refused for good is marked undeliverable."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, IntegerField, SmallIntegerField

from pbem.core.db.migrations.helpers import add_column_once, add_index_once

TABLE = "player"


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, TABLE, "mail_pref", CharField(max_length=8, default="turns"))
    add_column_once(migrator, db, TABLE, "digest_hour", SmallIntegerField(default=8))
    add_column_once(migrator, db, TABLE, "digest_due_at", DateTimeField(null=True))
    add_index_once(migrator, db, TABLE, ("digest_due_at",))
    add_column_once(migrator, db, TABLE, "last_digest_at", DateTimeField(null=True))
    add_column_once(migrator, db, TABLE, "calendar_generation", IntegerField(default=1))
    add_column_once(migrator, db, TABLE, "undeliverable_at", DateTimeField(null=True))
    add_column_once(migrator, db, TABLE, "undeliverable_reason",
                    CharField(max_length=200, null=True))
