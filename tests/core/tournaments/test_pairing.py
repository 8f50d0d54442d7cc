"""Property tests of the pairings over many random tournaments (pure: no database)."""

from __future__ import annotations

import random
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.tournaments.pairing import (
    SwissPlayer,
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


def _play_swiss(count: int, rounds: int, seed: int, window: int = 8) -> None:
    """Play a random Swiss tournament, checking each round against an independent oracle."""
    rng = random.Random(seed)
    ids = list(range(1, count + 1))
    score = {p: 0.0 for p in ids}
    opponents: dict[int, set[int]] = {p: set() for p in ids}
    balance = {p: 0 for p in ids}
    last: dict[int, int | None] = {p: None for p in ids}
    byes = {p: 0 for p in ids}
    rating = {p: rng.randint(1000, 2000) for p in ids}
    for _ in range(rounds):
        ranked = sorted(ids, key=lambda p: (-score[p], -rating[p]))
        found = swiss_round([SwissPlayer(p, score[p], frozenset(opponents[p]), balance[p],
                                         last[p], byes[p] > 0) for p in ranked],
                            window=window)
        seated = [p for pair in found.pairs for p in pair] + ([found.bye] if found.bye else [])
        assert sorted(seated) == ids  # everyone plays or has the bye, once
        assert (found.bye is None) == (count % 2 == 0)
        repeat = any(b in opponents[a] for a, b in found.pairs)
        second_bye = found.bye is not None and byes[found.bye] > 0
        if repeat or second_bye:
            assert not _clean_round_exists(ids, opponents, byes), (
                "a rematch or a second bye was given though a round without one exists")
        if found.bye is not None and not second_bye:
            # The bye goes to the lowest-ranked player without one, unless that player could
            # only be paired by forcing a rematch elsewhere.
            lowest = [p for p in ranked if byes[p] == 0][-1]
            if found.bye != lowest:
                assert not _clean_round_exists(ids, opponents, byes, bye=lowest)
        if any(_same_side(balance[a], balance[b]) for a, b in found.pairs):
            # Two players both two first seats up (or down) meet only when every pairing
            # without a rematch or a second bye needs it (one of them then goes to three).
            assert not _clean_round_exists(ids, opponents, byes, balance=balance)
        for a, b in found.pairs:
            opponents[a].add(b)
            opponents[b].add(a)
            balance[a] += 1
            balance[b] -= 1
            last[a], last[b] = 0, 1
            result = rng.choice((1.0, 0.5, 0.0))
            score[a] += result
            score[b] += 1 - result
        if found.bye is not None:
            byes[found.bye] += 1
            score[found.bye] += 1


def _clean_round_exists(ids: list[int], opponents: dict[int, set[int]],
                        byes: dict[int, int], bye: int | None = None,
                        balance: dict[int, int] | None = None) -> bool:
    """The oracle: is there a pairing of this round with no rematch and no second bye (with
    the bye for `bye` if given; with no two players both two first seats up or down if
    `balance` is given)? A perfect matching on the allowed edges, found by networkx's
    maximum-cardinality matching."""
    graph = nx.Graph()
    graph.add_nodes_from(ids)
    graph.add_edges_from((a, b) for a in ids for b in ids if a < b and b not in opponents[a]
                         and not (balance and _same_side(balance[a], balance[b])))
    if len(ids) % 2:
        takers = [bye] if bye is not None else [p for p in ids if byes[p] == 0]
        graph.add_edges_from((p, "bye") for p in takers)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return 2 * len(matching) == graph.number_of_nodes()


def _same_side(a: int, b: int) -> bool:
    return (a >= 2 and b >= 2) or (a <= -2 and b <= -2)


@given(st.integers(min_value=2, max_value=24), st.integers(min_value=1, max_value=9),
       st.integers(min_value=0, max_value=2**32), st.sampled_from((2, 3, 8)))
def test_swiss_avoids_rematches_second_byes_and_seat_imbalance_while_it_can(
        count: int, rounds: int, seed: int, window: int) -> None:
    # Small windows make the fast first tries (a window of the folded order, then five times
    # it) run on small fields too, so their fallback to the whole graph is checked here.
    _play_swiss(count, min(rounds, count - 1 + count % 2), seed, window)


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
