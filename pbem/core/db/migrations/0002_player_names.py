"""Players get a display name, shown to others instead of their address."""

from __future__ import annotations

from typing import Any

from peewee import CharField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "name",
                    CharField(max_length=40, null=True, unique=True))
