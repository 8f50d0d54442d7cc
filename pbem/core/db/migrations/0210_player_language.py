"""The language a player chose for pages and mail (`player.language`, a code such as "de";
null: the browser's on pages, English in mail). Adds the column and nothing else."""

from __future__ import annotations

from typing import Any

from peewee import CharField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "language", CharField(max_length=8, null=True))
