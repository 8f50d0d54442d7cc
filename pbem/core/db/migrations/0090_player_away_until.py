"""When a player's last vacation ends, on the player row: a clock or page then reads the
vacation table only for players who have one that matters (most never do)."""

from __future__ import annotations

from typing import Any

from peewee import DateTimeField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "player", "away_until", DateTimeField(null=True))
    db.execute_sql("UPDATE player SET away_until = (SELECT MAX(ends_at) FROM vacation "
                   "WHERE vacation.player_id = player.id)")
