"""The one place adapters read the time. Core code takes `now` as a parameter instead."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """Naive UTC, as stored in the database."""
    return datetime.now(UTC).replace(tzinfo=None)


def think_clock() -> float:
    """The clock that caps the computer's thinking: CPU seconds of the thread that thinks.

    Never wall time: on a busy machine (other processes, or other threads of `pbem serve`)
    wall time runs on while the search waits for a core, and a wall-time cap would cut a
    level's iterations short, making it weaker exactly when the server is busy. CPU time
    counts only the search's own work, so the iteration budget decides the move and the cap
    only stops a search that is pathologically slow."""
    return time.thread_time()
