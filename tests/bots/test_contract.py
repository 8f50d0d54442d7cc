"""Every game's computer plays legal moves to the end of a whole game, every seat a computer."""

from __future__ import annotations

from itertools import pairwise

import pytest

from pbem.bots import LEVELS, choose_move
from pbem.games import DESCRIPTIONS, REGISTRY
from pbem.games.base import GameRules
from tests.support.games import TEST_GAMES

# No game has a move cap; a computer that never finished would show up here as a failure.
MAX_PLIES = 3000


def _play_out(rules: GameRules, players: int, seed: int, level: int) -> int:
    state = rules.new_game(players, {}, seed)
    plies = 0
    while rules.to_move(state):
        assert plies < MAX_PLIES, f"{rules.slug} did not end in {MAX_PLIES} plies"
        # Several seats may owe a move (a simultaneous decision): each decides on its own.
        for seat in sorted(rules.to_move(state)):
            if seat not in rules.to_move(state):
                continue
            move = choose_move(rules, state, seat, level, seed=plies)
            assert move in rules.legal_moves(state, seat)
            state = rules.apply_move(state, seat, move).state
            plies += 1
    assert rules.outcome(state) is not None
    return plies


@pytest.mark.parametrize("slug", sorted(REGISTRY))
def test_the_computer_plays_a_whole_game_of_every_game_at_level_1(slug: str) -> None:
    rules = REGISTRY[slug]
    seed = DESCRIPTIONS[slug].fixtures.short_seed
    for players in sorted(rules.player_counts):
        assert _play_out(rules, players, seed, level=1) > 0


@pytest.mark.parametrize("slug", sorted(TEST_GAMES))
def test_the_test_games_too_sequential_and_simultaneous(slug: str) -> None:
    rules = TEST_GAMES[slug]
    for players in sorted(rules.player_counts):
        assert _play_out(rules, players, seed=3, level=2) > 0


def test_levels_one_to_five_grow_in_budget() -> None:
    assert sorted(LEVELS) == [1, 2, 3, 4, 5]
    budgets = [LEVELS[n] for n in sorted(LEVELS)]
    assert all(a.iterations < b.iterations and a.seconds < b.seconds
               for a, b in pairwise(budgets))
    # The caps are CPU seconds (the worker passes `think_clock`), about twice what the
    # iteration budget needs, so the iterations decide the move.
    assert budgets[0].seconds <= 0.2
    assert budgets[-1].seconds <= 10.0
    assert LEVELS[3].label == "Computer (level 3)"
