"""The explicit registry of games. A game is available once its description is listed here.

Registration is explicit (no import side effects) so that a reader sees every game in one
place, one line each. A test can add a test-only game with `monkeypatch.setitem(REGISTRY, …)`
(it then gets a plain description; see `describe`), and a test run can `register` a whole game
that lives outside this package (the tic-tac-toe of tests/games/toy, written by
docs/ADDING_A_GAME.md alone).
"""

from __future__ import annotations

from importlib import import_module

from pbem.games.base import GameRules, RulesError
from pbem.games.description import GameType
from pbem.i18n import _

# One line per game: its folder's name. Each folder's `GAME` is its description.
FOLDERS = (
    "eximo",
    "frozen_forest",
    "mimic",
    "mimic_taking",
    "move_in_synch",
)
GAMES: tuple[GameType, ...] = tuple(import_module(f"pbem.games.{folder}").GAME
                                    for folder in FOLDERS)

DESCRIPTIONS: dict[str, GameType] = {game.slug: game for game in GAMES}
REGISTRY: dict[str, GameRules] = {game.slug: game.rules for game in GAMES}


def get_rules(slug: str) -> GameRules:
    """The rules object for a game slug; raise RulesError naming the known games if unknown."""
    try:
        return REGISTRY[slug.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or _("none yet")
        raise RulesError(_("there is no game called %(slug)r (games: %(known)s)", slug=slug,
                           known=known)) from None


def describe(slug: str) -> GameType:
    """A game's description; a game registered without one (a test-only game) gets a plain
    one made from its rules (no board drawing, no click data of its own)."""
    found = DESCRIPTIONS.get(slug)
    if found is not None and REGISTRY.get(slug) is found.rules:
        return found
    return GameType(rules=get_rules(slug))


def register(game: GameType) -> None:
    """List a game whose folder is not in `FOLDERS`, as its line there would: the pages, the
    mail, the API and the shared tests then offer it like any other. For a test run of its
    own (tests/games/toy/plugin.py), before anything reads `GAMES`. A slug already listed is
    refused: a game is never replaced under a running server."""
    global GAMES
    if game.slug in REGISTRY:
        raise ValueError(f"a game called {game.slug!r} is already registered")
    GAMES = (*GAMES, game)
    DESCRIPTIONS[game.slug] = game
    REGISTRY[game.slug] = game.rules
