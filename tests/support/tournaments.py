"""A tournament already running, for tests about what its matches show and send."""

from __future__ import annotations

from pbem.core.accounts.models import Player
from pbem.core.matches.models import Match
from pbem.core.tournaments import running, service
from pbem.core.tournaments.models import Tournament
from pbem.core.tournaments.service import Organising
from tests.conftest import START


def started_round_robin(emails: tuple[str, str], secret_key: str,
                        name: str = "Club") -> tuple[Tournament, Match]:
    """A two-player round robin of Nim, organised by the first player, both entered and
    started now: the tournament and its one match."""
    organiser, other = (Player.for_email(email, START) for email in emails)
    tournament = service.create_tournament(organiser, {"name": name, "game": "nim",
                                                       "format": "round-robin"}, START)
    for player in (organiser, other):
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(organiser), secret_key, START)
    return tournament, Match.get()
