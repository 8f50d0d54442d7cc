"""Steps that migrations share. Each is safe to run again after a half-finished attempt:
MariaDB commits DDL as it goes, so a failed migration is recovered by fixing the cause and
running `pbem init` again (see README.md in this folder)."""

from __future__ import annotations

from typing import Any

import peewee


def has_column(db: peewee.Database, table: str, column: str) -> bool:
    return any(existing.name == column for existing in db.get_columns(table))


def has_index(db: peewee.Database, table: str, name: str) -> bool:
    return any(index.name == name for index in db.get_indexes(table))


def add_column_once(migrator: Any, db: peewee.Database, table: str, column: str,
                    field: peewee.Field) -> None:
    """Add a column (and the index a `unique`/`index` field implies) unless it is there."""
    if not has_column(db, table, column):
        migrator.migrate(migrator.add_column(table, column, field))


def add_index_once(migrator: Any, db: peewee.Database, table: str, columns: tuple[str, ...],
                   unique: bool = False) -> None:
    from playhouse.migrate import make_index_name

    if not has_index(db, table, make_index_name(table, list(columns))):
        migrator.migrate(migrator.add_index(table, columns, unique))
