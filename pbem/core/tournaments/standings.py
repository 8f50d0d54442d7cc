"""Standings and tie-breaks, computed from results alone (pure: no database, no clock).

Points first, then the format's tie-breaks:

- round robins: Sonneborn-Berger (each opponent's points times what one scored against them)
  and direct encounter (points scored in the games among the players still tied);
- Swiss: Buchholz (the sum of the opponents' points) and median Buchholz (the same without the
  highest and the lowest);
- tables (Mimic Taking): the number of tables won.

Unplayed games follow the FIDE handbook (C.02, "Handling of unplayed games for the
calculation of Buchholz", 2009): for a player's own unplayed round (a bye, a forfeit won or
lost) they are counted as having met a *virtual opponent* who had the player's points before
that round, the opposite result in it, and a draw in every later round; and in their
opponents' Buchholz every unplayed result of theirs counts as a draw. Sonneborn-Berger counts
played games only (a forfeit win brings no tie-break points), as the handbook's note says.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Game:
    """One finished game of a tournament, as standings see it: the round, the players in seat
    order, the tournament points each won, and whether it was played (a bye, or a forfeit
    after a withdrawal, is not). A bye is a game of one player."""

    round: int
    players: tuple[int, ...]
    points: tuple[float, ...]
    played: bool = True


@dataclass(frozen=True)
class Standing:
    rank: int
    player: int
    points: float
    tiebreaks: dict[str, float] = field(default_factory=dict)


TIEBREAKS = {
    "round-robin": ("sonneborn_berger", "direct_encounter"),
    "double-round-robin": ("sonneborn_berger", "direct_encounter"),
    "swiss": ("buchholz", "median_buchholz"),
    "knockout": (),
    "tables": ("tables_won",),
}


def points(players: Iterable[int], games: Iterable[Game]) -> dict[int, float]:
    total = {p: 0.0 for p in players}
    for game in games:
        for player, won in zip(game.players, game.points, strict=True):
            total[player] = total.get(player, 0.0) + won
    return total


def sonneborn_berger(players: Iterable[int], games: Sequence[Game]) -> dict[int, float]:
    """For each played game: the opponent's final points times the share one scored against
    them (a win counts them whole, a draw half, a loss nothing)."""
    total = points(players, games)
    sb = {p: 0.0 for p in total}
    for game in games:
        if not game.played or len(game.players) != 2:
            continue
        (a, b), (pa, pb) = game.players, game.points
        sb[a] += pa * total[b]
        sb[b] += pb * total[a]
    return sb


def direct_encounter(players: Iterable[int], games: Sequence[Game]) -> dict[int, float]:
    """Points each player scored in the games between players on the same points as them, by
    FIDE's rule: only for a group of tied players who have all met each other; in a group
    where some pair never met, the tie-break is not applied (0 for each of them)."""
    total = points(players, games)
    de = {p: 0.0 for p in total}
    met: set[frozenset[int]] = set()
    for game in games:
        if len(game.players) != 2:
            continue
        (a, b), (pa, pb) = game.players, game.points
        if total[a] == total[b]:
            de[a] += pa
            de[b] += pb
            met.add(frozenset((a, b)))
    groups: dict[float, list[int]] = defaultdict(list)
    for player, score in total.items():
        groups[score].append(player)
    for group in groups.values():
        if any(frozenset((a, b)) not in met for i, a in enumerate(group) for b in group[i + 1:]):
            for player in group:
                de[player] = 0.0
    return de


def _round_points(games: Sequence[Game]) -> dict[int, dict[int, float]]:
    per: dict[int, dict[int, float]] = defaultdict(dict)
    for game in games:
        for player, won in zip(game.players, game.points, strict=True):
            per[player][game.round] = per[player].get(game.round, 0.0) + won
    return per


def opponent_scores(players: Iterable[int], games: Sequence[Game], rounds: int
                    ) -> dict[int, list[float]]:
    """Each player's opponents' points, one per round played so far (`rounds`), unplayed
    rounds by FIDE's virtual opponent (see the module's docstring)."""
    listed = list(players)
    per_round = _round_points(games)
    unplayed: dict[int, set[int]] = defaultdict(set)
    met: dict[int, dict[int, int]] = defaultdict(dict)
    for game in games:
        if game.played and len(game.players) == 2:
            a, b = game.players
            met[a][game.round], met[b][game.round] = b, a
        else:
            for player in game.players:
                unplayed[player].add(game.round)

    def adjusted(player: int) -> float:
        # What a player brings to their opponents' Buchholz: unplayed results as draws.
        own = per_round.get(player, {})
        return sum(own.get(r, 0.0) if r in met[player] else 0.5 for r in range(1, rounds + 1))

    scores: dict[int, list[float]] = {}
    for player in listed:
        own = per_round.get(player, {})
        found = []
        for r in range(1, rounds + 1):
            if r in met[player]:
                found.append(adjusted(met[player][r]))
            else:
                # Absent from round r (no game at all counts as a forfeit loss): the virtual
                # opponent had the player's points before r, the opposite result in r, and
                # draws after.
                before = sum(own.get(earlier, 0.0) for earlier in range(1, r))
                found.append(before + (1.0 - own.get(r, 0.0)) + 0.5 * (rounds - r))
        scores[player] = found
    return scores


def buchholz(players: Iterable[int], games: Sequence[Game], rounds: int) -> dict[int, float]:
    return {p: sum(s) for p, s in opponent_scores(players, games, rounds).items()}


def median_buchholz(players: Iterable[int], games: Sequence[Game], rounds: int
                    ) -> dict[int, float]:
    """Buchholz without the best and the worst opponent (nothing to cut below three)."""
    found = {}
    for player, scores in opponent_scores(players, games, rounds).items():
        ordered = sorted(scores)
        found[player] = sum(ordered[1:-1]) if len(ordered) > 2 else sum(ordered)
    return found


def tables_won(players: Iterable[int], games: Sequence[Game]) -> dict[int, float]:
    won = {p: 0.0 for p in players}
    for game in games:
        if len(game.players) > 1 and game.played:
            best = max(game.points)
            for player, got in zip(game.players, game.points, strict=True):
                if got == best:
                    won[player] += 1
    return won


def standings(fmt: str, players: Sequence[int], games: Sequence[Game], rounds: int,
              seed_order: Sequence[int] | None = None) -> list[Standing]:
    """The table: points, then the format's tie-breaks, then the seed order (join order or
    rating). Players equal on everything share a rank."""
    if fmt not in TIEBREAKS:
        raise ValueError(f"{fmt!r} is not a tournament format")
    total = points(players, games)
    breaks: dict[str, dict[int, float]] = {}
    for name in TIEBREAKS[fmt]:
        if name == "sonneborn_berger":
            breaks[name] = sonneborn_berger(players, games)
        elif name == "direct_encounter":
            breaks[name] = direct_encounter(players, games)
        elif name == "buchholz":
            breaks[name] = buchholz(players, games, rounds)
        elif name == "median_buchholz":
            breaks[name] = median_buchholz(players, games, rounds)
        elif name == "tables_won":
            breaks[name] = tables_won(players, games)
    seed = {p: i for i, p in enumerate(seed_order or players)}

    def key(player: int) -> tuple[float, ...]:
        return (-total[player], *(-breaks[name][player] for name in TIEBREAKS[fmt]))

    ordered = sorted(players, key=lambda p: (key(p), seed.get(p, len(seed))))
    table: list[Standing] = []
    for i, player in enumerate(ordered):
        rank = table[-1].rank if table and key(ordered[i - 1]) == key(player) else i + 1
        table.append(Standing(rank, player, total[player],
                              {name: breaks[name][player] for name in TIEBREAKS[fmt]}))
    return table
