"""Settling ratings when a rated match ends: a settler the door (`matches/changes.py`) hands
every change to, in the same transaction as the change that ended the match, so a rating
changes exactly once.

The players' `Rating` rows are created if missing and then locked in player-id order (every
settlement takes them in that order, so two matches ending at once queue instead of
deadlocking), read as they are *after* any other settlement committed, and written back with
one `RatingEvent` row per player who counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.core.db.connection import locking
from pbem.core.matches.changes import Settled
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.ratings import model
from pbem.core.ratings.models import Rating, RatingEvent

# A player who runs out of time in a rated match within this long of a timeout that already
# cost them rating is treated as having vanished: that match is unrated for them.
VANISHED_WITHIN = timedelta(days=7)


def has_computer(match: Match) -> bool:
    """Whether the computer plays, or played, a seat of this match (a computer opponent, or a
    late seat an admin handed to it): such matches never count."""
    return bool(match.has_computer)


def counts(match: Match) -> bool:
    """Whether this match's result changes ratings at all."""
    return (bool(match.rated) and match.status == MatchStatus.FINISHED
            and bool(match.result) and not has_computer(match))


@dataclass(frozen=True)
class Participant:
    seat: int
    player_id: int
    rank: int
    timed_out: bool


def outcome_of(rank: int, ranks: list[int]) -> str:
    """As `records.standings` counts it: all first is a draw for all; first wins; else loss."""
    if all(r == 1 for r in ranks):
        return "draw"
    return "win" if rank == 1 else "loss"


def settle_ended(settled: Settled) -> None:
    """The settler: a change that ended a match rates it (if it counts)."""
    if settled.ended:
        settle_ratings(settled.match, list(settled.seats), settled.now, settled.timed_out)


def settle_ratings(match: Match, seats: list[Seat], now: datetime,
                   timed_out: frozenset[int] = frozenset()) -> None:
    """Rate a match that has just ended (the door calls this after writing its result).
    `timed_out` are the seats that lost by running out of time (a timeout forfeit, a claim on
    time, an adjudicator's award against the late seat)."""
    if not counts(match):
        return
    player_ids = [seat.player_id for seat in seats]
    if len(set(player_ids)) != len(player_ids):
        return  # one player in several seats: nothing to learn
    ranks = model.finishing_ranks(match.result, len(seats))
    everyone = [Participant(seat.seat, seat.player_id, ranks[seat.seat],
                            seat.seat in timed_out) for seat in sorted(seats, key=lambda s:
                                                                         s.seat)]
    playing = [p for p in everyone if not (p.timed_out and _vanished(p.player_id, now))]
    if len(playing) < 2:
        return
    rows = _locked_rows(match.game, sorted(p.player_id for p in playing))
    apply_ratings(match, playing, [outcome_of(p.rank, ranks) for p in playing], rows, now)


def apply_ratings(match: Match, playing: list[Participant], outcomes: list[str],
                  rows: dict[int, Rating], now: datetime) -> None:
    """Rate `playing` from `rows` (locked), write them and their events."""
    before, days = [], []
    for p in playing:
        row = rows[p.player_id]
        away = (now - row.last_played_at).days if row.last_played_at is not None else 0
        days.append(max(0, away))
        before.append((row.mu, model.sigma_after_days_away(row.sigma, days[-1])))
    after = model.rate(before, [p.rank for p in playing])
    for p, outcome, away, (mu, sigma) in zip(playing, outcomes, days, after, strict=True):
        row = rows[p.player_id]
        RatingEvent.create(match=match.id, player=p.player_id, game=match.game, seat=p.seat,
                           rank=p.rank, outcome=outcome, mu_before=row.mu,
                           sigma_before=row.sigma, days_away=away, mu_after=mu,
                           sigma_after=sigma, display_before=row.display,
                           display_after=model.display(mu, sigma), timed_out=p.timed_out,
                           at=now)
        tally = {"wins": Rating.wins, "draws": Rating.draws, "losses": Rating.losses}[
            {"win": "wins", "draw": "draws", "loss": "losses"}[outcome]]
        (Rating.update({Rating.mu: mu, Rating.sigma: sigma,
                        Rating.display: model.display(mu, sigma),
                        Rating.games: Rating.games + 1, tally: tally + 1,
                        Rating.last_played_at: now})
         .where(Rating.id == row.id).execute())


def _vanished(player_id: int, now: datetime) -> bool:
    return (RatingEvent.select().where(RatingEvent.player == player_id,
                                       RatingEvent.timed_out == True,  # noqa: E712
                                       RatingEvent.at > now - VANISHED_WITHIN).exists())


def _locked_rows(game: str, player_ids: list[int]) -> dict[int, Rating]:
    """The players' rows in `game`, made if missing, locked in player-id order."""
    start = model.display(model.MU, model.SIGMA)
    (Rating.insert_many([{"player": pid, "game": game, "mu": model.MU, "sigma": model.SIGMA,
                          "display": start} for pid in player_ids])
     .on_conflict_ignore().execute())
    query = (Rating.select().where(Rating.game == game, Rating.player.in_(player_ids))
             .order_by(Rating.player))
    return {row.player_id: row for row in locking(query)}
