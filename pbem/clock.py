"""The one place adapters read the time. Core code takes `now` as a parameter instead.

In development the clock can be moved forward (`pbem dev clock advance 3d`) to see a deadline
pass, a reminder go out, a round or a season end. The offset is kept in a small file in the
instance folder, which the web app, the worker and every command of one development install
share; each process re-reads it when the file changes, so an advance takes effect at once
everywhere. Outside development the offset is never read: a live server keeps real time.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

Clock = Callable[[], datetime]
OFFSET_FILE = "dev-clock-offset"
_DURATION = re.compile(r"(?:(\d{1,5})d)?(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?")
# A year at most in one step: far enough for a season, short of dates no database stores.
LONGEST_STEP = timedelta(days=366)


class HasInstance(Protocol):
    """What the clock needs of the settings (the settings are frozen)."""

    @property
    def development(self) -> bool: ...

    @property
    def instance_path(self) -> str: ...


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


def clock_for(settings: HasInstance) -> Clock:
    """The clock a process of this install reads: real time, moved by the development offset
    when the install runs in development."""
    if not settings.development:
        return utcnow
    return _ShiftedClock(offset_path(settings))


def offset_path(settings: HasInstance) -> Path:
    return Path(settings.instance_path) / OFFSET_FILE


def read_offset(path: Path) -> timedelta:
    """The development offset stored at `path` (none: zero). A file that does not hold a
    whole number of seconds counts as zero, so a stray edit never stops the server."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return timedelta()
    return timedelta(seconds=int(text)) if text.isdigit() else timedelta()


def advance(path: Path, step: timedelta) -> timedelta:
    """Move the development clock forward by `step`; the offset now."""
    offset = read_offset(path) + step
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(f"{int(offset.total_seconds())}\n", encoding="ascii")
    # Renamed into place, so another process never reads a half-written number.
    os.replace(temporary, path)
    return offset


def reset(path: Path) -> None:
    path.unlink(missing_ok=True)


def parse_step(text: str) -> timedelta:
    """`3d`, `12h`, `90m`, `45s` or a run of them (`1d12h`): a step forward, never back (the
    stored history only goes forward). Raises ValueError with a message for anything else."""
    found = _DURATION.fullmatch(text.strip().lower())
    if not text.strip() or found is None:
        raise ValueError(f"{text!r} is not a duration: write it like 3d, 12h, 90m, 45s or 1d12h")
    days, hours, minutes, seconds = (int(part or 0) for part in found.groups())
    step = timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
    if not step:
        raise ValueError(f"{text!r} moves the clock by nothing: give a positive duration")
    if step > LONGEST_STEP:
        raise ValueError(f"{text!r} is more than {LONGEST_STEP.days} days: advance in steps")
    return step


class _ShiftedClock:
    """Real time plus the offset in the file, re-read only when the file changes (one stat a
    call, so a page that reads the clock often pays nothing more)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: tuple[int, int, int] | None = None
        self.offset = timedelta()

    def __call__(self) -> datetime:
        try:
            stat = self.path.stat()
            version: tuple[int, int, int] | None = (stat.st_mtime_ns, stat.st_size,
                                                    stat.st_ino)
        except OSError:
            version = None
        if version != self.seen:
            self.offset = read_offset(self.path) if version else timedelta()
            self.seen = version
        return utcnow() + self.offset
