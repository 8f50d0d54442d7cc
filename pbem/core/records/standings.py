"""Results as the archive counts them: each seat's win, loss or draw, and a player's record.

`settle` turns a match's stored result into per-seat outcomes; whatever ends a match with a
result (a final move, a ruling, a forfeit, an import) calls it in the same transaction: the
door through its settler (`settle_standings`, see `core/settlers.py`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import peewee

from pbem.core.accounts.models import FormerName, Player
from pbem.core.accounts.players import find_player
from pbem.core.matches.changes import Settled
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.records.models import PlayerTally
from pbem.errors import NotFoundError
from pbem.games import REGISTRY
from pbem.i18n import _

WIN, LOSS, DRAW = "win", "loss", "draw"


def settle_standings(settled: Settled) -> None:
    """The settler: a new match is one more seat in play for each player; whatever ended a
    match with a result writes each seat's win, loss or draw and moves the tallies."""
    if settled.started:
        tally_started(settled.match.game, [seat.player_id for seat in settled.seats])
    if settled.ended:
        settle(settled.match.id)
        tally_ended(settled.match.id)


def settle(match_id: int) -> None:
    """Write the outcomes of a match that has a result. A shared win by every seat, or an end
    with no winner, is a draw for all; otherwise winners win and the rest lose."""
    result = Match.select(Match.result).where(Match.id == match_id).scalar()
    if not result:
        return
    winners = set(result["winners"])
    seats = {row.seat for row in Seat.select(Seat.seat).where(Seat.match == match_id)}
    if not winners or winners >= seats:
        Seat.update(outcome=DRAW).where(Seat.match == match_id).execute()
        Match.update(outcome=DRAW).where(Match.id == match_id).execute()
        return
    Seat.update(outcome=peewee.Case(None, [(Seat.seat.in_(sorted(winners)), WIN)], LOSS)
                ).where(Seat.match == match_id).execute()
    Match.update(outcome=WIN).where(Match.id == match_id).execute()


def tally_started(game: str, player_ids: list[int]) -> None:
    """A match of `game` started with these players (one entry per seat): each has one more
    seat in play. Rows are taken in player-id order, as every tally change takes them."""
    _tally(game, sorted(player_ids), {PlayerTally.live: PlayerTally.live + 1})


def tally_ended(match_id: int, started: bool = True) -> None:
    """The match ended (finished, with its seats' outcomes settled, or aborted): each seat
    moves from in play (unless it never was: an import) to finished or aborted."""
    match = Match.select(Match.game, Match.status).where(Match.id == match_id).get()
    rows: list[tuple[int, str | None]] = list(
        Seat.select(Seat.player, Seat.outcome).where(Seat.match == match_id).tuples())  # type: ignore[arg-type]
    seats = sorted(rows, key=lambda row: row[0])
    _ensure(match.game, [player_id for player_id, _ in seats])
    column = PlayerTally.aborted if match.status == MatchStatus.ABORTED else PlayerTally.finished
    for player_id, outcome in seats:
        changes: dict[Any, Any] = {column: column + 1}
        if started:
            changes[PlayerTally.live] = PlayerTally.live - 1
        won = {WIN: PlayerTally.wins, LOSS: PlayerTally.losses, DRAW: PlayerTally.draws}
        if column is PlayerTally.finished and outcome in won:
            changes[won[outcome]] = won[outcome] + 1
        (PlayerTally.update(changes)
         .where(PlayerTally.player == player_id, PlayerTally.game == match.game).execute())


def _ensure(game: str, player_ids: list[int]) -> None:
    (PlayerTally.insert_many([{"player": pid, "game": game} for pid in sorted(set(player_ids))])
     .on_conflict_ignore().execute())


def _tally(game: str, player_ids: list[int], changes: dict[Any, Any]) -> None:
    _ensure(game, player_ids)
    for player_id in player_ids:
        (PlayerTally.update(changes)
         .where(PlayerTally.player == player_id, PlayerTally.game == game).execute())


def public_player(name: str) -> Player:
    """The player others know as `name`, unless they keep their page out of the archive (then,
    as for no such player, a NotFoundError: hiding must not be tellable from absence)."""
    player = find_player(name) or formerly_named(name)
    if player is None or player.hidden_from_archive:
        raise NotFoundError(_("There is no public page for a player called %(name)r.",
                              name=name))
    return player


def formerly_named(name: str) -> Player | None:
    """The player who last gave up the display name `name` (any case), unless someone has
    it now: old links to a renamed player's page lead to their page under the new name."""
    name = name.strip()
    if not name or len(name) > 40:
        return None
    row = (FormerName.select(FormerName, Player).join(Player)
           .where(peewee.fn.LOWER(FormerName.name) == name.lower())
           .order_by(FormerName.until.desc(), FormerName.id.desc()).first())
    return row.player if row is not None else None


def answers_to(name: str) -> bool:
    """Whether `name`, in any case, is a display name here, an unnamed player's address local
    part or a name given up: anything `find_player` or `formerly_named` might lead to."""
    folded = name.strip().lower()
    if Player.select().where(peewee.fn.LOWER(Player.name) == folded).exists():
        return True
    if FormerName.select().where(peewee.fn.LOWER(FormerName.name) == folded).exists():
        return True
    candidates = Player.select(Player.email).where(Player.name.is_null(),
                                                   Player.email.startswith(folded + "@"))
    return any(p.email.split("@", 1)[0] == folded for p in candidates)


def set_hidden_from_archive(player_id: int, hidden: bool) -> None:
    """The player's choice (their settings page calls this)."""
    Player.update(hidden_from_archive=hidden).where(Player.id == player_id).execute()


def record_by_game(player: Player) -> list[dict[str, Any]]:
    """Per game: matches finished, won, lost, drawn, in play and aborted (the player's tally
    rows: a few rows however many matches they have played)."""
    rows = PlayerTally.select().where(PlayerTally.player == player.id)
    return [{"game": t.game, "title": REGISTRY[t.game].title if t.game in REGISTRY else t.game,
             "finished": t.finished, "wins": t.wins, "losses": t.losses, "draws": t.draws,
             "live": t.live, "aborted": t.aborted}
            for t in sorted(rows, key=lambda t: t.game)
            if t.finished or t.live or t.aborted]


def counted_record_by_game(player: Player) -> list[dict[str, Any]]:
    """`record_by_game` counted from the seats (one grouped query over all the player's
    seats): what the tally must always equal; the tests and the migration's backfill use it."""
    rows = (Seat.select(Match.game, Match.status, Seat.outcome,
                        peewee.fn.COUNT(Seat.id).alias("count"))
            .join(Match).where(Seat.player == player)
            .group_by(Match.game, Match.status, Seat.outcome).tuples())
    games: dict[str, dict[str, int]] = defaultdict(
        lambda: {"finished": 0, WIN: 0, LOSS: 0, DRAW: 0, "live": 0, "aborted": 0})
    counted: list[tuple[str, str, str | None, int]] = list(rows)  # type: ignore[arg-type]
    for game, status, outcome, count in counted:
        tally = games[game]
        if status == MatchStatus.ACTIVE:
            tally["live"] += count
        elif status == MatchStatus.ABORTED:
            tally["aborted"] += count
        else:
            tally["finished"] += count
            if outcome in (WIN, LOSS, DRAW):
                tally[outcome] += count
    return [{"game": game, "title": REGISTRY[game].title if game in REGISTRY else game,
             "finished": t["finished"], "wins": t[WIN], "losses": t[LOSS], "draws": t[DRAW],
             "live": t["live"], "aborted": t["aborted"]}
            for game, t in sorted(games.items())]
