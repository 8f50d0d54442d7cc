"""Mimic, a race to the far row while the opponent copies each move: `GAME` describes it
to the registry, and `rules.py` holds its rules summary."""

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
