"""What the door hands on: the consequences of a change, settled by the packages above.

After a change is written (and its clocks settled), the door (changes.py) builds one small
value, `Settled`: the match and its seats as they now are, the change, whether it ended the
match, who moved, whose turn it was before and is now, who lost by running out of time, and
what the change asked to be told to people (`Told`: a kind of news and its parameters, never a
rendered mail). It hands that value, in the same transaction and in a fixed order, to every
**settler** installed here: standings, ratings, snapshots, mail, computer turns (the list is
`pbem.core.settlers`, written once above every package, as the games' registry is). A settler
that raises rolls the whole change back, so a change and its consequences commit together.

`matches` imports none of the settlers: the adapters (the web app, the worker, the command
line, the tests) install the list when they start. A change made before that raises
`SettlersMissing` instead of silently skipping ratings or mail.

The door also asks the packages above one question it cannot answer from its own tables:
whether a seat's latest turn mail failed (`turn_mail_failed`; the sweep holds a timeout for an
admin then). It is installed with the settlers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.core.matches.models import Match, Seat
from pbem.games.base import GameRules

if TYPE_CHECKING:
    from pbem.core.matches.changes import Change


@dataclass(frozen=True)
class Told:
    """News a change asks the mail to carry: its kind ("after-move", "result", "ruling", …,
    one per kind of mail the mail settler knows) and what the mail needs beyond the `Settled`
    value (a seat, a reason, the position it speaks of)."""

    what: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Settled:
    """A change as its settlers see it, once written: read-only, the same for every settler."""

    match: Match
    seats: tuple[Seat, ...]  # in seat order, their clocks settled by the door
    change: Change
    rules: GameRules
    now: datetime
    started: bool = False  # the match was created by this change
    ended: bool = False  # the change ended the match (a result, or an abort)
    movers: frozenset[int] = frozenset()
    to_move_before: tuple[int, ...] = ()
    to_move_after: tuple[int, ...] = ()
    timed_out: frozenset[int] = frozenset()  # seats that lost by running out of time
    told: tuple[Told, ...] = ()
    # Seats not to mail "your turn" (a conditional answer of theirs followed at once), and
    # sentences for a seat's mails about this change (its conditional moves played or cleared).
    quiet: frozenset[int] = frozenset()
    notes: Mapping[int, list[str]] = field(default_factory=dict)

    def seat(self, number: int) -> Seat:
        return next(row for row in self.seats if row.seat == number)


Settler = Callable[[Settled], None]
TurnMailFailed = Callable[[int, int], bool]


class SettlersMissing(RuntimeError):
    """A change reached the door before any settler was installed (a start-up forgot
    `pbem.core.settlers.install()`): nothing is written, rather than a change without its
    ratings or mail."""


@dataclass(frozen=True)
class _Installed:
    settlers: tuple[Settler, ...]
    turn_mail_failed: TurnMailFailed


_installed: _Installed | None = None


def install(settlers: Sequence[Settler], turn_mail_failed: TurnMailFailed) -> None:
    """Set the settlers the door hands every change to, in this order (replacing any set
    before: installing the same list again changes nothing)."""
    global _installed
    if not settlers:
        raise ValueError("the door needs at least one settler")
    _installed = _Installed(tuple(settlers), turn_mail_failed)


def installed() -> tuple[Settler, ...]:
    return _need().settlers


def settle(settled: Settled) -> None:
    """Hand `settled` to every installed settler, in order (inside the change's transaction)."""
    for settler in _need().settlers:
        settler(settled)


def turn_mail_failed(match_id: int, seat: int) -> bool:
    """Whether the seat's latest turn mail failed, or is being retried after failing."""
    return _need().turn_mail_failed(match_id, seat)


def _need() -> _Installed:
    if _installed is None:
        raise SettlersMissing("No settlers are installed: call pbem.core.settlers.install() "
                              "when the program starts (the web app, the worker and the "
                              "command line do). Nothing was changed.")
    return _installed
