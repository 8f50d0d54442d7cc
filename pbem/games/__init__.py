"""The explicit registry of games. A game is available once it is listed here.

Registration is explicit (no import side effects) so that a reader sees every game in one
place and a test can add a test-only game with `monkeypatch.setitem(REGISTRY, …)`.
"""

from __future__ import annotations

from pbem.games.base import GameRules, RulesError
from pbem.games.eximo import EximoRules
from pbem.games.frozen_forest import FrozenForestRules
from pbem.games.mimic import MimicRules
from pbem.games.mimic_taking import MimicTakingRules
from pbem.games.move_in_synch import MoveInSynchRules

REGISTRY: dict[str, GameRules] = {
    "eximo": EximoRules(),
    "frozen-forest": FrozenForestRules(),
    "mimic": MimicRules(),
    "mimic-taking": MimicTakingRules(),
    "move-in-synch": MoveInSynchRules(),
}


def get_rules(slug: str) -> GameRules:
    """The rules object for a game slug; raise RulesError naming the known games if unknown."""
    try:
        return REGISTRY[slug.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "none yet"
        raise RulesError(f"there is no game called {slug!r} (games: {known})") from None
