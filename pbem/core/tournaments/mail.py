"""A tournament's mail: its start, each round's new matches (one mail per player per round,
with every new seat link), and the final standings; a start that never came (too few players).

Rows in the outbox like any mail: they name the template and a few ids, never a link (the
seat links are derived at send time, `mailout/contexts.py`), and the player's preference
decides whether each goes now (`mailout/preferences.py`: a round's mail is a "start", the
final standings a "result"); a player on the daily digest gets them at its hour.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.mailout.preferences import MailPreference, next_digest_at, sends_now
from pbem.core.tournaments.models import Tournament, TournamentEntry
from pbem.core.tournaments.standings import Standing


def queue_started(tournament: Tournament, players: Iterable[Player], now: datetime) -> None:
    for player in players:
        _queue(player, "tournament_started", now, _about(tournament))


def queue_round(tournament: Tournament, number: int | None,
                links: dict[int, list[tuple[int, int]]], now: datetime) -> None:
    """`links`: each player's new seats, (match id, seat). `number` None: a round robin's
    matches, every round at once."""
    if not links:
        return
    players = {p.id: p for p in Player.select().where(Player.id.in_(list(links)))}
    rows = [row for player_id, seats in sorted(links.items())
            if (row := _row(players[player_id], "tournament_round", now, {
                **_about(tournament), "round": number,
                "seats": [[match_id, seat] for match_id, seat in seats]})) is not None]
    # One statement for a round's mail (a 500-player round is 500 rows).
    for start in range(0, len(rows), 500):
        OutboxMessage.insert_many(rows[start:start + 500]).execute()


def queue_final(tournament: Tournament, players: Iterable[Player], table: Sequence[Standing],
                now: datetime) -> None:
    names = {e.id: e.player.public_name for e in TournamentEntry.select(TournamentEntry, Player)
             .join(Player).where(TournamentEntry.tournament == tournament)}
    # Whole points print as 3, not 3.0; halves and table thirds keep two places.
    rows = [[s.rank, names.get(s.player, "?"),
             int(s.points) if float(s.points).is_integer() else round(s.points, 2)]
            for s in table[:50]]
    for player in players:
        _queue(player, "tournament_final", now, {**_about(tournament), "standings": rows,
                                                  "more": max(0, len(table) - 50)})


def queue_cancelled(tournament: Tournament, players: Iterable[Player], count: int,
                    now: datetime) -> None:
    for player in players:
        _queue(player, "tournament_cancelled", now,
               {**_about(tournament), "count": count, "needed": tournament.min_players})


def _about(tournament: Tournament) -> dict[str, Any]:
    return {"tournament": tournament.id, "tournament_name": tournament.name,
            "format": tournament.format}


def _queue(player: Player, template: str, now: datetime, params: dict[str, Any]) -> None:
    row = _row(player, template, now, params)
    if row is not None:
        OutboxMessage.insert(row).execute()


def _row(player: Player, template: str, now: datetime,
         params: dict[str, Any]) -> dict[str, Any] | None:
    """The outbox row: due now, if the player's preference sends this kind at once; for a
    player on the daily digest, at their digest's hour (the tournament's news comes with it,
    not one by one); else none (`off`: only reminders and rulings)."""
    if sends_now(player, template, None, now):
        due = now
    elif player.mail_pref == MailPreference.DIGEST:
        due = player.digest_due_at or next_digest_at(player.digest_hour, player.timezone, now)
    else:
        return None
    return {"to_address": player.email, "template": template, "params": params,
            "status": MessageStatus.PENDING, "next_attempt_at": due, "created_at": now}
