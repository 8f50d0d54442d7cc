"""Fuzzed notation: for every game, `parse_move` on any text returns a legal move or raises
RulesError, never another exception (players type moves into emails: anything can arrive)."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.games import REGISTRY
from pbem.games.base import GameRules, RulesError
from tests.support.games import TEST_GAMES

ALL_GAMES: dict[str, GameRules] = {**TEST_GAMES, **REGISTRY}
POSITIONS_PER_GAME = 12

# Characters players' mail clients produce: notation, Unicode digits and dashes, spaces, NULs.
_ALPHABET = st.sampled_from([*"abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789-x:+/,.;()", "²", "٣",
                             "Ⅻ", "\u2013", "\u2014", "\u00a0", "\x00", "é", "ß", "\n", "\t"])
_TEXT = st.one_of(st.text(max_size=40), st.text(_ALPHABET, max_size=40))


@cache
def _positions(slug: str) -> list[tuple[Any, int, list[str]]]:
    """Positions along seeded random playouts, with the seat to move and its legal moves."""
    rules = ALL_GAMES[slug]
    found: list[tuple[Any, int, list[str]]] = []
    for players in sorted(rules.player_counts):
        rng = random.Random(players)
        state = rules.new_game(players, {}, players)
        for ply in range(400):
            seats = rules.to_move(state)
            if not seats:
                break
            seat = rng.choice(sorted(seats))
            moves = list(rules.legal_moves(state, seat))
            if ply % 7 == 0:
                found.append((state, seat, [rules.format_move(state, m) for m in moves]))
            state = rules.apply_move(state, seat, rng.choice(moves)).state
    step = max(len(found) // POSITIONS_PER_GAME, 1)
    return found[::step][:POSITIONS_PER_GAME]


def _mutate(text: str, edits: list[tuple[int, int, str]]) -> str:
    for kind, where, char in edits:
        at = where % (len(text) + 1)
        if kind == 0:
            text = text[:at] + char + text[at:]
        elif kind == 1:
            text = text[:at] + text[at + 1:]
        else:
            text = text[:at] + char + text[at + 1:]
    return text


_EDITS = st.lists(st.tuples(st.integers(0, 2), st.integers(0, 60), _ALPHABET), max_size=4)


def _check(rules: GameRules, state: Any, seat: int, text: str) -> None:
    try:
        move = rules.parse_move(state, seat, text)
    except RulesError as refused:
        assert str(refused).strip(), "a refusal says why"
        return
    legal = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
    assert rules.format_move(state, move) in legal, f"{text!r} parsed to an illegal move"


@pytest.mark.parametrize("slug", sorted(ALL_GAMES))
@given(data=st.data())
def test_any_text_is_a_legal_move_or_a_rules_error(slug: str, data: st.DataObject) -> None:
    rules = ALL_GAMES[slug]
    state, seat, _legal = data.draw(st.sampled_from(_positions(slug)), label="position")
    _check(rules, state, seat, data.draw(_TEXT, label="text"))


@pytest.mark.parametrize("slug", sorted(ALL_GAMES))
@given(data=st.data())
def test_mutated_legal_moves_are_legal_moves_or_rules_errors(slug: str,
                                                             data: st.DataObject) -> None:
    rules = ALL_GAMES[slug]
    state, seat, legal = data.draw(st.sampled_from(_positions(slug)), label="position")
    text = _mutate(data.draw(st.sampled_from(legal), label="legal move"),
                   data.draw(_EDITS, label="edits"))
    _check(rules, state, seat, text)


@pytest.mark.parametrize("slug", sorted(ALL_GAMES))
@pytest.mark.parametrize("text", ["²", "play ²", "keep ²", "1²", "a²-b3", "٣", "9" * 5000,
                                  "\x00", "play \x00", " " * 300, "x" * 10_000])
def test_known_troublemakers_are_refused_cleanly(slug: str, text: str) -> None:
    rules = ALL_GAMES[slug]
    for state, seat, _legal in _positions(slug):
        _check(rules, state, seat, text)
