"""The boards drawn in Python (SVG for pages, HTML tables for email) escape whatever text the
view carries: a seat's name or label, a colour, a square. Templates autoescape; these strings
are built by hand, so this holds them to the same standard."""

from __future__ import annotations

import copy
import inspect
from typing import Any

import pytest

from pbem.games import GAMES

HOSTILE = '<script>alert(1)</script>"\'&'


def _poisoned(view: dict[str, Any]) -> dict[str, Any]:
    """The view with every seat's words replaced by markup an attacker would like to run."""
    bad = copy.deepcopy(view)
    for seat in bad.get("seats", []):
        if isinstance(seat, dict):
            for key in ("name", "label", "colour"):
                if isinstance(seat.get(key), str):
                    seat[key] = HOSTILE
    return bad


def _draw(function: Any, view: dict[str, Any], legal: list[str]) -> str:
    names = list(inspect.signature(function).parameters)
    arguments: dict[str, Any] = {}
    for name in names:
        arguments[name] = {"view": view, "flip": False, "legal_moves": legal}.get(name)
    drawn = function(**arguments)
    return "".join(map(str, drawn.values())) if isinstance(drawn, dict) else str(drawn)


@pytest.mark.parametrize("game", [g for g in GAMES if g.board_picture], ids=lambda g: g.slug)
def test_hostile_words_in_a_view_are_escaped_on_every_board(game) -> None:
    rules = game.rules
    state = rules.new_game(min(rules.player_counts), {}, 7)
    seat = min(rules.to_move(state))
    legal = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
    view = _poisoned(rules.view(state, seat))
    for name, function in game.template_globals.items():
        drawn = _draw(function, view, legal)
        assert "<script" not in drawn, name
        if any(isinstance(seat, dict) for seat in view.get("seats", [])) and "title" in drawn:
            assert "&lt;script&gt;" in drawn or HOSTILE not in drawn, name


def test_the_card_labels_of_mimic_taking_are_escaped() -> None:
    game = next(g for g in GAMES if g.slug == "mimic-taking")
    for name, function in game.template_globals.items():
        hostile = "O" + HOSTILE  # a card's colour letter, then anything
        drawn = str(function(hostile) if name.endswith("_card") else function([hostile]))
        assert "<script" not in drawn, name
