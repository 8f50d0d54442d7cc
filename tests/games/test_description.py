"""Every game is described once, and the description tells the truth about its rules: the
framework reads descriptions (never a game's name), so a wrong one would mislead it."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

import pbem.games
from pbem.games import DESCRIPTIONS, FOLDERS, GAMES, REGISTRY, describe
from pbem.games.base import HidesInformation
from pbem.paths import TEMPLATES
from tests.support.render import SUPPORT_TEMPLATES

GAMES_DIR = Path(pbem.games.__file__).parent


def folder_of(game) -> Path:
    """The folder a game's rules live in: pbem/games/<game>/, or the toy's under tests."""
    return Path(sys.modules[type(game.rules).__module__].__file__).parent


def test_every_game_folder_is_registered_once() -> None:
    folders = {p.parent.name for p in GAMES_DIR.glob("*/__init__.py")} - {"boards"}
    assert sorted(FOLDERS) == sorted(folders)
    assert len(GAMES) == len(DESCRIPTIONS) == len({game.slug for game in GAMES})
    assert all(REGISTRY[game.slug] is game.rules for game in GAMES)  # (tests add test games)
    assert all(folder_of(game).name == game.slug.replace("-", "_") for game in GAMES)
    # Besides the folders listed, only a game a test run registers (tests/games/toy).
    assert {folder_of(game).name for game in GAMES if folder_of(game).parent == GAMES_DIR} \
        == folders


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_the_description_matches_its_rules(game) -> None:
    rules = game.rules
    assert describe(game.slug) is game and REGISTRY[game.slug] is rules
    assert game.title == rules.title and game.player_counts == rules.player_counts
    assert game.notation, "say the notation in a line"
    if game.hidden_information:  # hiding needs a way to re-deal what a seat cannot see
        assert isinstance(rules, HidesInformation)
    if game.board_picture:  # an SVG board: a position text and its drawing functions
        assert game.position_text
        assert any(name.endswith("_pieces") for name in game.template_globals)
    # A game a test run registers keeps its templates with the test games'.
    root = TEMPLATES if folder_of(game).parent == GAMES_DIR else SUPPORT_TEMPLATES
    folder = Path(root) / "games" / game.slug
    for template in ("board.html", "board_table.html", "rules.html"):
        assert (folder / template).is_file(), f"{game.slug} needs templates/games/…/{template}"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_the_click_data_splits_every_legal_move_and_the_fixtures_seed_a_short_game(game) -> None:
    rules = game.rules
    players = min(rules.player_counts)
    seed = game.fixtures.short_seed
    state = rules.new_game(players, {}, seed)
    chooser = random.Random(seed)
    plies = 0
    while rules.outcome(state) is None and plies < 2000:
        seat = min(rules.to_move(state))
        legal = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
        view = rules.view(state, seat)
        for text in legal:
            ways = game.clicks.split(text, view)
            assert ways and all(ways) and all(all(click for click in way) for way in ways)
        move = chooser.choice(list(rules.legal_moves(state, seat)))
        state = rules.apply_move(state, seat, move).state
        plies += 1
    assert rules.outcome(state) is not None and plies < 2000


def test_a_test_only_game_gets_a_plain_description(monkeypatch) -> None:
    from tests.support.games import TEST_GAMES

    nim = TEST_GAMES["nim"]
    monkeypatch.setitem(REGISTRY, nim.slug, nim)
    plain = describe(nim.slug)
    assert plain.rules is nim and plain.template_globals == {}
    assert plain.clicks.split("take 1", {}) == [["take 1"]]
