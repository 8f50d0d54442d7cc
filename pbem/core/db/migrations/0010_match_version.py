"""Matches get a `version` that every change bumps: the guard of the one door (changes.py)."""

from __future__ import annotations

from typing import Any

from peewee import IntegerField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "match", "version", IntegerField(default=0))
