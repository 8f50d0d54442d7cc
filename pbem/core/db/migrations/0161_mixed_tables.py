"""Mixed tables: a challenge or a seek may fill some seats with the computer, one level per
seat (`computers`, a JSON list; null: none)."""

from __future__ import annotations

from typing import Any

from peewee import TextField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "challenge", "computers", TextField(null=True))
    add_column_once(migrator, db, "seek", "computers", TextField(null=True))
