"""Every game's board partials render every seat's view, and the SVG obeys a strict CSP."""

from __future__ import annotations

import random
import re

import pytest

from pbem.games import REGISTRY
from pbem.games.base import GameRules
from tests.support.games import TEST_GAMES
from tests.support.render import render

ALL_GAMES: dict[str, GameRules] = {**TEST_GAMES, **REGISTRY}


def _some_states(rules: GameRules, players: int, plies: int = 12) -> list:
    rng = random.Random(7)
    state = rules.new_game(players, {}, 7)
    states = [state]
    for _ in range(plies):
        seats = sorted(rules.to_move(state))
        if not seats:
            break
        seat = rng.choice(seats)
        move = rng.choice(list(rules.legal_moves(state, seat)))
        state = rules.apply_move(state, seat, move).state
        states.append(state)
    return states


@pytest.mark.parametrize("slug", sorted(ALL_GAMES))
def test_board_partials_render_every_view(slug: str) -> None:
    rules = ALL_GAMES[slug]
    players = min(rules.player_counts)
    for state in _some_states(rules, players):
        for seat in [*range(players), None]:
            view = rules.view(state, seat)
            mine = rules.to_move(state)
            legal = ([rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
                     if seat is not None and seat in mine else [])
            svg = render(f"games/{slug}/board.html", view=view, seat=seat, legal_moves=legal)
            assert svg.strip()
            # A strict CSP blocks inline styles: presentation attributes only on the page.
            assert not re.search(r"\sstyle=", svg), "board.html must not use style="
            assert "<script" not in svg
            table = render(f"games/{slug}/board_table.html", view=view, seat=seat)
            assert table.strip()
