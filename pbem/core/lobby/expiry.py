"""The worker's account chores: expire unanswered challenges (mailing their challengers) and
forget ended sessions, used sign-in links and old rate-limit counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbem.core.accounts import limits, sessions, signin
from pbem.core.lobby import challenges


@dataclass(frozen=True)
class HousekeepingReport:
    expired_challenges: int = 0
    ended_sessions: int = 0
    forgotten: int = 0


def run(now: datetime, policy: sessions.SessionPolicy) -> HousekeepingReport:
    return HousekeepingReport(
        expired_challenges=challenges.expire_due(now),
        ended_sessions=sessions.prune(now, policy),
        forgotten=limits.prune(now) + signin.prune(now),
    )
