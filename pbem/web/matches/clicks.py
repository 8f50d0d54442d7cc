"""Which clicks on the board spell each legal move, for the play page's click-to-move script.

The rules give the legal moves as canonical notation; this module splits each one into the
things a player clicks, in order: squares (`e2`, `e3`), cards (`O3`) or, for a choice that has
no place on the board (`synch`, `add`, `take O4 G4`), the notation itself, which the script
offers as a button. The script only follows these lists, so it can never offer a move the rules
would refuse, and the server still checks whatever is submitted.

An adapter, not rules: it reads only the notation and the seat's view, so `pbem/games` stays
free of anything about pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from itertools import permutations
from typing import Any

Clicks = list[str]
Splitter = Callable[[str, Mapping[str, Any]], list[Clicks]]

# What the first and later clicks are, in words, for the script's explanations.
WORDS: dict[str, dict[str, str]] = {
    "mimic": {"start": "one of your checkers that can move",
              "next": "a highlighted square to move it to"},
    "eximo": {"start": "one of your checkers that can move",
              "next": "a highlighted landing or drop square"},
    "frozen-forest": {"start": "a highlighted square", "next": "a highlighted square"},
    "move-in-synch": {"start": "a highlighted square or one of the choices",
                      "next": "a highlighted square"},
    "mimic-taking": {"start": "a highlighted card in your hand or a choice button",
                     "next": "one of the choices"},
}
_DEFAULT_WORDS = {"start": "one of the highlighted choices", "next": "a highlighted choice"}


def click_moves(game: str, view: Mapping[str, Any], legal: Sequence[str]) -> dict[str, Any]:
    """The script's data: every way of clicking each legal move, the words it explains with,
    `notes`: why a square or card that starts no legal move cannot, where the view tells, and
    `about`: what is on each square, read out after its name by screen readers.

    A move may be listed more than once when its clicks may come in any order (EXIMO drops).
    """
    split = _SPLITTERS.get(game, _whole)
    entries = [{"move": text, "clicks": clicks} for text in legal for clicks in split(text, view)]
    firsts = {entry["clicks"][0] for entry in entries}
    explain = _EXPLAINERS.get(game)
    words = dict(WORDS.get(game, _DEFAULT_WORDS))
    if game == "eximo" and legal and all("x" in text.split(" ")[0] for text in legal):
        words["start"] = "one of your checkers that can capture (a capture is compulsory)"
    return {"moves": entries, "words": words,
            "notes": explain(view, firsts, legal) if explain and view else {},
            "about": _DESCRIBERS[game](view) if game in _DESCRIBERS and view else {}}


def _whole(text: str, _view: Mapping[str, Any]) -> list[Clicks]:
    return [[text]]


def _mimic(text: str, _view: Mapping[str, Any]) -> list[Clicks]:
    origin, target = text.split("-")
    return [[origin, target]]


_PATH_STEP = re.compile(r"[-x]")


def _eximo(text: str, _view: Mapping[str, Any]) -> list[Clicks]:
    # `c1-c3-c5`, `e4xe6xg6 drop c1 d1`: the checker, each landing square, then the drops,
    # which a player may click in any order.
    head, _, tail = text.partition(" drop ")
    path = _PATH_STEP.split(head)
    drops = tail.split()
    return [path + list(order) for order in permutations(drops)] if drops else [path]


def _move_in_synch(text: str, view: Mapping[str, Any]) -> list[Clicks]:
    # A direction is clicked as the square the directioner's marker would land on.
    targets = view.get("targets") or {}
    return [[targets[text]]] if text in targets else [[text]]


_SPLITTERS: dict[str, Splitter] = {
    "mimic": _mimic,
    "eximo": _eximo,
    "frozen-forest": _whole,
    "move-in-synch": _move_in_synch,
    "mimic-taking": _whole,
}


# -- why a click starts no move, from what the seat's view shows -----------------------------

Notes = dict[str, str]


def _mimic_notes(view: Mapping[str, Any], firsts: set[str], _legal: Sequence[str]) -> Notes:
    names = [seat["name"] for seat in view["seats"]]
    mine = view.get("seat")
    notes = dict(_empty_notes(*_counts(view["files"], view["ranks"])))
    for entry in view["stacks"]:
        square, top = entry["square"], entry["stack"][-1]
        if top != mine:
            notes[square] = (f"{square} holds {names[top]}'s checker on top; you move only "
                             "stacks topped by your own checker.")
        elif entry["frozen"]:
            notes[square] = (f"{square} is frozen (it sees two or more opposing checkers) "
                             "and cannot move.")
        else:
            notes[square] = f"{square} has no legal move now."
    return {square: note for square, note in notes.items() if square not in firsts}


def _eximo_notes(view: Mapping[str, Any], firsts: set[str], legal: Sequence[str]) -> Notes:
    labels = [seat["label"] for seat in view["seats"]]
    mine = view.get("viewer")
    captures = bool(legal) and all("x" in text.split(" ")[0] for text in legal)
    notes = dict(_empty_notes(*_counts(view["files"], view["ranks"])))
    for piece in view["pieces"]:
        square = piece["square"]
        if piece["seat"] != mine:
            notes[square] = f"{square} is a {labels[piece['seat']]} checker, not yours."
        elif captures:
            notes[square] = (f"{square} cannot capture, and a capture is compulsory: "
                             "capture with one of the highlighted checkers.")
        else:
            notes[square] = f"{square} has no legal move now."
    return {square: note for square, note in notes.items() if square not in firsts}


_COLOURS = {"O": "orange", "B": "brown", "P": "purple", "G": "grey"}


def _mimic_taking_notes(view: Mapping[str, Any], firsts: set[str], legal: Sequence[str]
                        ) -> Notes:
    reference = view.get("reference")
    hand = view.get("hand") or []
    if not reference or view.get("phase") != "play":
        return {}
    colour = _COLOURS.get(reference[0], reference[0])
    return {card: (f"{card} does not follow {colour}: the reference card is {reference}, and "
                   f"you hold {colour}, so play {colour} or a mimic.")
            for card in hand if card not in firsts}


def _squares(files: Any, ranks: Any) -> tuple[str, ...]:
    return _square_names(*_counts(files, ranks))


def _counts(files: Any, ranks: Any) -> tuple[int, int]:
    """A view's board size, given as counts or as the files' and ranks' names."""
    return (files if isinstance(files, int) else len(files),
            ranks if isinstance(ranks, int) else len(ranks))


# A board's squares and their "empty" notes depend only on its size: named once per size, not
# once per page (they were a good part of the click data's cost).
@lru_cache(maxsize=16)
def _square_names(files: int, ranks: int) -> tuple[str, ...]:
    return tuple(f"{'abcdefghijklmnopqrs'[f]}{r + 1}" for f in range(files)
                 for r in range(ranks))


@lru_cache(maxsize=16)
def _empty_notes(files: int, ranks: int) -> Mapping[str, str]:
    return {square: f"{square} is empty." for square in _square_names(files, ranks)}


Explainer = Callable[[Mapping[str, Any], set[str], Sequence[str]], Notes]
_EXPLAINERS: dict[str, Explainer] = {
    "mimic": _mimic_notes,
    "eximo": _eximo_notes,
    "mimic-taking": _mimic_taking_notes,
}


# -- what is on each square, for screen readers ----------------------------------------------

def _mimic_about(view: Mapping[str, Any]) -> Notes:
    names = [seat["name"] for seat in view["seats"]]
    about = dict.fromkeys(_squares(view["files"], view["ranks"]), "empty")
    for entry in view["stacks"]:
        stack = [names[s] for s in entry["stack"]]
        text = (f"{stack[0]} checker" if len(stack) == 1 else
                f"stack of {len(stack)}, bottom to top {', '.join(stack)}")
        about[entry["square"]] = text + (", frozen" if entry["frozen"] else "")
    return about


def _eximo_about(view: Mapping[str, Any]) -> Notes:
    labels = [seat["label"] for seat in view["seats"]]
    about = dict.fromkeys(_squares(view["files"], view["ranks"]), "empty")
    for piece in view["pieces"]:
        about[piece["square"]] = f"{labels[piece['seat']]} checker"
    return about


def _frozen_forest_about(view: Mapping[str, Any]) -> Notes:
    trees, outside = set(view["trees"]), set(view["outside"])
    about = {square: "tree" if square in trees else
             "covered, outside the forest" if square in outside else "disc"
             for square in _squares(10, 10)}
    for role in ("yuki", "mina"):
        if view.get(role):
            about[view[role]] = f"{role.title()}, on a {about[view[role]]}"
    return about


def _move_in_synch_about(view: Mapping[str, Any]) -> Notes:
    seats = view["seats"]
    owner = {seat["symbol"]: seat["label"] for seat in seats}
    about = {square: f"{owner[mark]}'s {mark}" for square, mark in view["marks"].items()}
    for square in _squares(view["size"], view["size"]):
        about.setdefault(square, "empty")
    for seat in seats:
        if seat["marker"] is not None:
            about[seat["marker"]] += f", {seat['label']} marker"
    for direction, square in (view.get("targets") or {}).items():
        about[square] += f", direction {direction}"
    return about


def _mimic_taking_about(view: Mapping[str, Any]) -> Notes:
    names = {**_COLOURS, "M": "mimic"}
    return {card: names[card[0]] + (f" {card[1:]}" if card[1:] else "")
            for card in view.get("hand") or []}


_DESCRIBERS: dict[str, Callable[[Mapping[str, Any]], Notes]] = {
    "mimic": _mimic_about,
    "eximo": _eximo_about,
    "frozen-forest": _frozen_forest_about,
    "move-in-synch": _move_in_synch_about,
    "mimic-taking": _mimic_taking_about,
}
