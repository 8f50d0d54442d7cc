"""The pure side of leagues and ladders: no database, no clock (like `pbem/games`).

A player is an `int` (their player id). The service reads what happened, asks here what
follows, and writes it; `pbem leagues rebuild` asks the same questions of the same history, so
its answers are the same.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pbem.core.tournaments.pairing import (
    SwissPlayer,
    rank_points,
    round_robin,
    table_sizes,
    tables_round,
)
from pbem.core.tournaments.standings import Game, Standing, standings

# --- Leagues ---------------------------------------------------------------------------------


def seed_divisions(players: Sequence[int], size: int) -> list[list[int]]:
    """Cut `players` (best first) into divisions of `size`, the top division first. A last
    division shorter than half a division joins the one above it, so nobody plays a season
    in a division of two."""
    divisions = [list(players[i:i + size]) for i in range(0, len(players), size)]
    if len(divisions) > 1 and len(divisions[-1]) * 2 < size:
        last = divisions.pop()
        divisions[-1] += last
    return divisions


def playable(count: int, table_size: int | None) -> bool:
    """Whether a division of `count` can play a season: two players at least for two-player
    games; tables of three and four (never five, which cannot be seated) otherwise."""
    if table_size is None:
        return count >= 2
    return count >= 3 and count != 5


def fit_tables(divisions: list[list[int]]) -> list[list[int]]:
    """Divisions for tables of three and four: a last division that cannot be seated (fewer
    than three, or five) joins the one above it."""
    fitted = [list(d) for d in divisions]
    while len(fitted) > 1 and not playable(len(fitted[-1]), 3):
        last = fitted.pop()
        fitted[-1] += last
    return fitted


def schedule(players: Sequence[int], table_size: int | None, seed: int) -> list[tuple[int, ...]]:
    """A division's games for a season, each a tuple of players in seat order.

    Two-player games: a double round robin, every pair twice with seats swapped. Tables of
    three or four (`table_size`): as many rounds as there are other players, each seated by
    the tournaments' table pairing (`tables_round`, which swaps between tables to spare
    meetings) from the best of a few shuffled orders (the fewest repeated meetings, counted
    squared), so every pair meets about equally often."""
    if table_size is None:
        return [pair for rounds in round_robin(list(players), double=True) for pair in rounds]
    rng = random.Random(seed)
    met: Counter[tuple[int, int]] = Counter()
    firsts: Counter[int] = Counter()
    games: list[tuple[int, ...]] = []
    sizes = _sizes(len(players), table_size)
    for _round in range(len(players) - 1):
        tried: list[tuple[int, list[tuple[int, ...]]]] = []
        for _try in range(TRIES):
            order = list(players)
            rng.shuffle(order)
            ranked = [SwissPlayer(p, 0.0, seat_balance=firsts[p]) for p in order]
            candidates = [_greedy_tables(order, sizes, met)]
            if sorted(table_sizes(len(order))) == sorted(sizes):
                candidates.append(tables_round(ranked, met))
            for seating in candidates:
                tried.append((sum((met[pair] + 1) ** 2 for table in seating
                                  for pair in _pairs(table)), seating))
        for seated in min(tried, key=lambda t: t[0])[1]:
            # The first seat to whoever had it least.
            table = tuple(sorted(seated, key=lambda p: firsts[p]))
            games.append(table)
            firsts[table[0]] += 1
            met.update(_pairs(table))
    return games


TRIES = 24  # shuffled orders tried per round of tables


def _sizes(count: int, table_size: int) -> list[int]:
    """The tables of a round: all of `table_size` when that divides the division, else the
    tournaments' mix of fours and threes."""
    if count % table_size == 0:
        return [table_size] * (count // table_size)
    return table_sizes(count)


def _greedy_tables(order: list[int], sizes: list[int], met: Counter[tuple[int, int]]
                   ) -> list[tuple[int, ...]]:
    """Tables filled one seat at a time with whoever has met the table's players least."""
    left = list(order)
    tables: list[tuple[int, ...]] = []
    for size in sizes:
        table = [left.pop(0)]
        while len(table) < size and left:
            best = min(left, key=lambda p: sum(met[(p, q) if p < q else (q, p)] for q in table))
            left.remove(best)
            table.append(best)
        tables.append(tuple(table))
    return tables


def _pairs(table: Sequence[int]) -> list[tuple[int, int]]:
    return [(a, b) if a < b else (b, a) for i, a in enumerate(table) for b in table[i + 1:]]


@dataclass(frozen=True)
class Result:
    """A finished league game: its players in seat order, the winners' seats, the seats'
    scores, and the seats whose clock ran out. `counted` is false for an aborted game."""

    players: tuple[int, ...]
    winners: tuple[int, ...]
    scores: tuple[float, ...]
    timed_out: tuple[int, ...] = ()
    counted: bool = True


def division_standings(players: Sequence[int], results: Iterable[Result],
                       tables: bool) -> list[Standing]:
    """Points by finishing place (a win 1, a draw ½ at two seats; the share of the table one
    finished above at three or four), then the tournaments' tie-breaks (Sonneborn-Berger and
    direct encounter for two seats, tables won for tables), then the seeding order."""
    games = [Game(1, r.players, tuple(rank_points(r.winners, r.scores)), r.counted)
             for r in results if r.counted]
    return standings("tables" if tables else "double-round-robin", list(players), games, 1,
                     seed_order=list(players))


def timed_out_of_most(players: Sequence[int], results: Iterable[Result],
                      scheduled: Counter[int]) -> set[int]:
    """Players whose clock ran out in more than half their scheduled games."""
    lost: Counter[int] = Counter()
    for result in results:
        for seat in result.timed_out:
            lost[result.players[seat]] += 1
    return {p for p in players if scheduled[p] and lost[p] * 2 > scheduled[p]}


def next_divisions(tables: Sequence[Sequence[int]], promote: int, relegate: int, size: int,
                   leaving: set[int], hold: set[int], arriving: Sequence[int]) -> list[list[int]]:
    """Next season's divisions from this season's standings (`tables`: each division's players
    best first, the top division first): the top `promote` of a division go up one, the
    bottom `relegate` go down one (nobody above the top or below the bottom); those leaving
    or on hold drop out; players arriving (new, or back from a season on hold) enter the
    lowest division; then the order is cut into divisions again (`seed_divisions`)."""
    moved: list[list[int]] = [[] for _ in tables]
    for d, table in enumerate(tables):
        up = promote if d > 0 else 0
        down = relegate if d < len(tables) - 1 else 0
        down = min(down, max(0, len(table) - up))
        stay = table[up:len(table) - down]
        moved[d] = [*moved[d], *stay] if d else [*stay]
        if up:
            moved[d - 1].extend(table[:up])  # promoted: below those who stayed up there
        if down:
            moved[d + 1] = [*table[len(table) - down:], *moved[d + 1]]
    order = [p for division in moved for p in division if p not in leaving and p not in hold]
    order += [p for p in arriving if p not in order and p not in leaving]
    return seed_divisions(order, size)


def moves(table: Sequence[int], division: int, divisions: int, promote: int,
          relegate: int) -> dict[int, str]:
    """Who of a division's standings (best first; division 1 the top) goes "up" or "down",
    as `next_divisions` moves them."""
    up = promote if division > 1 else 0
    down = min(relegate if division < divisions else 0, max(0, len(table) - up))
    found = {p: "up" for p in table[:up]}
    found.update({p: "down" for p in table[len(table) - down:]})
    return found


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation (ties share their mean rank)."""
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5 if vx and vy else 0.0


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2
        i = j + 1
    return ranks


# --- Ladders ---------------------------------------------------------------------------------

HOLD_AGAIN_DAYS = 60  # a second timeout within this many days drops a player to the bottom


@dataclass(frozen=True)
class LadderStep:
    """One event of a ladder's history (`LadderEvent`): `kind` is join, back (off hold),
    leave, result (player won against `other`) or timeout (player's clock ran out); `day`
    is when, in days."""

    kind: str
    player: int
    other: int | None = None
    day: float = 0.0


@dataclass(frozen=True)
class LadderState:
    places: list[int]  # player ids, place 1 first
    on_hold: set[int]


def ladder_places(steps: Iterable[LadderStep]) -> LadderState:
    """Replay a ladder's history: a join takes the bottom place; a leave closes the gap; a
    challenger who beats a player above takes that place and everyone between moves down
    one (a win against someone below changes nothing); a first timeout puts a player on hold
    (place kept), a second within `HOLD_AGAIN_DAYS` drops them to the bottom; coming back
    (`back`) or winning a game takes a player off hold."""
    places: list[int] = []
    hold: set[int] = set()
    last_timeout: dict[int, float] = {}
    for step in steps:
        if step.kind == "join" and step.player not in places:
            places.append(step.player)
        elif step.kind == "back":
            hold.discard(step.player)
        elif step.kind == "leave" and step.player in places:
            places.remove(step.player)
            hold.discard(step.player)
        elif step.kind == "result" and step.other is not None:
            _take_place(places, step.player, step.other)
            hold.discard(step.player)
        elif step.kind == "timeout" and step.player in places:
            before = last_timeout.get(step.player)
            last_timeout[step.player] = step.day
            if before is not None and step.day - before <= HOLD_AGAIN_DAYS:
                places.remove(step.player)
                places.append(step.player)
            hold.add(step.player)
    return LadderState(places, hold)


def _take_place(places: list[int], winner: int, loser: int) -> None:
    if winner not in places or loser not in places:
        return
    at, there = places.index(winner), places.index(loser)
    if there < at:
        places.remove(winner)
        places.insert(there, winner)


def may_challenge(places: Sequence[int], challenger: int, defender: int, reach: int) -> bool:
    """Whether `challenger` may challenge `defender`: someone above, at most `reach` places."""
    if challenger not in places or defender not in places:
        return False
    gap = places.index(challenger) - places.index(defender)
    return 0 < gap <= reach
