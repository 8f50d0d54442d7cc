"""The explicit registry of games. A game is available once it is listed here.

Registration is explicit (no import side effects) so that a reader sees every game in one
place and a test can add a test-only game with `monkeypatch.setitem(REGISTRY, …)`.
"""

from __future__ import annotations

from pbem.games.base import GameRules, RulesError
from pbem.games.mimic_taking import MimicTakingRules

REGISTRY: dict[str, GameRules] = {
    "mimic-taking": MimicTakingRules(),
}


def get_rules(slug: str) -> GameRules:
    """The rules object for a game slug; raise RulesError naming the known games if unknown."""
    try:
        return REGISTRY[slug]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "none yet"
        raise RulesError(f"there is no game called {slug!r} (games: {known})") from None
