"""How strong each level measured, per game: the figures `bench/bots.py` printed, kept here so
the rules pages and the README say the same. Re-measure and update them when the search, a
level's budget or a game's hints change."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Score:
    """A level's score in a series of matches (a win 1, a shared win 1/k) and its 95 % Wilson
    interval, in per cent."""

    percent: float
    low: float
    high: float
    games: int

    def text(self) -> str:
        return f"{self.percent:.0f} % ({self.low:.0f} to {self.high:.0f} %, {self.games} games)"


@dataclass(frozen=True)
class Measured:
    level: int
    vs_random: Score
    vs_below: Score | None  # level 1 plays random only
    think_p95: float  # seconds


# How the figures below were measured (shown with them).
MEASURED_HOW = ""

MEASURED: dict[str, tuple[Measured, ...]] = {}


def measured(slug: str) -> tuple[Measured, ...]:
    """The measured levels of a game, lowest first (empty when none was measured)."""
    return MEASURED.get(slug, ())
