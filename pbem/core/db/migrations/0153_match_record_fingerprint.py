"""An imported match keeps its record's fingerprint (imports.py), so the same record imported
again is refused instead of making a second copy of the match. Null on matches played here."""

from __future__ import annotations

from typing import Any

from peewee import CharField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "match", "record_fingerprint",
                    CharField(max_length=64, null=True, unique=True))
