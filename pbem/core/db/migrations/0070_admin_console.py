"""The admin console: admin roles, a match's clocks held by an admin, a seat's last visit,
one-time keys on audit entries (a form posted twice acts once), and the worker's job runs."""

from __future__ import annotations

from typing import Any

from peewee import CharField, DateTimeField, FloatField, Model, TextField

from pbem.core.db.migrations.helpers import add_column_once, add_index_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "admin", "role", CharField(max_length=16, default="admin"))
    add_column_once(migrator, db, "match", "paused_at", DateTimeField(null=True))
    add_column_once(migrator, db, "seat", "last_seen_at", DateTimeField(null=True))
    add_column_once(migrator, db, "audit_entry", "action_key",
                    CharField(max_length=64, null=True))
    add_index_once(migrator, db, "audit_entry", ("action_key",), unique=True)

    class Base(Model):
        class Meta:
            database = db
            legacy_table_names = False

    class JobRun(Base):
        name = CharField(max_length=40, unique=True)
        finished_at = DateTimeField()
        seconds = FloatField()
        detail = TextField()

    db.create_tables([JobRun], safe=True)
