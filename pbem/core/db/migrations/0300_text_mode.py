"""A player may play in text mode: the board replaced by a text view and a command line."""

from __future__ import annotations

from typing import Any

from peewee import BooleanField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "text_mode", BooleanField(default=False))
