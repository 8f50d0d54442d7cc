"""`pbem ratings rebuild`: every rating recomputed from the history, in finishing order.

The history is the `rating_event` rows (one per rated match and player who counted, in the
order the matches ended, with each seat's rank): the rebuild starts everyone at mu 25, sigma
25/3, replays each match's rows through `model.rate` with the days-away growth, rewrites
each row's before and after, and writes the `rating` rows anew. Run on an intact database it
changes nothing: the values are identical, which is what the tests hold it to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime

from pbem.core.db.connection import database, write_transaction
from pbem.core.ratings import model
from pbem.core.ratings.models import Rating, RatingEvent

BATCH = 2000


@dataclass
class _Current:
    mu: float = model.MU
    sigma: float = model.SIGMA
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    last: datetime | None = None


@dataclass(frozen=True)
class RebuildReport:
    matches: int
    events: int
    changed: int


def _matches() -> Iterator[list[RatingEvent]]:
    """The events grouped by match, in the order the matches ended, read in batches."""
    last_id = 0
    group: list[RatingEvent] = []
    while True:
        rows = list(RatingEvent.select().where(RatingEvent.id > last_id)
                    .order_by(RatingEvent.id).limit(BATCH))
        if not rows:
            break
        for row in rows:
            if group and group[0].match_id != row.match_id:
                yield group
                group = []
            group.append(row)
        last_id = rows[-1].id
    if group:
        yield group


def rebuild(progress: Callable[[int, int], None] | None = None) -> RebuildReport:
    """Recompute every rating from the events; `progress(done, total)` per batch of events."""
    total = RatingEvent.select().count()
    current: dict[tuple[int, str], _Current] = {}
    matches = events = changed = 0
    pending: list[RatingEvent] = []
    with write_transaction():
        for group in _matches():
            ranks = [row.rank for row in group]
            before, days = [], []
            for row in group:
                now = current.setdefault((row.player_id, row.game), _Current())
                away = (row.at - now.last).days if now.last is not None else 0
                days.append(max(0, away))
                before.append((now.mu, now.sigma))
            grown = [(mu, model.sigma_after_days_away(sigma, d))
                     for (mu, sigma), d in zip(before, days, strict=True)]
            after = model.rate(grown, ranks)
            for row, (mu0, sigma0), away, (mu, sigma) in zip(group, before, days, after,
                                                              strict=True):
                state = current[(row.player_id, row.game)]
                values = (mu0, sigma0, away, mu, sigma)
                if values != (row.mu_before, row.sigma_before, row.days_away, row.mu_after,
                              row.sigma_after):
                    changed += 1
                    row.mu_before, row.sigma_before, row.days_away = mu0, sigma0, away
                    row.mu_after, row.sigma_after = mu, sigma
                    row.display_before = model.display(mu0, sigma0)
                    row.display_after = model.display(mu, sigma)
                    pending.append(row)
                state.mu, state.sigma, state.last = mu, sigma, row.at
                state.games += 1
                if row.outcome == "win":
                    state.wins += 1
                elif row.outcome == "draw":
                    state.draws += 1
                else:
                    state.losses += 1
            matches += 1
            events += len(group)
            if len(pending) >= BATCH:
                _save(pending)
                pending = []
            if progress is not None and events % BATCH < len(group):
                progress(events, total)
        _save(pending)
        Rating.delete().execute()
        rows = [{"player": player_id, "game": game, "mu": s.mu, "sigma": s.sigma,
                 "display": model.display(s.mu, s.sigma), "games": s.games, "wins": s.wins,
                 "draws": s.draws, "losses": s.losses, "last_played_at": s.last}
                for (player_id, game), s in sorted(current.items())]
        for start in range(0, len(rows), 500):
            Rating.insert_many(rows[start:start + 500]).execute()
    if progress is not None:
        progress(events, total)
    return RebuildReport(matches, events, changed)


_COLUMNS = ("mu_before", "sigma_before", "days_away", "mu_after", "sigma_after",
            "display_before", "display_after")


def _save(events: list[RatingEvent]) -> None:
    """Write the rows that changed: one prepared UPDATE by id, sent as a batch (peewee's
    bulk_update builds a CASE per column and spent most of the rebuild compiling it)."""
    if not events:
        return
    param = database.obj.param
    sql = (f"UPDATE {RatingEvent._meta.table_name} SET "
           + ", ".join(f"{column} = {param}" for column in _COLUMNS) + f" WHERE id = {param}")
    cursor = database.cursor()
    cursor.executemany(sql, [(*[getattr(event, column) for column in _COLUMNS], event.id)
                             for event in events])


def remove_from_ratings(match_id: int) -> RebuildReport:
    """Take a match out of the ratings (an admin voided it): its history rows go, and every
    rating is recomputed from the rest, in the caller's transaction. The result is exactly
    what the ratings would be had the match never counted, and what a later rebuild gives."""
    RatingEvent.delete().where(RatingEvent.match == match_id).execute()
    return rebuild()
