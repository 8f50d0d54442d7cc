"""A player may have the board send a move as soon as the clicks spell it (their settings)."""

from __future__ import annotations

from typing import Any

from peewee import BooleanField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "submit_without_confirm",
                    BooleanField(default=False))
