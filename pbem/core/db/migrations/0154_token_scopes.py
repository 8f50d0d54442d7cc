"""API tokens get scopes (`read`, `play`, `account`). Tokens made before could do all three, so
they keep all three: a client that worked goes on working; new tokens ask for what they need."""

from __future__ import annotations

from typing import Any

from peewee import CharField

from pbem.core.db.migrations.helpers import add_column_once


def up(migrator: Any, db: Any) -> None:
    add_column_once(migrator, db, "api_token", "scopes",
                    CharField(max_length=40, default="read play account"))
