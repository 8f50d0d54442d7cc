"""The database's generation (`pbem/core/db/generation.py`): a one-row table whose value
`pbem init`, `pbem restore` and `pbem generation bump` make new, so that running processes
never take a restored database's match versions for the ones they remember. Safe to run
again: the table is made only if missing, and its row written only if missing."""

from __future__ import annotations

import secrets
from typing import Any

from peewee import CharField, Model


def up(migrator: Any, db: Any) -> None:
    class DatabaseGeneration(Model):
        value = CharField(max_length=32)

        class Meta:
            database = db
            table_name = "database_generation"

    db.create_tables([DatabaseGeneration], safe=True)
    if not DatabaseGeneration.select().where(DatabaseGeneration.id == 1).exists():
        DatabaseGeneration.insert(id=1, value=secrets.token_hex(16)).execute()
