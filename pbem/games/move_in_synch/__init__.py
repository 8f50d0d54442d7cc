"""Move In Synch, In Opposition: two markers move together, the same way or opposite ways,
and claim the squares they reach. Its description is `GAME`; its rules, `rules.py`."""

from __future__ import annotations

from pbem.games.description import Fixtures, GameType
from pbem.games.move_in_synch.hints import MoveInSynchHints
from pbem.games.move_in_synch.rules import MoveInSynchRules, SynchState

GAME = GameType.from_folder(
    rules=MoveInSynchRules(),
    notation="a placement is a square, `e4`; `synch` or `opposition`; a direction",
    fixtures=Fixtures(short_seed=31),
    conditional_moves=True,
    bot_hints=MoveInSynchHints(),
)

__all__ = ["GAME", "MoveInSynchRules", "SynchState"]
