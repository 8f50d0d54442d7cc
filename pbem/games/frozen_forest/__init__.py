"""Frozen Forest, where Yuki the yeti seeks and Mina hides behind trees, described for the
registry as `GAME`; `rules.py` holds its rules and their summary."""

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
