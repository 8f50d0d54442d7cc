"""Click data: which clicks on the board spell each legal move, for the play page's script.

The rules give the legal moves as canonical notation; a game's `clicks.py` splits each one into
the things a player clicks, in order: squares (`e2`, `e3`), cards (`O3`) or, for a choice that
has no place on the board (`synch`, `add`, `take O4 G4`), the notation itself, which the script
offers as a button. It reads only the notation and the seat's view, so it stays pure; the web's
dispatcher (`pbem/web/matches/clicks.py`) finds a game's `ClickData` in its description.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pbem.i18n import N_, _, current

Clicks = list[str]
Notes = dict[str, str]
Splitter = Callable[[str, Mapping[str, Any]], list[Clicks]]
Explainer = Callable[[Mapping[str, Any], set[str], Sequence[str]], Notes]
Describer = Callable[[Mapping[str, Any]], Notes]

# The words are English, marked with N_: `ClickData.words` reads them in the reader's language.
DEFAULT_WORDS: Mapping[str, str] = {"start": N_("one of the highlighted choices"),
                                    "next": N_("a highlighted choice")}


def whole(text: str, _view: Mapping[str, Any]) -> list[Clicks]:
    """The move is one click: a button with its notation (or one square)."""
    return [[text]]


@dataclass(frozen=True)
class ClickData:
    """A game's click data: how a move splits into clicks (`split`), the words the script
    explains with (`words`, and `words_for` when they depend on the legal moves), why a click
    starts no move where the view tells (`notes`) and what is on each square (`about`, read
    out after its name by screen readers)."""

    english_words: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_WORDS))
    split: Splitter = whole
    notes: Explainer | None = None
    about: Describer | None = None
    words_for: Callable[[Sequence[str]], Mapping[str, str]] | None = None

    @property
    def words(self) -> dict[str, str]:
        """The words in the reader's language (`words_for`, when given, translates its own)."""
        return {key: _(text) for key, text in self.english_words.items()}


def squares(files: Any, ranks: Any) -> tuple[str, ...]:
    return square_names(*counts(files, ranks))


def all_said_empty(view: Mapping[str, Any]) -> dict[str, str]:
    """Every square of the view's board said to be "empty", for a game's `about` to say what
    stands on the others."""
    return dict.fromkeys(squares(view["files"], view["ranks"]), _("empty"))


def counts(files: Any, ranks: Any) -> tuple[int, int]:
    """A view's board size, given as counts or as the files' and ranks' names."""
    return (files if isinstance(files, int) else len(files),
            ranks if isinstance(ranks, int) else len(ranks))


# A board's squares and their "empty" notes depend only on its size: named once per size, not
# once per page.
@lru_cache(maxsize=16)
def square_names(files: int, ranks: int) -> tuple[str, ...]:
    return tuple(f"{'abcdefghijklmnopqrs'[f]}{r + 1}" for f in range(files)
                 for r in range(ranks))


def square_notes(view: Mapping[str, Any], firsts: set[str],
                 occupied: Iterable[tuple[str, str | None]]) -> Notes:
    """Why each square of a grid board that starts no move starts none: an empty square says
    so, an occupied one gives its reason (None: it has no legal move now). The squares in
    `firsts` start a move and get no note."""
    found = dict(empty_notes(*counts(view["files"], view["ranks"])))
    for square, reason in occupied:
        found[square] = reason or _("%(square)s has no legal move now.", square=square)
    return {square: note for square, note in found.items() if square not in firsts}


def empty_notes(files: int, ranks: int) -> Mapping[str, str]:
    return _empty_notes(files, ranks, current())


@lru_cache(maxsize=16)
def _empty_notes(files: int, ranks: int, language: str) -> Mapping[str, str]:
    # `language` keys the cache: the notes are worded in it.
    return {square: _("%(square)s is empty.", square=square)
            for square in square_names(files, ranks)}
