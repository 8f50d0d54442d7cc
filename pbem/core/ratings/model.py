"""The rating model, as pure functions anyone can run again on the public records.

- **Model**: openskill's Plackett-Luce at the library's defaults (mu 25, sigma 25/3, beta
  25/6, tau 25/300 added each match), `PlackettLuce().rate(teams, ranks=ranks)`, one player
  per team, seats in seat order.
- **Ranks** (`finishing_ranks`): from the match's result, `{"winners": [...], "scores":
  [...]}`. No winner, or every seat a winner, is a draw: every seat rank 1. Otherwise the
  winners share rank 1 and the others follow by final score, highest first, equal scores
  sharing a rank (competition ranking: 1, 2, 2, 4). Mimic Taking is ranked by its final score
  this way; a forfeit or adjudication is ranked as ruled.
- **Days away** (`sigma_after_days_away`): before a match, a player's sigma becomes
  `min(25/3, sqrt(sigma^2 + d * 0.0025))`, d the whole days (24-hour periods) since their last
  rated result in that game: a year away adds sigma of about 0.96 in quadrature. d = 0 changes
  nothing, so same-day results are exactly the library's.
- **Display** (`display`): `round(1000 + 40 * (mu - 3 * sigma))`, the ordinal openskill uses
  for sorting, scaled; a new player shows 1000. Provisional (shown with `?`) below 10 rated
  games in that game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

MU = 25.0
SIGMA = 25.0 / 3.0
DAY_VARIANCE = 0.0025
PROVISIONAL_BELOW = 10



@cache
def _model() -> Any:
    """openskill's model, imported when a rated match first ends in this process: a web
    worker that only shows pages never loads the library (bench/memory.py)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def finishing_ranks(result: Mapping[str, Any], seats: int) -> list[int]:
    """Each seat's rank, 1 best, ties sharing (see the module's docstring)."""
    winners = set(result.get("winners") or ())
    if not winners or len(winners) >= seats:
        return [1] * seats
    scores = list(result.get("scores") or [0.0] * seats)
    others = sorted((s for s in range(seats) if s not in winners), key=lambda s: -scores[s])
    ranks = [1] * seats
    place = len(winners) + 1
    for index, seat in enumerate(others):
        if index > 0 and scores[seat] == scores[others[index - 1]]:
            ranks[seat] = ranks[others[index - 1]]
        else:
            ranks[seat] = place + index
    return ranks


def sigma_after_days_away(sigma: float, days: int) -> float:
    """Uncertainty grown by time away; unchanged on the same day (days == 0)."""
    if days <= 0:
        return sigma
    return min(SIGMA, math.sqrt(sigma * sigma + days * DAY_VARIANCE))


def display(mu: float, sigma: float) -> int:
    """The number players see."""
    return round(1000 + 40 * (mu - 3 * sigma))


def provisional(games: int) -> bool:
    return games < PROVISIONAL_BELOW


def shown(rating: int, games: int) -> str:
    """`1234`, or `1234?` while provisional."""
    return f"{rating}?" if provisional(games) else str(rating)


def rate(before: Sequence[tuple[float, float]], ranks: Sequence[int]
         ) -> list[tuple[float, float]]:
    """New (mu, sigma) for each player, from (mu, sigma) already grown for days away."""
    model = _model()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    rated = model.rate(teams, ranks=list(ranks))
    return [(team[0].mu, team[0].sigma) for team in rated]
