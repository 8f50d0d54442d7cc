"""Rate limits counted in the database, so every web process sees the same numbers.

A request first *reserves* its attempt (one row per key: the account, the client address),
then counts the rows in the window including its own. Racing requests therefore see each
other, and at most `allowed` of them get through however many arrive at once. A reservation
that should not count (a login that succeeded) is released again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.core.accounts.models import Attempt
from pbem.errors import PbemError
from pbem.i18n import _, ngettext


class LimitReachedError(PbemError):
    status = 429

    def __init__(self, message: str, retry_after: timedelta) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Limit:
    kind: str
    allowed: int
    window: timedelta
    what: str  # "attempts", "sign-in emails": for the message (marked with N_ where written)

    def reserve(self, keys: Sequence[str], now: datetime) -> list[int]:
        """Count one attempt against each key; LimitReachedError (and nothing counted) if any
        key is over its allowance."""
        keys = [_clean(key) for key in keys]
        ids = [Attempt.create(kind=self.kind, key=key, at=now).id for key in keys]
        since = now - self.window
        for key in keys:
            times = [row.at for row in Attempt.select(Attempt.at).where(
                Attempt.kind == self.kind, Attempt.key == key, Attempt.at > since)
                .order_by(Attempt.at, Attempt.id)]
            if len(times) > self.allowed:
                release(ids)
                # The earliest moment enough of the counted attempts leave the window.
                free_at = times[len(times) - self.allowed - 1] + self.window
                raise LimitReachedError(self.message(free_at - now), free_at - now)
        return ids

    def message(self, wait: timedelta) -> str:
        minutes = max(1, math.ceil(wait.total_seconds() / 60))
        return ngettext("Too many %(what)s. Try again in %(num)s minute.",
                        "Too many %(what)s. Try again in %(num)s minutes.", minutes,
                        what=_(self.what))


def release(ids: Sequence[int]) -> None:
    if ids:
        Attempt.delete().where(Attempt.id.in_(list(ids))).execute()


def prune(now: datetime, keep: timedelta = timedelta(days=2)) -> int:
    """Forget attempts older than any window (the worker runs this)."""
    return Attempt.delete().where(Attempt.at < now - keep).execute()


def _clean(key: str) -> str:
    # NUL and other control characters cannot be stored by every database (PostgreSQL).
    return "".join(char for char in key if char.isprintable())[:300]
