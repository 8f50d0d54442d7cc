"""The pure side of leagues and ladders, and the simulation the issue asks for: 200 players
with hidden strengths, six seasons of a league and a ladder of 60 (no database)."""

from __future__ import annotations

import math
import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from pbem.core.leagues.plan import (
    LadderStep,
    Result,
    division_standings,
    fit_tables,
    ladder_places,
    may_challenge,
    next_divisions,
    playable,
    schedule,
    seed_divisions,
    spearman,
    timed_out_of_most,
)


def test_a_two_player_division_meets_every_pair_twice_seats_swapped() -> None:
    games = schedule([1, 2, 3, 4, 5], None, seed=1)
    assert Counter(games) == Counter({(a, b): 1 for a in range(1, 6) for b in range(1, 6)
                                      if a != b})


@given(st.sampled_from((3, 4)), st.integers(min_value=1, max_value=3),
       st.integers(min_value=0, max_value=2**32))
def test_tables_meet_every_pair_about_equally_often(size: int, tables: int, seed: int) -> None:
    players = list(range(1, size * tables + 1))
    games = schedule(players, size, seed)
    assert all(len(g) == size for g in games)
    met = Counter(frozenset((a, b)) for g in games for i, a in enumerate(g) for b in g[i + 1:])
    counts = [met[frozenset((a, b))] for a in players for b in players if a < b]
    mean = sum(counts) / len(counts)
    assert all(abs(n - mean) <= 2 for n in counts)
    plays = Counter(p for g in games for p in g)
    assert len(set(plays.values())) == 1  # everyone plays as often


@given(st.lists(st.integers(min_value=3, max_value=12), min_size=1, max_size=6),
       st.integers(min_value=0, max_value=4), st.integers(min_value=0, max_value=4),
       st.integers(min_value=0, max_value=2**32))
def test_next_divisions_lose_and_double_nobody(sizes: list[int], promote: int, relegate: int,
                                               seed: int) -> None:
    rng = random.Random(seed)
    pid = iter(range(1, 1000))
    tables = [[next(pid) for _ in range(n)] for n in sizes]
    everyone = [p for t in tables for p in t]
    leaving = set(rng.sample(everyone, len(everyone) // 5))
    hold = set(rng.sample(everyone, len(everyone) // 10)) - leaving
    arriving = [next(pid) for _ in range(rng.randint(0, 5))]
    drawn = next_divisions(tables, min(promote, 2), min(relegate, 2), 8, leaving, hold,
                           arriving)
    flat = [p for d in drawn for p in d]
    assert len(flat) == len(set(flat))
    assert set(flat) == (set(everyone) - leaving - hold) | set(arriving)
    if arriving:  # new players enter at the bottom, below everyone who played
        assert flat[-len(arriving):] == arriving


@given(st.integers(min_value=3, max_value=60), st.sampled_from((6, 8, 9, 12)))
def test_table_divisions_can_always_be_seated(count: int, size: int) -> None:
    divisions = fit_tables(seed_divisions(list(range(count)), size))
    if count != 5:
        assert all(playable(len(d), 3) for d in divisions)
        for d in divisions:
            for table_size in (3, 4):
                games = schedule(d, table_size, seed=count)
                assert games and all(len(g) in (3, 4) for g in games)
                if len(d) % table_size == 0:
                    assert all(len(g) == table_size for g in games)
    assert sorted(p for d in divisions for p in d) == list(range(count))


def test_promotion_and_relegation_move_one_division() -> None:
    tables = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    drawn = next_divisions(tables, 1, 1, 4, set(), set(), [])
    assert drawn == [[1, 2, 3, 5], [4, 6, 7, 9], [8, 10, 11, 12]]


def test_a_player_who_timed_out_of_more_than_half_sits_out() -> None:
    results = [Result((1, 2), (1,), (0, 0), timed_out=(0,)),
               Result((1, 3), (1,), (0, 0), timed_out=(0,)),
               Result((2, 3), (0,), (0, 0), timed_out=(1,))]
    scheduled = Counter({1: 3, 2: 3, 3: 3})
    assert timed_out_of_most([1, 2, 3], results, scheduled) == {1}


def test_standings_count_points_then_tiebreaks() -> None:
    results = [Result((1, 2), (0,), (0, 0)), Result((2, 3), (0,), (0, 0)),
               Result((3, 1), (), (0, 0))]
    table = division_standings([1, 2, 3], results, tables=False)
    assert [(s.player, s.points) for s in table] == [(1, 1.5), (2, 1.0), (3, 0.5)]


def test_the_ladder_winner_takes_the_place_and_the_between_move_down() -> None:
    steps = [LadderStep("join", p) for p in range(1, 7)]
    state = ladder_places([*steps, LadderStep("result", 5, 2)])
    assert state.places == [1, 5, 2, 3, 4, 6]
    assert may_challenge(state.places, 6, 1, 5) and not may_challenge(state.places, 6, 1, 4)
    assert not may_challenge(state.places, 1, 6, 5)  # only upwards


def test_a_first_timeout_holds_a_second_within_60_days_drops_to_the_bottom() -> None:
    steps = [LadderStep("join", p) for p in range(1, 5)]
    once = ladder_places([*steps, LadderStep("timeout", 2, day=1)])
    assert once.places == [1, 2, 3, 4] and once.on_hold == {2}
    back = ladder_places([*steps, LadderStep("timeout", 2, day=1), LadderStep("back", 2, day=2)])
    assert back.on_hold == set()
    twice = ladder_places([*steps, LadderStep("timeout", 2, day=1),
                           LadderStep("timeout", 2, day=50)])
    assert twice.places == [1, 3, 4, 2]
    late = ladder_places([*steps, LadderStep("timeout", 2, day=1),
                          LadderStep("timeout", 2, day=70)])
    assert late.places == [1, 2, 3, 4]


# --- the simulation ------------------------------------------------------------------------


def _win(rng: random.Random, strength: dict[int, float], a: int, b: int) -> bool:
    return rng.random() < 1 / (1 + math.exp(-1.5 * (strength[a] - strength[b])))


def test_six_seasons_sort_200_players_by_strength() -> None:
    # Mimic, divisions of 10, two up and two down; the first season seeds by a rating that
    # knows the strengths only roughly (a noisy measure, as a rating after few games is).
    rng = random.Random(52)
    strength = {p: rng.gauss(0, 1) for p in range(1, 201)}
    rated = sorted(strength, key=lambda p: -(strength[p] + rng.gauss(0, 1)))
    divisions = seed_divisions(rated, 10)
    before = _division_order(divisions, strength)
    for season in range(6):
        tables = []
        for players in divisions:
            results = [Result((a, b), (0,) if _win(rng, strength, a, b) else (1,), (0.0, 0.0))
                       for a, b in schedule(players, None, season)]
            tables.append([s.player for s in division_standings(players, results, False)])
        divisions = next_divisions(tables, 2, 2, 10, set(), set(), [])
        flat = [p for d in divisions for p in d]
        assert sorted(flat) == sorted(strength)  # nobody lost or doubled
    after = _division_order(divisions, strength)
    assert after >= 0.8 and after > before


def _division_order(divisions: list[list[int]], strength: dict[int, float]) -> float:
    players = [p for d in divisions for p in d]
    division = {p: i for i, d in enumerate(divisions) for p in d}
    return spearman([-division[p] for p in players], [strength[p] for p in players])


def test_a_ladder_of_60_climbs_to_strength_order() -> None:
    # Everyone joins in a random order; each challenges someone in range above them.
    rng = random.Random(60)
    strength = {p: rng.gauss(0, 1) for p in range(1, 61)}
    joined = list(strength)
    rng.shuffle(joined)
    places = ladder_places([LadderStep("join", p) for p in joined]).places
    for _ in range(3000):
        challenger = rng.choice(places[1:])
        at = places.index(challenger)
        defender = places[rng.randint(max(0, at - 5), at - 1)]
        won = _win(rng, strength, challenger, defender)
        winner, loser = (challenger, defender) if won else (defender, challenger)
        # Replayed from the places so far: the same rule as a replay of the whole history.
        places = ladder_places([*(LadderStep("join", p) for p in places),
                                LadderStep("result", winner, loser)]).places
    assert sorted(places) == sorted(strength)
    assert spearman([-i for i in range(60)], [strength[p] for p in places]) >= 0.7
