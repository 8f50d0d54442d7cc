"""A pytest plugin that plays the shared tests with the toy game registered:
`pytest -p tests.games.toy.plugin <test modules>` (tests/games/test_toy_game.py runs it).

Loaded before the test modules are imported, it makes the guide's edits outside the game's
folder, as a newcomer would: the registry's line (`pbem.games.register`, since the toy's folder
is not under pbem/games) and the entry in pbem/bots/strength.py's `MEASURED`. Of the tests it is
given it keeps those that read the registry: every case that plays the toy, and every test
that is not parametrised over a game but reads the registry's names in its body.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from pbem.bots.strength import MEASURED, Measured, Score
from pbem.games import DESCRIPTIONS, REGISTRY, register
from tests.games.toy.tic_tac_toe import GAME

# The guide's strength entry, as `bench/bots.py --game tic-tac-toe` measured it: levels 1 and 2
# in 10 matches a pairing, level 3 in 6 against random.
STRENGTH = (
    Measured(1, Score(90.0, 59.6, 98.2, 10), None, 0.001),
    Measured(2, Score(100.0, 72.2, 100.0, 10), Score(80.0, 49.0, 94.3, 10), 0.01),
    Measured(3, Score(91.7, 51.7, 99.1, 6), None, 0.041),
)
# The names a test reads the registry by.
REGISTRY_NAMES = ("REGISTRY", "GAMES", "DESCRIPTIONS", "REGISTERED", "describe(", "get_rules(")

register(GAME)
MEASURED[GAME.slug] = STRENGTH


def pytest_report_header() -> str:
    return f"registered the toy game {GAME.slug!r} (tests/games/toy)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    kept = [item for item in items if reads_the_toy(item)]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept


def reads_the_toy(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    values = list(callspec.params.values()) if callspec is not None else []
    if GAME.slug in item.nodeid or any(_is_game(value, toy=True) for value in values):
        return True
    if any(_is_game(value, toy=False) for value in values):
        return False  # another game's case
    function = getattr(item, "function", None)
    return function is not None and any(name in inspect.getsource(function)
                                        for name in REGISTRY_NAMES)


def _is_game(value: Any, toy: bool) -> bool:
    """Whether a parameter names a game (its slug, rules or description): the toy, or another."""
    if isinstance(value, str):
        return (value == GAME.slug) if toy else value in REGISTRY
    if value is GAME or value is GAME.rules:
        return toy
    return not toy and any(value is game or value is game.rules for game in DESCRIPTIONS.values())
