"""Mimic: the game's folder. Its rules (`rules.py`, with the rules summary), its board
drawing (`board.py`), its click data (`clicks.py`) and its description, `GAME`, which the
registry lists."""

from __future__ import annotations

from pbem.games.description import Fixtures, GameType
from pbem.games.mimic.hints import MimicHints
from pbem.games.mimic.rules import MimicRules, MimicState

GAME = GameType.from_folder(
    rules=MimicRules(),
    notation="a move is from-to, `e2-e3`; the mimic is automatic",
    fixtures=Fixtures(short_seed=10),
    conditional_moves=True,
    bot_hints=MimicHints(),
)

__all__ = ["GAME", "MimicRules", "MimicState"]
