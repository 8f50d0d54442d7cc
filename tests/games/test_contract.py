"""One contract test over every registered game (after OpenSpiel's random_sim_test).

Seeded random playouts, with the default options and with random valid ones, check at every
step: legal moves round-trip through notation (canonical and shouted), dump/load round-trips,
a move never mutates its input, views and events are JSON-safe, the position text round-trips,
running scores have a number per seat, replaying the moves from the seed reproduces the state,
and no view depends on what its seat may not know. A game that hides anything must say so and
offer `shuffle_hidden`, which that last check needs.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pbem.games import REGISTRY
from pbem.games.base import (
    GameRules,
    HasPosition,
    HidesInformation,
    KeepsScore,
    Option,
    RulesError,
    StepsQuickly,
)
from tests.support.games import TEST_GAMES, BidsRules

ALL_GAMES: dict[str, GameRules] = {**TEST_GAMES, **REGISTRY}
SEEDS = (1, 2, 3, 4)  # seed 1 plays the default options; the others random valid ones
MAX_PLIES = 400
MOVES_CHECKED_PER_PLY = 40


def random_options(rules: GameRules, rng: random.Random, turn: int = 0) -> dict[str, Any]:
    """Valid values for every option, as a match creator would type them.

    A bounded number is drawn at random. An option with few values takes them in an order
    shuffled per option, `turn` picking the place in it, so a few turns play every value of
    every such option, in random combinations.
    """
    chosen: dict[str, Any] = {}
    for option in rules.options:
        if isinstance(option.default, bool):
            values: list[Any] = ["on", "off"]
        elif option.choices is not None:
            values = [str(choice) for choice in option.choices]
        elif isinstance(option.default, int) and None not in (option.minimum, option.maximum):
            chosen[option.name] = str(rng.randint(option.minimum, option.maximum))  # type: ignore[arg-type]
            continue
        else:
            chosen[option.name] = option.default
            continue
        chosen[option.name] = rng.sample(values, len(values))[turn % len(values)]
    return chosen


def _options_for(rules: GameRules, players: int, seed: int) -> dict[str, Any]:
    if seed == 1:
        return {}
    # The same shuffle for every turn of a case, so that the turns take different values.
    shuffles = random.Random(f"{rules.slug}/{players}")
    picked = random_options(rules, shuffles, turn=seed - 2)
    numbers = random.Random(f"{rules.slug}/{players}/{seed}")
    return {**picked, **{name: value for name, value in random_options(rules, numbers).items()
                         if name not in _FINITE[rules.slug]}}


_FINITE = {slug: {o.name for o in rules.options
                  if isinstance(o.default, bool) or o.choices is not None}
           for slug, rules in ALL_GAMES.items()}


CASES = [
    pytest.param(slug, players, seed, _options_for(rules, players, seed),
                 id="-".join([f"{slug}-{players}p-seed{seed}", *(
                     f"{k}={v}" for k, v in _options_for(rules, players, seed).items())]))
    for slug, rules in sorted(ALL_GAMES.items())
    for players in sorted(rules.player_counts)
    for seed in SEEDS
]


@pytest.mark.parametrize(("slug", "players", "seed", "options"), CASES)
def test_random_playout_keeps_the_contract(slug: str, players: int, seed: int,
                                           options: dict[str, Any]) -> None:
    play_out(ALL_GAMES[slug], players, seed, options)


def test_the_playouts_play_every_value_of_every_option_with_few_values() -> None:
    for slug, rules in ALL_GAMES.items():
        for option in rules.options:
            if option.name not in _FINITE[slug]:
                continue
            played = {rules.resolve_options(case.values[3])[option.name]
                      for case in CASES if case.values[0] == slug}
            allowed = {True, False} if isinstance(option.default, bool) else set(option.choices)
            assert played == allowed, f"{slug}: option {option.name} plays only {played}"


def test_every_game_declares_itself() -> None:
    for slug, rules in ALL_GAMES.items():
        check_declarations(slug, rules)


def test_a_hidden_information_game_without_shuffle_hidden_fails_the_contract() -> None:
    class Unshuffled(BidsRules):
        shuffle_hidden = None  # the method is gone

    with pytest.raises(AssertionError, match="shuffle_hidden"):
        check_declarations("bids", Unshuffled())


def test_a_game_that_hides_moves_without_declaring_it_fails_the_contract() -> None:
    class Undeclared(BidsRules):
        hidden_information = False

    with pytest.raises(AssertionError, match="hidden_information"):
        play_out(Undeclared(), 3, 1, {})


def check_declarations(slug: str, rules: GameRules) -> None:
    assert rules.slug == slug
    assert isinstance(rules, GameRules)
    assert rules.title and rules.player_counts and rules.rules_version >= 1
    for option in rules.options:
        assert isinstance(option, Option)
        assert option.coerce(option.default) == option.default
        assert option.help
    if rules.hidden_information:
        assert isinstance(rules, HidesInformation), (
            f"{slug} hides information but has no shuffle_hidden, so nothing proves its views "
            "keep its secrets")


def play_out(rules: GameRules, players: int, seed: int, options: dict[str, Any]) -> None:
    rng = random.Random(seed)
    state = rules.new_game(players, options, seed)
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
        secret = rules.move_visibility(state, seat, move) is not None
        before = json.dumps(rules.dump(state), sort_keys=True)
        transition = rules.apply_move(state, seat, move)
        assert json.dumps(rules.dump(state), sort_keys=True) == before, "apply_move mutated"
        if isinstance(rules, StepsQuickly):
            quick = rules.next_state(state, seat, move)
            assert quick == transition.state, "next_state differs from apply_move's state"
            assert rules.dump(quick) == rules.dump(transition.state)
        for event in transition.events:
            json.dumps(event.data)
            assert rules.describe_event(event).strip()
            secret = secret or event.visible_to is not None
        assert rules.hidden_information or not secret, (
            f"{rules.slug} keeps {text!r} from some seats but does not declare "
            "hidden_information")
        played.append((seat, text))
        state = transition.state
    _check_replay(rules, players, seed, options, played, state)
    if rules.hidden_information:
        assert hidden_checks, "shuffle_hidden never changed a state: the check proved nothing"


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
        text = rules.render_text(view)
        assert isinstance(text, str)
        # A match that ends off the board (a resignation, a timeout) names nobody to move:
        # its drawing ends "Match over."; a game the rules ended is drawn as it is.
        ended = rules.render_text(view, over=True)
        if over is None:
            assert ended.splitlines()[-1] == "Match over." and text.splitlines()[-1] != \
                "Match over.", ended
        else:
            assert ended == text
    if isinstance(rules, HasPosition):
        line = rules.position(state)
        assert "\n" not in line
        assert rules.position(rules.from_position(line)) == line
    if isinstance(rules, KeepsScore):
        scores = rules.current_scores(state)
        assert len(scores) == players and all(isinstance(s, int | float) for s in scores)


def _check_notation(rules: GameRules, state: Any, seat: int, move: Any) -> None:
    text = rules.format_move(state, move)
    for variant in (text, text.upper(), f"  {text} "):
        parsed = rules.parse_move(state, seat, variant)
        assert rules.format_move(state, parsed) == text, f"{variant!r} did not round-trip"


def _check_hidden_information(rules: GameRules, state: Any, players: int,
                              rng: random.Random) -> int:
    """Views must not change when only what a seat cannot know changes. Returns checks made."""
    if not rules.hidden_information:
        return 0
    assert isinstance(rules, HidesInformation), f"{rules.slug} has no shuffle_hidden"
    changed = 0
    for seat in [*range(players), None]:
        other = rules.shuffle_hidden(state, seat, rng.randrange(2**31))
        if rules.dump(other) == rules.dump(state):
            continue
        changed += 1
        assert rules.view(other, seat) == rules.view(state, seat), f"seat {seat} sees a secret"
    return changed


def _check_replay(rules: GameRules, players: int, seed: int, options: dict[str, Any],
                  played: list[tuple[int, str]], final: Any) -> None:
    state = rules.new_game(players, options, seed)
    for seat, text in played:
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
    assert rules.dump(state) == rules.dump(final), "replay from the seed diverged"
