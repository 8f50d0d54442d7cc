"""A game described once, as OpenSpiel describes a game type: what it is (its rules object:
name, seats, options, capabilities) and what the framework needs to show it (its notation in
a line, the board-drawing functions its templates call, its click data) and to test it (its
fixtures). The framework and the shared tests read descriptions, never a game's name.

A game's folder (`pbem/games/<game>/`) ends in its `__init__.py` with one
`GAME = GameType.from_folder(…)` (or `GameType(…)`, naming its drawing and click data itself);
`pbem/games/__init__.py` lists every `GAME`, one line each.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.games.base import (
    CommitsDeals,
    GameRules,
    HasPosition,
    HidesInformation,
    KeepsScore,
    Option,
)
from pbem.games.clicks import ClickData


@dataclass(frozen=True)
class Fixtures:
    """What the shared tests need of a game beyond its rules: a seed whose random game is
    short (whole matches are played through the mail and the records with it)."""

    short_seed: int = 1


@dataclass(frozen=True)
class GameType:
    rules: GameRules
    # The move notation in one line, with examples (the rules page says it in full).
    notation: str = ""
    # The functions the game's templates call by name (its SVG pieces, its email cells).
    template_globals: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    clicks: ClickData = field(default_factory=ClickData)
    fixtures: Fixtures = field(default_factory=Fixtures)
    # Whether a waiting seat may store conditional moves (answers to its opponent's next
    # moves, played at once). Only for a game where every move is public and made by one seat
    # at a time: a hidden card would leak through the answer or make it stale, and a
    # simultaneous decision has no move to answer.
    conditional_moves: bool = False
    # What the computer opponent may know of the game (its `hints.py`: a playout policy, an
    # evaluation; see pbem/bots/hints.py for the members). None: plain random playouts.
    bot_hints: Any = None

    @classmethod
    def from_folder(cls, rules: GameRules, notation: str, fixtures: Fixtures,
                    conditional_moves: bool = False, bot_hints: Any = None) -> GameType:
        """The description of a game whose folder is laid out as pbem's games are: what its
        templates call is every public function defined in its `board.py`, named
        `<folder>_<function>` (`eximo_pieces`), and its click data is its `clicks.py`'s
        `CLICKS`. The rest differs from game to game, so it is stated."""
        folder = type(rules).__module__.rpartition(".")[0]
        board = importlib.import_module(f"{folder}.board")
        clicks = importlib.import_module(f"{folder}.clicks")
        prefix = folder.rpartition(".")[2]
        drawing = {f"{prefix}_{name}": value for name, value in vars(board).items()
                   if callable(value) and not inspect.isclass(value)
                   and getattr(value, "__module__", None) == board.__name__
                   and not name.startswith("_")}
        return cls(rules=rules, notation=notation, template_globals=drawing,
                   clicks=clicks.CLICKS, fixtures=fixtures, conditional_moves=conditional_moves,
                   bot_hints=bot_hints)

    @property
    def slug(self) -> str:
        return self.rules.slug

    @property
    def title(self) -> str:
        return self.rules.title

    @property
    def player_counts(self) -> frozenset[int]:
        return self.rules.player_counts

    @property
    def options(self) -> tuple[Option, ...]:
        return tuple(self.rules.options)

    @property
    def hidden_information(self) -> bool:
        return bool(getattr(self.rules, "hidden_information", False))

    @property
    def position_text(self) -> bool:
        """A one-line position text that round-trips (every board game has one)."""
        return isinstance(self.rules, HasPosition)

    @property
    def keeps_score(self) -> bool:
        return isinstance(self.rules, KeepsScore)

    @property
    def shuffles_hidden(self) -> bool:
        return isinstance(self.rules, HidesInformation)

    @property
    def commits_deals(self) -> bool:
        """Its deals come from a committed seed (`games/dealing.py`)."""
        return isinstance(self.rules, CommitsDeals)

    @property
    def board_picture(self) -> bool:
        """Its board.html draws an SVG board (so pages and previews may show a picture)."""
        return bool(getattr(self.rules, "board_picture", False))
