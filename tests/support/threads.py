"""Run calls at the same moment in real threads, each with its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pbem.core.db.connection import database


def race(*calls: Callable[[], Any]) -> list[Any]:
    """Start every call together; return each one's result or the exception it raised."""
    results: list[Any] = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(index: int, call: Callable[[], Any]) -> None:
        database.connect(reuse_if_open=True)
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # the outcome under test
            results[index] = error
        finally:
            database.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
