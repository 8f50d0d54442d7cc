"""The five levels: each an iteration budget (what decides the move) and a CPU-time cap (that
only a caller passing a clock enforces: the worker passes a CPU clock, `pbem.clock.think_clock`,
never wall time, so a busy machine plays at the same strength)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.i18n import N_, _


@dataclass(frozen=True)
class Level:
    number: int
    english_name: str  # marked with N_; `name` reads it in the reader's language
    iterations: int  # search iterations (one playout each) per move
    # The most CPU time a move may take; enforced only with a clock. Set at about twice what
    # the iteration budget takes in the slowest game, so the iterations decide the move.
    seconds: float
    # Root look-ahead before the search (perfect-information games): 1 takes a win in one,
    # 2 also refuses a move that lets the next seat win at once.
    look_ahead: int = 2

    @property
    def name(self) -> str:
        return _(self.english_name)

    @property
    def label(self) -> str:
        # The computer player's name as stored (in records, the API and the database it stays
        # English); pages and mails show `shown_name` of it, in the reader's language.
        return f"Computer (level {self.number})"

    @property
    def shown_label(self) -> str:
        return _("Computer (level %(level)s)", level=self.number)


LEVELS: dict[int, Level] = {
    1: Level(1, N_("beginner"), iterations=25, seconds=0.2, look_ahead=1),
    2: Level(2, N_("casual"), iterations=200, seconds=1.0),
    3: Level(3, N_("club"), iterations=800, seconds=3.0),
    4: Level(4, N_("strong"), iterations=1500, seconds=6.0),
    5: Level(5, N_("expert"), iterations=3500, seconds=10.0),
}


def level_of(number: int) -> Level:
    """The level with this number; ValueError naming the levels if there is none."""
    try:
        return LEVELS[number]
    except KeyError:
        raise ValueError(f"there is no level {number!r} (levels: 1 to {len(LEVELS)})") from None


_LABEL = re.compile(r"Computer \(level ([1-9])\)")


def shown_name(name: str) -> str:
    """A player's name as a page or mail shows it: the computer's stored label in the reader's
    language ("Computer (level 3)" is "Computer (Stufe 3)" in German), also inside a longer
    name ("Red (Computer (level 3))"); anyone else's as is."""
    return _LABEL.sub(_shown, name)


def _shown(found: re.Match[str]) -> str:
    number = int(found.group(1))
    return LEVELS[number].shown_label if number in LEVELS else found.group(0)
