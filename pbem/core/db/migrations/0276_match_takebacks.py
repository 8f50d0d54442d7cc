"""How many moves of a match were taken back (core/takebacks): a play page's form carries it,
so a form loaded before a takeback is refused after the move is made again at the same ply
(its ply alone would still match). Zero on every older match."""

from __future__ import annotations

from typing import Any

from peewee import IntegerField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "match", "takebacks", IntegerField(default=0))
