"""An admin may block a player from starting new challenges and seeks (the admin console)."""

from __future__ import annotations

from typing import Any

from peewee import DateTimeField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "challenges_blocked_at", DateTimeField(null=True))
