"""Who plays whom: round robins, Swiss rounds, knockout brackets and Mimic Taking tables.

Pure functions over small values, no database and no clock (like `pbem/games`): the service
(`service.py`) reads a tournament's entries and results, asks here for the next round, and
creates the matches. A player is an `int` (the entry's id); a pairing is a tuple of players in
seat order (the first is the first seat).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

Pair = tuple[int, int]


# --- Round robin -------------------------------------------------------------------------


def round_robin(players: Sequence[int], double: bool = False) -> list[list[Pair]]:
    """Every round of a round robin by the circle method (Berger tables): player `players[-1]`
    (or the bye, with an odd count) stays put while the others turn one place a round. Each
    pair meets once; in a double the second half repeats the first with seats swapped. First
    seats are balanced: no player's count of first seats differs from another's by more than
    one in a single round robin (the fixed player alternates, the others take the first seat
    on the top row of the circle, which turns by half its size a round as in Berger's
    tables).

    A player drawn against the bye (odd counts) simply sits that round out: a round robin's
    byes score nothing, everyone has exactly one."""
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    slots: list[int | None] = list(players)
    if len(slots) % 2:
        slots.append(None)
    count = len(slots)
    rounds: list[list[Pair]] = []
    circle = slots[:-1]
    fixed = slots[-1]
    for number in range(count - 1):
        pairs: list[Pair] = []
        top = circle[0]
        # The fixed player takes the first seat every other round.
        first, second = (top, fixed) if number % 2 == 0 else (fixed, top)
        if first is not None and second is not None:
            pairs.append((first, second))
        for i in range(1, count // 2):
            a, b = circle[i], circle[-i]
            if a is not None and b is not None:
                pairs.append((a, b))
        rounds.append(pairs)
        # Turn the circle by half its size so seats alternate (Berger's rotation).
        shift = count // 2 - 1 if count > 2 else 0
        circle = circle[-shift:] + circle[:-shift] if shift else circle
    if double:
        rounds += [[(b, a) for a, b in pairs] for pairs in rounds]
    return rounds


# --- Swiss ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwissPlayer:
    """A player as the Swiss pairing sees them: their score, whom they have met, their seats
    so far (+1 for each first seat, -1 for each second) and whether they had a bye."""

    player: int
    score: float
    opponents: frozenset[int] = frozenset()
    seat_balance: int = 0
    last_seat: int | None = None  # 0 = first seat, 1 = second, in their last game
    had_bye: bool = False


@dataclass(frozen=True)
class SwissRound:
    pairs: list[Pair]
    bye: int | None = None
    # What could not be avoided (reported on the pairings page and checked by the tests).
    repeats: list[Pair] = field(default_factory=list)


def swiss_round(ranked: Sequence[SwissPlayer], window: int = 8) -> SwissRound:
    """Pair one Swiss round; `ranked` is the current standing, best first.

    A maximum-weight perfect matching (networkx's blossom algorithm) over the players and, with
    an odd count, one extra vertex for the bye. The FIDE Dutch system's principles, in its
    order, each outweighing all the ones below it together, so the matching is exact:

    1. no rematch, no second bye, and no two players both two first seats up (or down) meet
       (FIDE's absolute criteria C1 to C3), while a pairing without one exists;
    2. score groups are paired from the top down: the fewest players leave the top group (to
       meet someone lower, or for the bye), then the fewest leave the top two groups, and so
       on (`floaters`), so two leaders meet whenever a legal pairing lets them;
    3. first-seat balance: the fewest pairs whose players both want the same seat;
    4. the bye to the lowest-ranked player without one;
    5. inside a score group the top half meets the bottom half (the fold), a floater meets the
       nearest in rank.

    For speed the graph first holds only edges between players close in a folded order (score
    groups kept together, each group's halves interleaved, so a player's natural opponents are
    near: `window` places either way); if that finds no perfect matching, or one that might be
    beaten on the first two principles by the whole graph (`_clean`), a window five times as
    wide is tried, then the whole graph."""
    if len({p.player for p in ranked}) != len(ranked):
        raise ValueError("a player is listed twice")
    if len(ranked) < 2:
        return SwissRound([], ranked[0].player if ranked else None)
    costs = _Costs(ranked)
    order = costs.folded_order()
    for width in (window, 5 * window):
        if len(order) > 2 * width + 2:
            found = _match(costs, order, width)
            if found is not None and _clean(found, costs):
                return found
    result = _match(costs, order, None)
    if result is None:  # a complete graph always has a perfect matching
        raise RuntimeError("no Swiss pairing found")
    return result


BYE = -1  # the bye's vertex in the matching graph (entry ids are positive)


def seat_wish(player: SwissPlayer) -> int | None:
    """The seat a player wants next (0 first, 1 second): the one they had less often, else the
    one they did not have last time; None before their first game."""
    if player.seat_balance:
        return 1 if player.seat_balance > 0 else 0
    return None if player.last_seat is None else 1 - player.last_seat


def floaters(pairs: Sequence[Sequence[int]], bye: int | None,
             group_of: dict[int, int], groups: int) -> list[int]:
    """For each score group from the top, how many players of it and the groups above meet
    someone below it (or have the bye, which sits below every group): FIDE's downfloaters,
    counted bracket by bracket. Fewer from the top wins (compared as a list)."""
    counts = [0] * groups
    spans = [sorted(group_of[p] for p in pair) for pair in pairs]
    if bye is not None:
        spans.append([group_of[bye], groups])
    for low, high in spans:
        for g in range(low, min(high, groups)):
            counts[g] += 1
    return counts


class _Costs:
    def __init__(self, ranked: Sequence[SwissPlayer]) -> None:
        self.ranked = list(ranked)
        self.by_id = {p.player: p for p in ranked}
        self.rank = {p.player: i for i, p in enumerate(ranked)}
        n = len(ranked)
        # Score groups, best first, and each player's place inside their group.
        groups: dict[float, list[int]] = {}
        for p in sorted(ranked, key=lambda p: -p.score):
            groups.setdefault(p.score, []).append(p.player)
        self.groups = groups
        self.group_of = {pid: g for g, members in enumerate(groups.values()) for pid in members}
        self.place = {pid: (i, len(members)) for members in groups.values()
                      for i, pid in enumerate(members)}
        eligible = [p.player for p in ranked if not p.had_bye] or [p.player for p in ranked]
        # 0 for the lowest-ranked player who may have the bye, growing upwards.
        self.bye_order = {pid: i for i, pid in enumerate(reversed(eligible))}
        # Each level outweighs everything below it summed over a whole round (`pairs` edges).
        pairs = n // 2 + 1
        self.fold_unit = 1
        self.bye_unit = self.fold_unit * (pairs * (n + 1) + 1)
        self.wish_unit = self.bye_unit * (n + 1)
        # One unit per boundary below a score group, the lowest boundary cheapest.
        self.float_units: list[int] = []
        unit = self.wish_unit * (pairs + 1)
        for _ in groups:
            self.float_units.insert(0, unit)
            unit *= pairs + 1
        self.clash_unit = unit
        self.bye_again_unit = self.clash_unit * (pairs + 1)
        self.repeat_unit = self.bye_again_unit * (pairs + 1)
        self.top = self.repeat_unit * (pairs + 1)

    def folded_order(self) -> list[int]:
        order: list[int] = []
        for members in self.groups.values():
            half = (len(members) + 1) // 2
            top, bottom = members[:half], members[half:]
            for i, pid in enumerate(top):
                order.append(pid)
                if i < len(bottom):
                    order.append(bottom[i])
        return order

    def pair_cost(self, a: int, b: int) -> int:
        pa, pb = self.by_id[a], self.by_id[b]
        cost = 0
        if b in pa.opponents:
            cost += self.repeat_unit
        if self.seat_clash(a, b):
            cost += self.clash_unit
        low, high = sorted((self.group_of[a], self.group_of[b]))
        cost += sum(self.float_units[low:high])
        wish = seat_wish(pa)
        if wish is not None and wish == seat_wish(pb):
            cost += self.wish_unit
        if low == high:
            (ia, size), (ib, _) = self.place[a], self.place[b]
            cost += self.fold_unit * abs(abs(ia - ib) - size // 2)
        else:
            cost += self.fold_unit * abs(self.rank[a] - self.rank[b])
        return cost

    def seat_clash(self, a: int, b: int) -> bool:
        """Both two first seats up (or both down): one of them would go to three."""
        pa, pb = self.by_id[a].seat_balance, self.by_id[b].seat_balance
        return (pa >= 2 and pb >= 2) or (pa <= -2 and pb <= -2)

    def bye_cost(self, a: int) -> int:
        player = self.by_id[a]
        cost = self.bye_unit * self.bye_order.get(a, len(self.ranked))
        cost += sum(self.float_units[self.group_of[a]:])
        if player.had_bye:
            cost += self.bye_again_unit
        return cost

    def floaters(self, found: SwissRound) -> list[int]:
        return floaters(found.pairs, found.bye, self.group_of, len(self.groups))


def _match(costs: _Costs, order: list[int], window: int | None) -> SwissRound | None:
    # Imported here, when a Swiss round is paired: networkx is 11 MiB of every web worker's
    # memory otherwise, for a job a tournament's organiser starts a few times a week.
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(order)
    for i, a in enumerate(order):
        others = order[i + 1:] if window is None else order[i + 1:i + 1 + window]
        for b in others:
            graph.add_edge(a, b, weight=costs.top - costs.pair_cost(a, b))
    if len(order) % 2:
        for a in order:
            graph.add_edge(a, BYE, weight=costs.top - costs.bye_cost(a))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != graph.number_of_nodes():
        return None
    pairs: list[Pair] = []
    bye = None
    repeats: list[Pair] = []
    for a, b in matching:
        if BYE in (a, b):
            bye = b if a == BYE else a
            continue
        if b in costs.by_id[a].opponents:
            repeats.append((a, b))
        pairs.append(seat_pair(costs.by_id[a], costs.by_id[b], costs.rank))
    pairs.sort(key=lambda pair: min(costs.rank[pair[0]], costs.rank[pair[1]]))
    return SwissRound(pairs, bye, repeats)


def _clean(found: SwissRound, costs: _Costs) -> bool:
    """A pairing found in a window is kept only if the whole graph cannot beat it on the
    first two principles: no rematch, no second bye, no two players both two first seats up
    or down, and no score group (with those above it) sending down more than the one player
    an odd count must (the least any pairing can)."""
    if found.repeats or _second_bye(found, costs):
        return False
    if any(costs.seat_clash(a, b) for a, b in found.pairs):
        return False
    above = 0
    for sent, members in zip(costs.floaters(found), costs.groups.values(), strict=True):
        above += len(members)
        if sent > above % 2:
            return False
    return True


def _second_bye(found: SwissRound, costs: _Costs) -> bool:
    return (found.bye is not None and costs.by_id[found.bye].had_bye
            and any(not p.had_bye for p in costs.ranked))


def seat_pair(a: SwissPlayer, b: SwissPlayer, rank: dict[int, int]) -> Pair:
    """Who takes the first seat: the one who had it less often; then the one who had the second
    seat last time; then the higher-ranked player."""
    if a.seat_balance != b.seat_balance:
        return (a.player, b.player) if a.seat_balance < b.seat_balance else (b.player, a.player)
    if a.last_seat != b.last_seat and a.last_seat is not None and b.last_seat is not None:
        return (a.player, b.player) if a.last_seat == 1 else (b.player, a.player)
    return (a.player, b.player) if rank[a.player] < rank[b.player] else (b.player, a.player)


# --- Knockout ------------------------------------------------------------------------------


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1 = best) in bracket order for a bracket of `size` (a power of two), so
    that seeds 1 and 2 can meet only in the final, 1-4 only in the semi-finals, and so on:
    [1, 8, 4, 5, 2, 7, 3, 6] for 8."""
    if size < 1 or size & (size - 1):
        raise ValueError("a bracket's size is a power of two")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for s in order for seed in (s, total - s)]
    return order


def knockout_first_round(seeded: Sequence[int]) -> list[tuple[int, int | None]]:
    """The first round's ties, in bracket order: (higher seed, lower seed or None for a bye).
    `seeded` is best first; byes go to the top seeds (they face the empty slots)."""
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least two players")
    size = 1
    while size < len(seeded):
        size *= 2
    order = bracket_order(size)
    ties: list[tuple[int, int | None]] = []
    for i in range(0, size, 2):
        high, low = sorted((order[i], order[i + 1]))
        ties.append((seeded[high - 1], seeded[low - 1] if low <= len(seeded) else None))
    return ties


@dataclass(frozen=True)
class TieState:
    """Where a knockout tie stands: decided (`winner`), or the next game's seats."""

    winner: int | None
    next_game: Pair | None


def knockout_tie(higher: int, lower: int, games: Sequence[tuple[Pair, int | None]],
                 max_replays: int) -> TieState:
    """A tie between two players: each game is (its seats, its winner or None for a draw). A
    decisive game decides; a drawn one is replayed with seats swapped, at most `max_replays`
    times; after that the higher seed goes through. Before any game the higher seed has the
    first seat."""
    if not games:
        return TieState(None, (higher, lower))
    seats, winner = games[-1]
    if winner is not None:
        if winner not in (higher, lower):
            raise ValueError("the winner of a tie's game is one of its two players")
        return TieState(winner, None)
    if len(games) > max_replays:
        return TieState(higher, None)
    return TieState(None, (seats[1], seats[0]))


def next_knockout_round(winners_in_bracket_order: Sequence[int],
                        seed_of: dict[int, int]) -> list[tuple[int, int]]:
    """The next round's ties from the last round's winners, neighbours in the bracket meeting;
    the better seed (lower number) is the tie's higher player."""
    if len(winners_in_bracket_order) % 2:
        raise ValueError("a knockout round has an even number of winners")
    ties = []
    for i in range(0, len(winners_in_bracket_order), 2):
        a, b = winners_in_bracket_order[i], winners_in_bracket_order[i + 1]
        ties.append((a, b) if seed_of[a] < seed_of[b] else (b, a))
    return ties


def knockout_rounds(players: int) -> int:
    size, rounds = 1, 0
    while size < players:
        size *= 2
        rounds += 1
    return rounds


# --- Mimic Taking tables -------------------------------------------------------------------


def table_sizes(players: int) -> list[int]:
    """Tables of four, and of three where four does not divide: 7 → [4, 3], 9 → [3, 3, 3].
    Five players cannot sit at tables of three and four."""
    if players in (3, 4):
        return [players]
    if players < 6:
        raise ValueError(f"{players} players cannot sit at tables of three and four")
    threes = (4 - players % 4) % 4
    fours = (players - 3 * threes) // 4
    return [4] * fours + [3] * threes


def tables_round(ranked: Sequence[SwissPlayer], met: Counter[Pair] | None = None
                 ) -> list[tuple[int, ...]]:
    """Seat a round at tables of three and four by score (best players together, like a Swiss
    round), then swap neighbours between adjacent tables where that lowers the number of
    players meeting again; inside a table, the player with the fewest first seats sits first
    (`seat_balance` counts a player's first seats here)."""
    met = met or Counter()
    sizes = table_sizes(len(ranked))
    order = [p.player for p in ranked]
    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(order[start:start + size])
        start += size

    def meetings(table: list[int]) -> int:
        return sum(met[_key(a, b)] for i, a in enumerate(table) for b in table[i + 1:])

    improved = True
    while improved:
        improved = False
        for t in range(len(tables) - 1):
            upper, lower = tables[t], tables[t + 1]
            before = meetings(upper) + meetings(lower)
            for i in range(len(upper)):
                for j in range(len(lower)):
                    upper[i], lower[j] = lower[j], upper[i]
                    if meetings(upper) + meetings(lower) < before:
                        improved = True
                        break
                    upper[i], lower[j] = lower[j], upper[i]
                if improved:
                    break
    by_id = {p.player: p for p in ranked}
    rank = {p.player: i for i, p in enumerate(ranked)}
    return [tuple(sorted(table, key=lambda pid: (by_id[pid].seat_balance, rank[pid])))
            for table in tables]


def _key(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def rank_points(winners: Sequence[int], scores: Sequence[float]) -> list[float]:
    """Tournament points from one finished game, by finishing place: the share of the other
    players at the table one finished above, a tie counting half (1, ⅔, ⅓, 0 at four; 1, ½,
    0 at three; 1 or ½ or 0 at two). Winners finish above everyone else; then scores."""
    count = len(scores)
    if count < 2:
        return [1.0] * count
    keys = [(seat in winners, scores[seat]) for seat in range(count)]
    points = []
    for seat in range(count):
        above = sum(1 for other in range(count) if other != seat and keys[seat] > keys[other])
        tied = sum(1 for other in range(count) if other != seat and keys[seat] == keys[other])
        points.append((above + tied / 2) / (count - 1))
    return points
