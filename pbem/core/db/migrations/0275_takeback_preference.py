"""Each player's takeback preference: never, casual matches only (the default), always."""

from __future__ import annotations

from typing import Any

from peewee import CharField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "takebacks",
                    CharField(max_length=8, default="casual"))
