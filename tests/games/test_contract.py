"""One contract test over every registered game (after OpenSpiel's random_sim_test).

Seeded random playouts check, at every step: legal moves round-trip through notation (canonical
and shouted), dump/load round-trips, a move never mutates its input, views and events are
JSON-safe, the position text round-trips, replaying the moves from the seed reproduces the
state, and no view depends on what its seat may not know.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pbem.games import REGISTRY
from pbem.games.base import GameRules, Option, RulesError
from tests.support.games import TEST_GAMES

ALL_GAMES: dict[str, GameRules] = {**TEST_GAMES, **REGISTRY}
SEEDS = (1, 2, 3)
MAX_PLIES = 400
MOVES_CHECKED_PER_PLY = 40

CASES = [
    pytest.param(slug, players, seed, id=f"{slug}-{players}p-seed{seed}")
    for slug, rules in sorted(ALL_GAMES.items())
    for players in sorted(rules.player_counts)
    for seed in SEEDS
]


@pytest.mark.parametrize(("slug", "players", "seed"), CASES)
def test_random_playout_keeps_the_contract(slug: str, players: int, seed: int) -> None:
    rules = ALL_GAMES[slug]
    rng = random.Random(seed)
    state = rules.new_game(players, {}, seed)
    played: list[tuple[int, str]] = []
    hidden_checks = 0
    for _ in range(MAX_PLIES):
        _check_state(rules, state, players)
        hidden_checks += _check_hidden_information(rules, state, players, rng)
        seats = rules.to_move(state)
        if not seats:
            break
        seat = rng.choice(sorted(seats))
        moves = list(rules.legal_moves(state, seat))
        assert moves, f"seat {seat} is to move but has no legal move"
        for move in rng.sample(moves, min(len(moves), MOVES_CHECKED_PER_PLY)):
            _check_notation(rules, state, seat, move)
        move = rng.choice(moves)
        text = rules.format_move(state, move)
        before = json.dumps(rules.dump(state), sort_keys=True)
        transition = rules.apply_move(state, seat, move)
        assert json.dumps(rules.dump(state), sort_keys=True) == before, "apply_move mutated"
        for event in transition.events:
            json.dumps(event.data)
            assert rules.describe_event(event).strip()
        played.append((seat, text))
        state = transition.state
    _check_replay(rules, players, seed, played, state)
    if hasattr(rules, "shuffle_hidden"):
        assert hidden_checks, "shuffle_hidden never changed a state: the check proved nothing"


def test_every_game_declares_itself() -> None:
    for slug, rules in ALL_GAMES.items():
        assert rules.slug == slug
        assert isinstance(rules, GameRules)
        assert rules.title and rules.player_counts and rules.rules_version >= 1
        for option in rules.options:
            assert isinstance(option, Option)
            assert option.coerce(option.default) == option.default
            assert option.help


def test_unknown_options_and_bad_values_are_refused_clearly() -> None:
    for rules in ALL_GAMES.values():
        players = min(rules.player_counts)
        with pytest.raises(RulesError, match="no option"):
            rules.new_game(players, {"no-such-option": 1}, 1)


def _check_state(rules: GameRules, state: Any, players: int) -> None:
    dumped = rules.dump(state)
    text = json.dumps(dumped, sort_keys=True)
    assert json.dumps(rules.dump(rules.load(json.loads(text))), sort_keys=True) == text
    over = rules.outcome(state)
    assert (over is None) == bool(rules.to_move(state)), "to_move must be empty exactly at the end"
    if over is not None:
        assert over.winners <= set(range(players)) and len(over.scores) == players
        assert over.reason
    for seat in [*range(players), None]:
        view = rules.view(state, seat)
        json.dumps(view)
        assert isinstance(rules.render_text(view), str)
    if hasattr(rules, "position"):
        line = rules.position(state)
        assert "\n" not in line
        assert rules.position(rules.from_position(line)) == line


def _check_notation(rules: GameRules, state: Any, seat: int, move: Any) -> None:
    text = rules.format_move(state, move)
    for variant in (text, text.upper(), f"  {text} "):
        parsed = rules.parse_move(state, seat, variant)
        assert rules.format_move(state, parsed) == text, f"{variant!r} did not round-trip"


def _check_hidden_information(rules: GameRules, state: Any, players: int,
                              rng: random.Random) -> int:
    """Views must not change when only what a seat cannot know changes. Returns checks made."""
    shuffle = getattr(rules, "shuffle_hidden", None)
    if shuffle is None:
        return 0
    changed = 0
    for seat in [*range(players), None]:
        other = shuffle(state, seat, rng.randrange(2**31))
        if rules.dump(other) == rules.dump(state):
            continue
        changed += 1
        assert rules.view(other, seat) == rules.view(state, seat), f"seat {seat} sees a secret"
    return changed


def _check_replay(rules: GameRules, players: int, seed: int,
                  played: list[tuple[int, str]], final: Any) -> None:
    state = rules.new_game(players, {}, seed)
    for seat, text in played:
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
    assert rules.dump(state) == rules.dump(final), "replay from the seed diverged"
