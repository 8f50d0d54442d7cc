"""EXIMO: the game's folder. Its rules (`rules.py`, with the rules summary), its board
drawing (`board.py`), its click data (`clicks.py`) and its description, `GAME`, which the
registry lists."""

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
