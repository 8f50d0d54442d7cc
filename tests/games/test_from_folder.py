"""`GameType.from_folder` finds a game's drawing functions and click data by its folder's
layout: the names its templates call must be exactly those the games used to state."""

from __future__ import annotations

import importlib

import pytest

from pbem.games import describe
from pbem.games.description import Fixtures, GameType
from tests.games.toy.tic_tac_toe import GAME as TOY
from tests.games.toy.tic_tac_toe.rules import TicTacToeRules

DRAWING = {
    "eximo": ("eximo_pieces", "eximo_cells"),
    "frozen-forest": ("frozen_forest_pieces", "frozen_forest_cells"),
    "mimic": ("mimic_pieces", "mimic_cells"),
    "mimic-taking": ("mimic_taking_card", "mimic_taking_cards"),
    "move-in-synch": ("move_in_synch_pieces", "move_in_synch_cells"),
}


@pytest.mark.parametrize("slug", sorted(DRAWING))
def test_a_games_folder_gives_its_board_functions_and_click_data(slug: str) -> None:
    game = describe(slug)
    folder = slug.replace("-", "_")
    board = importlib.import_module(f"pbem.games.{folder}.board")
    clicks = importlib.import_module(f"pbem.games.{folder}.clicks")
    assert tuple(game.template_globals) == DRAWING[slug]
    for name, function in game.template_globals.items():
        assert function is getattr(board, name.removeprefix(folder + "_"))
    assert game.clicks is clicks.CLICKS


def test_it_describes_the_toy_game_as_the_toy_states_itself() -> None:
    found = GameType.from_folder(TicTacToeRules(), "the square, `b2`", Fixtures(short_seed=1),
                                 conditional_moves=True)
    assert dict(found.template_globals) == dict(TOY.template_globals)
    assert found.clicks is TOY.clicks and found.conditional_moves
