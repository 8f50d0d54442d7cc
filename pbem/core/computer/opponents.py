"""Playing the computer: a match between a signed-in player and the computer, started at once.

The person takes the seat they asked for (or one drawn at random); every other seat is the
computer's, at the chosen level. The match is unrated (`Match.has_computer`), the computer's
clock never runs, and under the person's own clock a timeout forfeits (nobody is there to
rule on a match against the computer). If the computer moves first, its job is queued with
the match, and the worker answers within seconds.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pbem.bots import LEVELS
from pbem.core.accounts.models import Player
from pbem.core.admin.players import check_may_challenge
from pbem.core.computer.tables import whole
from pbem.core.matches.creation import CreatedMatch, create_match
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.errors import ConflictError, InvalidRequestError, UnprocessableError
from pbem.games import get_rules
from pbem.i18n import _

# A person plays at most this many live matches against the computer at once: each is cheap,
# but a script starting thousands would keep the worker thinking for nobody.
MAX_LIVE_COMPUTER_MATCHES = 20
RANDOM = "random"


@dataclass(frozen=True)
class ComputerRequest:
    game: str
    level: int | str  # as posted: checked by `check_level`
    options: Mapping[str, Any] = field(default_factory=dict)
    clock: str = "3d"
    seat: int | str = RANDOM  # the person's seat: a number, or "random"
    # Mimic Taking: 3 or 4 (the game's smallest count if None); a form's text is checked too.
    players: int | str | None = None


@dataclass(frozen=True)
class ComputerMatch:
    created: CreatedMatch
    seat: int  # the person's seat

    @property
    def match(self) -> Match:
        return self.created.match

    @property
    def token(self) -> str:
        return self.created.tokens[self.seat]


def check_level(level: Any) -> int:
    number = whole(level) if isinstance(level, int | str) else None
    if number is None or number not in LEVELS:
        raise InvalidRequestError(_("The computer's level is a whole number from 1 to "
                                    "%(most)s, not %(given)s.", most=len(LEVELS),
                                    given=repr(level)))
    return number


def play_computer(player: Player, request: ComputerRequest, secret_key: str,
                  now: datetime, rng: secrets.SystemRandom | None = None) -> ComputerMatch:
    """Start `player`'s match against the computer; raise a PbemError saying why not."""
    check_may_challenge(player)
    if player.computer_level is not None:
        raise InvalidRequestError(_("The computer does not play itself here."))
    rules = get_rules(request.game)
    level = check_level(request.level)
    players = _player_count(rules.player_counts, request.players)
    seat = _seat(request.seat, players, rng or secrets.SystemRandom())
    live = (Seat.select().join(Match)
            .where(Seat.player == player, Match.status == MatchStatus.ACTIVE,
                   Match.has_computer == True)  # noqa: E712 (peewee builds SQL from ==)
            .count())
    if live >= MAX_LIVE_COMPUTER_MATCHES:
        raise ConflictError(_("You have %(count)s matches against the computer going on, "
                              "the most at once; finish or resign one first.", count=live))
    computers = {number: level for number in range(players) if number != seat}
    created = create_match(rules.slug, [player.email], request.options, secret_key, now,
                           time_control=request.clock, on_timeout=TimeoutPolicy.FORFEIT,
                           computers=computers)
    return ComputerMatch(created, seat)


def _player_count(counts: frozenset[int], asked: Any) -> int:
    if asked is None or asked == "":
        return min(counts)
    allowed = _(" or ").join(str(count) for count in sorted(counts))
    number = whole(asked)
    if number is None or number not in counts:
        raise UnprocessableError(_("This game is played by %(allowed)s players, not %(given)s.",
                                   allowed=allowed, given=repr(asked)))
    return number


def _seat(asked: Any, players: int, rng: secrets.SystemRandom) -> int:
    if asked is None or asked == "" or asked == RANDOM:
        return rng.randrange(players)
    number = whole(asked)
    if number is None or not 0 <= number < players:
        raise UnprocessableError(_('Your seat is one of 0 to %(last)s (0 moves first), or '
                                   '"random"; not %(given)s.', last=players - 1,
                                   given=repr(asked)))
    return number
