"""One-time form keys live on the change log: a column `action_key` on `change_log`, unique
per match, so an admin's form posted twice makes its change once. (Audit entries keep their
own key only for what is not a match change: an action on a player, a mail, a chat report.)"""

from __future__ import annotations

from typing import Any

from peewee import CharField

from pbem.core.db.migrations.helpers import add_column_once, add_index_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "change_log", "action_key",
                    CharField(max_length=64, null=True))
    add_index_once(migrator, db, "change_log", ("match_id", "action_key"), unique=True)
