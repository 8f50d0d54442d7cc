"""Committed deals: a match with hidden cards keeps its deal seed (64 hexadecimal digits,
revealed only when it ends) and the commitment published when it was created. Both are empty
on older matches, which keep being dealt from `seed` by the scheme they were made with. An
imported match keeps the match id its commitment names (the original's, on another install)."""

from __future__ import annotations

from typing import Any

from peewee import CharField, IntegerField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "match", "deal_seed", CharField(max_length=64, null=True))
    add_column_once(migrator, db, "match", "deal_commitment",
                    CharField(max_length=64, null=True))
    add_column_once(migrator, db, "match", "deal_match", IntegerField(null=True))
