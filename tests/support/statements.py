"""Counting the SQL a piece of code sends, for tests that hold a hot path to its statements."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pbem.core.db.connection import database


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every SQL statement run on this thread's database while inside (Flask's test client
    runs the app on the caller's thread, so a request's are counted too)."""
    seen: list[str] = []
    db = database.obj
    run = db.execute_sql

    def counted(sql: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        seen.append(sql)
        return run(sql, params, *args, **kwargs)

    db.execute_sql = counted
    try:
        yield seen
    finally:
        del db.execute_sql
