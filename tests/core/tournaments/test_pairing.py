"""Property tests of the pairings over many random tournaments (pure: no database)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field as dc_field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.tournaments.pairing import (
    SwissPlayer,
    SwissRound,
    bracket_order,
    knockout_first_round,
    knockout_rounds,
    knockout_tie,
    next_knockout_round,
    rank_points,
    round_robin,
    swiss_round,
    table_sizes,
    tables_round,
)

# --- round robin ----------------------------------------------------------------------------


@given(st.integers(min_value=2, max_value=40), st.booleans())
def test_every_round_robin_pair_meets_exactly_once_or_twice_swapped(count: int,
                                                                      double: bool) -> None:
    players = list(range(100, 100 + count))
    rounds = round_robin(players, double)
    slots = count + count % 2
    assert len(rounds) == (slots - 1) * (2 if double else 1)
    for pairs in rounds:  # nobody plays twice in a round
        seated = [p for pair in pairs for p in pair]
        assert len(seated) == len(set(seated))
    met = Counter(pair for pairs in rounds for pair in pairs)
    unordered = Counter(frozenset(pair) for pairs in rounds for pair in pairs)
    assert set(unordered) == {frozenset((a, b)) for a in players for b in players if a < b}
    if double:
        # Twice, once in each seat order.
        assert all(n == 2 for n in unordered.values())
        assert all(met[(a, b)] == 1 and met[(b, a)] == 1 for a, b in met)
    else:
        assert all(n == 1 for n in unordered.values())
    firsts = Counter(pair[0] for pairs in rounds for pair in pairs)
    spread = max(firsts[p] for p in players) - min(firsts[p] for p in players)
    assert spread <= (0 if double else 1)


def test_a_round_robin_refuses_a_player_listed_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        round_robin([1, 2, 2])


# --- Swiss ----------------------------------------------------------------------------------


@dataclass
class _Field:
    """A random Swiss tournament in play: scores, meetings, seats and byes so far."""

    count: int
    seed: int
    score: dict[int, float] = dc_field(default_factory=dict)
    opponents: dict[int, set[int]] = dc_field(default_factory=dict)
    balance: dict[int, int] = dc_field(default_factory=dict)
    last: dict[int, int | None] = dc_field(default_factory=dict)
    byes: dict[int, int] = dc_field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.ids = list(range(1, self.count + 1))
        self.rating = {p: self.rng.randint(1000, 2000) for p in self.ids}
        for p in self.ids:
            self.score[p], self.opponents[p], self.balance[p] = 0.0, set(), 0
            self.last[p], self.byes[p] = None, 0

    def ranked(self) -> list[SwissPlayer]:
        order = sorted(self.ids, key=lambda p: (-self.score[p], -self.rating[p]))
        return [SwissPlayer(p, self.score[p], frozenset(self.opponents[p]), self.balance[p],
                            self.last[p], self.byes[p] > 0) for p in order]

    def play(self, found: SwissRound) -> None:
        for a, b in found.pairs:
            self.opponents[a].add(b)
            self.opponents[b].add(a)
            self.balance[a] += 1
            self.balance[b] -= 1
            self.last[a], self.last[b] = 0, 1
            result = self.rng.choice((1.0, 0.5, 0.0))
            self.score[a] += result
            self.score[b] += 1 - result
        if found.bye is not None:
            self.byes[found.bye] += 1
            self.score[found.bye] += 1


def _rounds_of(count: int, rounds: int, seed: int, window: int = 8
               ) -> list[tuple[list[SwissPlayer], SwissRound]]:
    """Play a random Swiss tournament: each round's standing and the pairing it was given."""
    played = _Field(count, seed)
    out = []
    for _ in range(min(rounds, count - 1 + count % 2)):
        ranked = played.ranked()
        found = swiss_round(ranked, window=window)
        seated = [p for pair in found.pairs for p in pair] + ([found.bye] if found.bye else [])
        assert sorted(seated) == played.ids  # everyone plays or has the bye, once
        assert (found.bye is None) == (count % 2 == 0)
        out.append((ranked, found))
        played.play(found)
    return out


# The oracle: FIDE Dutch's principles, in order, for one pairing, written out plainly here
# and compared with every possible pairing of a small field.


def _principles(ranked: list[SwissPlayer], pairs: list[tuple[int, ...]], bye: int | None
                ) -> tuple[object, ...]:
    by_id = {p.player: p for p in ranked}
    scores = sorted({p.score for p in ranked}, reverse=True)
    group_of = {p.player: scores.index(p.score) for p in ranked}
    rematches = sum(1 for a, b in pairs if b in by_id[a].opponents)
    second_bye = int(bye is not None and by_id[bye].had_bye
                     and any(not p.had_bye for p in ranked))
    clashes = sum(1 for a, b in pairs
                  if _same_side(by_id[a].seat_balance, by_id[b].seat_balance))
    leaving = [0] * len(scores)  # per score group: how many of it and above meet lower
    for low, high in [sorted((group_of[a], group_of[b])) for a, b in pairs] + (
            [[group_of[bye], len(scores)]] if bye is not None else []):
        for g in range(low, min(high, len(scores))):
            leaving[g] += 1
    wishes = sum(1 for a, b in pairs
                 if _wish(by_id[a]) is not None and _wish(by_id[a]) == _wish(by_id[b]))
    return (rematches, second_bye, clashes, tuple(leaving), wishes)


def _wish(player: SwissPlayer) -> int | None:
    if player.seat_balance:
        return 1 if player.seat_balance > 0 else 0
    return None if player.last_seat is None else 1 - player.last_seat


def _all_pairings(players: list[int]) -> Iterator[tuple[list[tuple[int, ...]], int | None]]:
    if len(players) % 2:
        for bye in players:
            for pairs in _perfect([p for p in players if p != bye]):
                yield pairs, bye
    else:
        for pairs in _perfect(players):
            yield pairs, None


def _perfect(players: list[int]) -> Iterator[list[tuple[int, ...]]]:
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        for tail in _perfect(rest[:i] + rest[i + 1:]):
            yield [(first, other), *tail]


def _best_possible(ranked: list[SwissPlayer]) -> tuple[object, ...]:
    return min(_principles(ranked, pairs, bye)
               for pairs, bye in _all_pairings([p.player for p in ranked]))


def _check_principles(count: int, rounds: int, seed: int, levels: int) -> None:
    for ranked, found in _rounds_of(count, rounds, seed):
        # The first principle is three absolute criteria.
        got = _principles(ranked, found.pairs, found.bye)
        assert got[:levels + 2] == _best_possible(ranked)[:levels + 2], (ranked, found)


SMALL = (st.integers(min_value=2, max_value=9), st.integers(min_value=1, max_value=7),
         st.integers(min_value=0, max_value=2**32))


@settings(max_examples=40, deadline=None)
@given(*SMALL)
def test_swiss_never_pairs_a_rematch_while_a_pairing_without_one_exists(
        count: int, rounds: int, seed: int) -> None:
    # With a second bye and two players both two first seats up (or down): FIDE's absolute
    # criteria, broken only when every pairing breaks one.
    _check_principles(count, rounds, seed, levels=1)


@settings(max_examples=40, deadline=None)
@given(*SMALL)
def test_swiss_pairs_score_groups_from_the_top_with_the_fewest_floaters(
        count: int, rounds: int, seed: int) -> None:
    # Of the legal pairings, the fewest players leave the top score group, then the fewest
    # leave the top two, and so on: the leaders meet each other while they can.
    _check_principles(count, rounds, seed, levels=2)


@settings(max_examples=40, deadline=None)
@given(*SMALL)
def test_swiss_balances_first_seats_after_the_score_groups(
        count: int, rounds: int, seed: int) -> None:
    _check_principles(count, rounds, seed, levels=3)
    for ranked, found in _rounds_of(count, rounds, seed):
        by_id = {p.player: p for p in ranked}
        for a, b in found.pairs:  # the first seat to the one who had it less
            assert by_id[a].seat_balance <= by_id[b].seat_balance


@given(st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=6),
       st.integers(min_value=0, max_value=2**32))
def test_swiss_pairs_a_score_group_top_half_against_bottom_half(
        halves: list[int], seed: int) -> None:
    # Fresh players (no meetings, no seats yet) in score groups of even sizes: every group
    # folds, its i-th player meeting its (i + size/2)-th.
    rng = random.Random(seed)
    ranked, player = [], 1
    groups = []
    for g, half in enumerate(halves):
        members = list(range(player, player + 2 * half))
        player += 2 * half
        groups.append(members)
        ranked += [SwissPlayer(p, float(len(halves) - g)) for p in members]
    if len(ranked) < 2:
        return
    found = swiss_round(ranked, window=rng.choice((2, 3, 8)))
    expected = {frozenset((m[i], m[i + len(m) // 2])) for m in groups for i in range(len(m) // 2)}
    assert {frozenset(pair) for pair in found.pairs} == expected


@given(st.integers(min_value=2, max_value=24), st.integers(min_value=1, max_value=9),
       st.integers(min_value=0, max_value=2**32), st.sampled_from((2, 3)))
def test_swiss_windows_pair_as_well_as_the_whole_graph(
        count: int, rounds: int, seed: int, window: int) -> None:
    # Small windows make the fast first tries (a window of the folded order, then five times
    # it) run on small fields too: what they keep must be as good on every principle as the
    # whole graph's pairing on the first two principles (on seats a window may do less well:
    # that is the price of its speed).
    for ranked, found in _rounds_of(count, rounds, seed, window):
        whole = swiss_round(ranked, window=1000)
        assert (_principles(ranked, found.pairs, found.bye)[:4]
                == _principles(ranked, whole.pairs, whole.bye)[:4])


def test_round_two_pairs_the_two_leaders() -> None:
    # The reported case: six players; after round one 6 and 4 lead on a win each, 5 and 1
    # drew, 2 and 3 lost. The leaders' meeting leaves 5, 1, 2, 3, where 5 v 1 would be a
    # rematch, so two players float either way: the old costs (score gaps summed) took
    # 6 v 5 and 4 v 1; FIDE pairs the top score group first.
    ranked = [SwissPlayer(6, 1.0, frozenset({3}), 1, 0), SwissPlayer(4, 1.0, frozenset({2}), -1, 1),
              SwissPlayer(5, 0.5, frozenset({1}), -1, 1), SwissPlayer(1, 0.5, frozenset({5}), 1, 0),
              SwissPlayer(2, 0.0, frozenset({4}), 1, 0), SwissPlayer(3, 0.0, frozenset({6}), -1, 1)]
    found = swiss_round(ranked)
    assert {frozenset(pair) for pair in found.pairs} >= {frozenset((6, 4))}
    assert not found.repeats


def test_swiss_round_one_folds_the_field() -> None:
    # Eight players on no points: 1 v 5, 2 v 6, 3 v 7, 4 v 8 (top half meets bottom half).
    found = swiss_round([SwissPlayer(p, 0.0) for p in range(1, 9)])
    assert sorted(tuple(sorted(pair)) for pair in found.pairs) == [(1, 5), (2, 6), (3, 7),
                                                                   (4, 8)]


def test_swiss_pairs_equal_scores_before_near_ones() -> None:
    # Two leaders on 2, two on 1, two on 0: each pair is inside its score group.
    ranked = [SwissPlayer(1, 2.0), SwissPlayer(2, 2.0), SwissPlayer(3, 1.0),
              SwissPlayer(4, 1.0), SwissPlayer(5, 0.0), SwissPlayer(6, 0.0)]
    found = swiss_round(ranked)
    assert sorted(tuple(sorted(p)) for p in found.pairs) == [(1, 2), (3, 4), (5, 6)]


def test_the_swiss_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    ranked = [SwissPlayer(1, 1.0), SwissPlayer(2, 1.0), SwissPlayer(3, 0.0),
              SwissPlayer(4, 1.0, had_bye=True)]
    ranked = [ranked[0], ranked[1], ranked[3], SwissPlayer(3, 0.0), SwissPlayer(5, 0.0)]
    found = swiss_round(ranked)
    assert found.bye == 5


# --- knockout -------------------------------------------------------------------------------


@given(st.integers(min_value=2, max_value=70), st.integers(min_value=0, max_value=3),
       st.integers(min_value=0, max_value=2**32))
def test_knockout_brackets_are_consistent(count: int, max_replays: int, seed: int) -> None:
    rng = random.Random(seed)
    seeded = list(range(1, count + 1))  # 1 is the top seed
    seed_of = {p: p for p in seeded}
    first = knockout_first_round(seeded)
    size = 1 << knockout_rounds(count)
    assert len(first) == size // 2
    entered = [p for tie in first for p in tie if p is not None]
    assert sorted(entered) == seeded  # everyone once
    byes = sorted(high for high, low in first if low is None)
    assert byes == seeded[:size - count]  # byes to the top seeds
    alive = []
    for high, low in first:
        assert low is None or seed_of[high] < seed_of[low]
        alive.append(high if low is None else _play_tie(high, low, max_replays, rng))
    rounds = 1
    while len(alive) > 1:
        ties = next_knockout_round(alive, seed_of)
        alive = [_play_tie(high, low, max_replays, rng) for high, low in ties]
        rounds += 1
    assert rounds == knockout_rounds(count)
    assert len(alive) == 1


def _play_tie(high: int, low: int, max_replays: int, rng: random.Random) -> int:
    games: list[tuple[tuple[int, int], int | None]] = []
    while True:
        state = knockout_tie(high, low, games, max_replays)
        if state.winner is not None:
            assert len(games) <= max_replays + 1
            if all(winner is None for _, winner in games):
                assert state.winner == high  # drawn out: the higher seed goes through
            return state.winner
        assert state.next_game is not None
        if games:  # a replay swaps the seats
            assert state.next_game == (games[-1][0][1], games[-1][0][0])
        else:
            assert state.next_game == (high, low)
        games.append((state.next_game, rng.choice((None, high, low))))


def test_the_bracket_keeps_the_top_two_seeds_apart_until_the_final() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert knockout_first_round([11, 12, 13, 14, 15, 16]) == [
        (11, None), (14, 15), (12, None), (13, 16)]


# --- tables ---------------------------------------------------------------------------------


@given(st.integers(min_value=3, max_value=60).filter(lambda n: n != 5),
       st.integers(min_value=0, max_value=2**32))
def test_tables_seat_everyone_once_at_tables_of_three_or_four(count: int, seed: int) -> None:
    rng = random.Random(seed)
    sizes = table_sizes(count)
    assert sum(sizes) == count and set(sizes) <= {3, 4}
    ranked = [SwissPlayer(p, rng.choice((0.0, 1.0, 2.0))) for p in range(1, count + 1)]
    ranked.sort(key=lambda p: -p.score)
    tables = tables_round(ranked)
    assert sorted(p for table in tables for p in table) == list(range(1, count + 1))
    assert sorted(len(t) for t in tables) == sorted(sizes)


def test_five_players_cannot_sit_at_tables() -> None:
    with pytest.raises(ValueError, match="5 players"):
        table_sizes(5)


def test_rank_points_share_the_places() -> None:
    assert rank_points([0], [40, 30, 20, 10]) == [1.0, 2 / 3, 1 / 3, 0.0]
    assert rank_points([1], [1.0, 0.0]) == [0.0, 1.0]
    assert rank_points([0, 1], [0.5, 0.5]) == [0.5, 0.5]
    # Two tied for second at a table of three: each beat one and tied one of two others.
    assert rank_points([2], [5, 5, 9]) == [0.25, 0.25, 1.0]


def _same_side(a: int, b: int) -> bool:
    return (a >= 2 and b >= 2) or (a <= -2 and b <= -2)
