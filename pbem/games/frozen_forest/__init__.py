"""Frozen Forest: the game's folder. Its rules (`rules.py`, with the rules summary), its board
drawing (`board.py`), its click data (`clicks.py`) and its description, `GAME`, which the
registry lists."""

from __future__ import annotations

from pbem.games.description import Fixtures, GameType
from pbem.games.frozen_forest.rules import ForestState, FrozenForestRules

GAME = GameType.from_folder(
    rules=FrozenForestRules(),
    notation="the destination square, `e4`",
    fixtures=Fixtures(short_seed=38),
    conditional_moves=True,
)

__all__ = ["GAME", "ForestState", "FrozenForestRules"]
