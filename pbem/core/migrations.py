"""Numbered schema migrations; `pbem init` applies the missing ones, in order, once.

Run it from one process only (the Procfile's `release:` step): the runner takes no
cross-process lock. Append new migrations; never edit an applied one.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.core.db import database
from pbem.core.models import ALL_MODELS, SchemaVersion


def _create_initial_tables() -> None:
    database.create_tables(ALL_MODELS, safe=True)


MIGRATIONS: tuple[Callable[[], None], ...] = (_create_initial_tables,)
LATEST = len(MIGRATIONS)


def current_version() -> int:
    if not SchemaVersion.table_exists():
        return 0
    row = SchemaVersion.select().order_by(SchemaVersion.version.desc()).first()
    return row.version if row else 0


def migrate() -> tuple[int, int]:
    """Apply every missing migration; return (version before, version after). Idempotent."""
    before = current_version()
    for number in range(before + 1, LATEST + 1):
        with database.atomic():
            MIGRATIONS[number - 1]()
            SchemaVersion.delete().execute()
            SchemaVersion.create(version=number)
    return before, max(before, LATEST)
