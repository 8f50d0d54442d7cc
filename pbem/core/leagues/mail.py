"""A league's and a ladder's mail: a season's start (your division), its end (your place, and
whether you go up, down or sit a season out), a challenge made to you, and being put on hold.

Rows in the outbox like a tournament's (`tournaments/mail.py`): the template's name and a few
values, rendered at send time in the player's language; the player's preference decides
whether each goes now or with the digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.leagues.models import Ladder, League
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.mailout.preferences import MailPreference, next_digest_at, sends_now


def queue_season_started(league: League, season: int, division: int,
                         players: Sequence[Player], games: int, now: datetime) -> None:
    names = [p.public_name for p in players]
    for player in players:
        _queue(player, "league_season_started", now, {
            **_league(league), "season": season, "division": division, "players": names,
            "games": games})


def queue_season_ended(league: League, season: int, division: int,
                       table: Sequence[tuple[int, Player, float]], moves: dict[int, str],
                       now: datetime) -> None:
    """`table`: (rank, player, points) best first; `moves`: "up", "down" or "hold" by id."""
    rows = [[rank, p.public_name, int(points) if float(points).is_integer() else
             round(points, 2)] for rank, p, points in table]
    for rank, player, _points in table:
        _queue(player, "league_season_ended", now, {
            **_league(league), "season": season, "division": division, "rank": rank,
            "move": moves.get(player.id, "stay"), "standings": rows})


def queue_challenge(ladder: Ladder, challenger: Player, defender: Player, place: int,
                    now: datetime) -> None:
    _queue(defender, "ladder_challenge", now, {
        **_ladder(ladder), "challenger": challenger.public_name, "place": place,
        "accept_days": ladder.accept_days})


def queue_on_hold(ladder: Ladder, player: Player, place: int, now: datetime) -> None:
    _queue(player, "ladder_on_hold", now, {**_ladder(ladder), "place": place})


def _league(league: League) -> dict[str, Any]:
    return {"league": league.id, "league_name": league.name}


def _ladder(ladder: Ladder) -> dict[str, Any]:
    return {"ladder": ladder.id, "ladder_name": ladder.name}


def _queue(player: Player, template: str, now: datetime, params: dict[str, Any]) -> None:
    if sends_now(player, template, None, now):
        due = now
    elif player.mail_pref == MailPreference.DIGEST:
        due = player.digest_due_at or next_digest_at(player.digest_hour, player.timezone, now)
    else:
        return
    OutboxMessage.insert(to_address=player.email, template=template, params=params,
                         status=MessageStatus.PENDING, next_attempt_at=due,
                         created_at=now).execute()
