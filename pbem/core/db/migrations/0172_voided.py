"""A finished match an admin voids for ratings: when and why (its result stays on record;
it no longer counts, and the ratings are recomputed without it)."""

from __future__ import annotations

from typing import Any

from peewee import DateTimeField, TextField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "match", "voided_at", DateTimeField(null=True))
    add_column_once(migrator, db, "match", "void_reason", TextField(null=True))
