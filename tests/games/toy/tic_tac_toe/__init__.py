"""Tic-tac-toe: the game's folder. Its rules (`rules.py`, with the rules summary), its board
drawing (`board.py`), its click data (`clicks.py`) and its description, `GAME`, which the
registry lists."""

from __future__ import annotations

from pbem.games.description import Fixtures, GameType
from tests.games.toy.tic_tac_toe import board, clicks
from tests.games.toy.tic_tac_toe.rules import TicTacToeRules, TicTacToeState

GAME = GameType(
    rules=TicTacToeRules(),
    notation="the square, `b2`",
    template_globals={"tic_tac_toe_pieces": board.pieces, "tic_tac_toe_cells": board.cells},
    clicks=clicks.CLICKS,
    fixtures=Fixtures(short_seed=1),
    conditional_moves=True,
)

__all__ = ["GAME", "TicTacToeRules", "TicTacToeState"]
