"""The generalised sequential probability ratio test (GSPRT) that decides a strength pairing.

The same test as Stockfish's fishtest (Michel Van den Bergh's GSPRT): the results are a
distribution over score values in [0, 1] (a trinomial one, a match lost / drawn / won; or a
pentanomial one, a *pair* of matches on the same deal with the seats swapped: 0, 1/4, …, 1),
and the log-likelihood ratio compares the most likely distribution whose mean score is s1
with the most likely one whose mean is s0 (each found by solving the "secular equation").
The test stops at `upper` (H1: the level is at least elo1 stronger) or `lower` (H0: at most
elo0); in between it goes on. Pairs cancel the first player's advantage and the deal's luck,
so they decide with fewer matches; a group may hold more than two matches (Mimic Taking: the
level in each of the three seats), its score the mean of theirs.

Elo is logistic: a level `elo` stronger than each of the other `players - 1` seats expects a
share 10^(elo/400) / (10^(elo/400) + players - 1) of the wins: 1/2 at 0 Elo in a two-player
game, 1/3 in a three-player one ("its share above 1/3").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# A category never seen is counted this often, so a run of wins alone still gives a
# distribution whose mean can be moved (fishtest's regularisation).
EPSILON_COUNT = 1e-3
TRINOMIAL = (0.0, 0.5, 1.0)
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)


def expected_score(elo: float, players: int = 2) -> float:
    """The share of a seat `elo` stronger than each of the other seats."""
    strength = 10 ** (elo / 400)
    return strength / (strength + players - 1)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR at which H0 (lower) or H1 (upper) is accepted (Wald's bounds)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def distribution(scores: Iterable[float],
                 categories: Sequence[float] = ()) -> tuple[float, list[tuple[float, float]]]:
    """(N, [(score, probability)]) from the groups' scores; every one of `categories` (and 0
    and 1) is present, a missing one counted `EPSILON_COUNT` times."""
    counts: dict[float, float] = {}
    for score in scores:
        key = round(score, 9)
        counts[key] = counts.get(key, 0.0) + 1.0
    for category in (0.0, 1.0, *categories):
        counts.setdefault(round(category, 9), EPSILON_COUNT)
    total = sum(counts.values())
    return total, [(value, counts[value] / total) for value in sorted(counts)]


def _mean(pdf: Sequence[tuple[float, float]]) -> float:
    return sum(value * probability for value, probability in pdf)


def most_likely(pdf: Sequence[tuple[float, float]], mean: float) -> list[float]:
    """The probabilities closest (in likelihood) to `pdf` whose mean score is `mean`:
    p_i / (1 + x (a_i - mean)), x the root of sum p_i (a_i - mean) / (1 + x (a_i - mean))."""
    shifted = [(value - mean, probability) for value, probability in pdf]
    low = -1 / max(value for value, _ in shifted)
    high = -1 / min(value for value, _ in shifted)

    def slope(x: float) -> float:
        return sum(p * a / (1 + x * a) for a, p in shifted)

    # The function falls from +inf to -inf between the poles: bisect (to double precision).
    margin = (high - low) * 1e-12
    low, high = low + margin, high - margin
    for _ in range(200):
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    x = (low + high) / 2
    return [p / (1 + x * a) for a, p in shifted]


def llr(scores: Sequence[float], s0: float, s1: float,
        categories: Sequence[float] = ()) -> float:
    """The generalised log-likelihood ratio of mean score s1 against s0 for these groups'
    scores (0.0 before any group has finished)."""
    if not scores:
        return 0.0
    total, pdf = distribution(scores, categories)
    if not pdf[0][0] < s0 < pdf[-1][0] or not pdf[0][0] < s1 < pdf[-1][0]:
        raise ValueError("s0 and s1 must lie strictly between the lowest and highest score")
    under0, under1 = most_likely(pdf, s0), most_likely(pdf, s1)
    return total * sum(p * (math.log(q1) - math.log(q0))
                       for (_, p), q0, q1 in zip(pdf, under0, under1, strict=True))


@dataclass(frozen=True)
class Verdict:
    llr: float
    lower: float
    upper: float

    @property
    def decision(self) -> str:
        """"H1", "H0" or "open"."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return "open"


def test(scores: Sequence[float], elo0: float, elo1: float, alpha: float, beta: float,
         players: int = 2, categories: Sequence[float] = PENTANOMIAL) -> Verdict:
    """The GSPRT's verdict on these groups' scores."""
    s0, s1 = expected_score(elo0, players), expected_score(elo1, players)
    lower, upper = bounds(alpha, beta)
    return Verdict(llr(scores, s0, s1, categories), lower, upper)


def elo_of(score: float, players: int = 2) -> float:
    """The Elo difference a mean share corresponds to (inverse of `expected_score`)."""
    score = min(max(score, 1e-6), 1 - 1e-6)
    return 400 * math.log10(score * (players - 1) / (1 - score))
