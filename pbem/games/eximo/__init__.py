"""EXIMO, checkers for two that jump their own and capture the other's: its description,
`GAME`, which the registry lists (the rules and their summary are in `rules.py`)."""

from __future__ import annotations

from pbem.games.description import Fixtures, GameType
from pbem.games.eximo.hints import EximoHints
from pbem.games.eximo.rules import EximoRules, EximoState

GAME = GameType.from_folder(
    rules=EximoRules(),
    notation="the full path: `c2-c3`, jumps `c1-c3-c5`, captures `e4xe6xg6`, drops after `drop`",
    fixtures=Fixtures(short_seed=21),
    conditional_moves=True,
    bot_hints=EximoHints(),
)

__all__ = ["GAME", "EximoRules", "EximoState"]
