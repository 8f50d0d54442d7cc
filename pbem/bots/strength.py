"""How strong each level measured, per game: the figures `bench/bots.py` printed, kept here so
the rules pages and bench/RESULTS.md say the same. Re-measure and update them when the search, a
level's budget or a game's hints change.

A new game adds its entry to `MEASURED` (docs/ADDING_A_GAME.md, step 4). Until it has one its
rules page shows no strength table, and tests/bots/test_strength.py fails."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbem.i18n import N_, ngettext


@dataclass(frozen=True)
class Score:
    """A level's score in a series of matches (a win 1, a shared win 1/k) and its 95 % Wilson
    interval, in per cent."""

    percent: float
    low: float
    high: float
    games: int

    def text(self) -> str:
        return ngettext("%(percent)s %% (%(low)s to %(high)s %%, %(num)s game)",
                        "%(percent)s %% (%(low)s to %(high)s %%, %(num)s games)", self.games,
                        percent=format(self.percent, ".0f"), low=format(self.low, ".0f"),
                        high=format(self.high, ".0f"))


@dataclass(frozen=True)
class Measured:
    level: int
    vs_random: Score
    vs_below: Score | None  # level 1 plays random only
    think_p95: float  # seconds


# How the figures below were measured (shown with them, in the reader's language).
MEASURED_HOW = N_("2026-11-26 and 27, on a shared two-core machine: 10 or 100 matches a pairing "
                  "for levels 1 and 2 (each figure says how many), 6 matches against random "
                  "for level 3, times in CPU seconds")

MEASURED: dict[str, tuple[Measured, ...]] = {
    "eximo": (
        Measured(1, Score(100.0, 96.3, 100.0, 100), None, 0.035),
        Measured(2, Score(100.0, 72.2, 100.0, 10), Score(90.0, 59.6, 98.2, 10), 0.28),
        Measured(3, Score(100.0, 61.0, 100.0, 6), None, 1.08),
    ),
    "frozen-forest": (
        Measured(1, Score(90.0, 59.6, 98.2, 10), None, 0.046),
        Measured(2, Score(100.0, 72.2, 100.0, 10), Score(100.0, 72.2, 100.0, 10), 0.333),
        Measured(3, Score(100.0, 61.0, 100.0, 6), None, 1.295),
    ),
    "mimic": (
        Measured(1, Score(95.0, 88.8, 97.8, 100), None, 0.021),
        Measured(2, Score(100.0, 96.3, 100.0, 100), Score(86.0, 77.9, 91.5, 100), 0.2),
        Measured(3, Score(100.0, 61.0, 100.0, 6), None, 0.514),
    ),
    "mimic-taking": (
        Measured(1, Score(50.0, 23.7, 76.3, 10), None, 0.04),
        Measured(2, Score(85.0, 54.1, 96.5, 10), Score(40.0, 16.8, 68.7, 10), 0.297),
        Measured(3, Score(50.0, 18.8, 81.2, 6), None, 1.09),
    ),
    "move-in-synch": (
        Measured(1, Score(99.5, 95.4, 99.9, 100), None, 0.028),
        Measured(2, Score(100.0, 96.3, 100.0, 100), Score(100.0, 96.3, 100.0, 100), 0.241),
        Measured(3, Score(100.0, 61.0, 100.0, 6), None, 0.439),
    ),
}

def measured(slug: str) -> tuple[Measured, ...]:
    """The measured levels of a game, lowest first (empty when none was measured)."""
    return MEASURED.get(slug, ())


# -- sequential tests ---------------------------------------------------------------------
# `bench/bots.py --sprt` writes bench/results/strength.json, one entry a pairing, and the
# same file here for the rules pages (tests/bots/test_strength.py holds them equal).
DECIDED_FILE = Path(__file__).with_name("strength.json")


@dataclass(frozen=True)
class Decided:
    """A pairing's sequential test: the level against a lower level or random play."""

    level: int
    against: str  # "random" or a level's number
    elo0: float
    elo1: float
    decision: str  # "H1", "H0" or "open"
    wins: int
    draws: int
    losses: int
    matches: int
    llr: float
    lower: float
    upper: float
    commit: str


@functools.cache
def _decided_entries() -> tuple[dict[str, Any], ...]:
    if not DECIDED_FILE.exists():
        return ()
    return tuple(json.loads(DECIDED_FILE.read_text())["pairings"])


def decided(slug: str) -> tuple[Decided, ...]:
    """The game's sequential tests, lowest level first (empty when none was run)."""
    return tuple(Decided(level=e["level"], against=e["against"], elo0=e["elo0"],
                         elo1=e["elo1"], decision=e["decision"], wins=e["wins"],
                         draws=e["draws"], losses=e["losses"], matches=e["matches"],
                         llr=e["llr"], lower=e["lower"], upper=e["upper"],
                         commit=e["commit"][:10])
                 for e in sorted(_decided_entries(), key=lambda e: (e["level"], e["against"]))
                 if e["game"] == slug)
