"""Text mode's commands for every game: the board read by rows, columns, squares and symbols
from the game's own text drawing, the legal and last moves, the clocks, and Mimic Taking's
hand, trick, scores and cards played; anything else is a move. In every page language."""

from __future__ import annotations

import dataclasses
import random

import pytest

from pbem import i18n
from pbem.games import get_rules
from pbem.games.text_commands import Reading, answer, help_lines


def _reading(slug: str, players: int = 2, plies: int = 0, seat: int = 0) -> Reading:
    rules = get_rules(slug)
    state = rules.new_game(players, {}, 1)
    rng, moves = random.Random(2), []
    for _ in range(plies):
        mover = sorted(rules.to_move(state))[0]
        move = rng.choice(list(rules.legal_moves(state, mover)))
        moves.append((f"Player {mover + 1}", rules.format_move(state, move)))
        state = rules.apply_move(state, mover, move).state
    view = rules.view(state, seat)
    legal = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)] \
        if seat in rules.to_move(state) else []
    return Reading(rules.render_text(view), legal, moves, ("Player 1: 3 days left.",), view)


def _package(slug: str) -> str:
    return type(get_rules(slug)).__module__.rsplit(".", 1)[0]


def ask(slug: str, reading: Reading, line: str) -> str | None:
    return answer(_package(slug), reading, line)


def test_mimic_is_read_by_rows_columns_squares_and_symbols() -> None:
    start = _reading("mimic")
    assert ask("mimic", start, "row 2") == (
        "Row 2: b2 B, c2 B, d2 B, e2 B, f2 B, g2 B, h2 B, i2 B, 2 empty.")
    assert ask("mimic", start, "column a") == "Column a: 10 empty."
    assert ask("mimic", start, "square b9") == "b9: R."
    assert ask("mimic", start, "SQUARE e5") == "e5: empty."
    assert ask("mimic", start, "pieces R").startswith("R on 8 squares: b9 R, c9 R")
    assert "B = Blue" in ask("mimic", start, "key")
    assert ask("mimic", start, "square z9").startswith("There is no square 'z9'")
    assert ask("mimic", start, "row 11").startswith("There is no row '11'")
    assert ask("mimic", start, "b2-b3") is None, "not a command: a move"


@pytest.mark.parametrize(("slug", "line", "said"), [
    ("eximo", "square b2", "b2: b."),
    ("eximo", "row 5", "Row 5: 8 empty."),
    ("frozen-forest", "square j10", "j10: ^."),
    ("move-in-synch", "row 8", "Row 8: 8 empty."),
    ("move-in-synch", "column h", "Column h: 8 empty."),
])
def test_every_board_game_reads_its_squares(slug: str, line: str, said: str) -> None:
    assert ask(slug, _reading(slug), line) == said


def test_moves_last_and_clocks_for_any_game() -> None:
    played = _reading("mimic", plies=3, seat=1)
    assert ask("mimic", played, "moves").startswith(f"{len(played.legal)} legal moves: ")
    last = ask("mimic", played, "last 2")
    assert last and last.startswith("2. Player 2 ") and "3. Player 1 " in last
    assert ask("mimic", _reading("mimic"), "last") == "No move has been made yet."
    # A page of the move list that starts late (the play page lists the latest ten) keeps
    # the moves' own numbers.
    late = ask("mimic", dataclasses.replace(played, first=21), "last 2")
    assert late and late.startswith("22. Player 2 ") and "23. Player 1 " in late
    assert ask("mimic", played, "clocks") == "Player 1: 3 days left."
    assert ask("mimic", _reading("mimic", seat=1), "moves") == "You have no move to make now."


def test_mimic_taking_reads_the_hand_the_trick_the_scores_and_the_cards_played() -> None:
    reading = _reading("mimic-taking", players=3, plies=4)
    hand = ask("mimic-taking", reading, "hand")
    assert hand and hand.startswith("Your hand, 11 cards: ")
    assert ask("mimic-taking", reading, "trick") == "Current trick: Player 2 B6."
    scores = ask("mimic-taking", reading, "scores")
    assert scores and scores.startswith("Round 1 of 5. Player 1: 0 points, 3 cards taken")
    played = ask("mimic-taking", reading, "played")
    assert played and played.startswith("4 cards played this round: ")
    assert played.endswith("Player 2 B6.")
    assert ask("mimic-taking", reading, "row 2") is None, "no grid: no board commands"
    assert ask("mimic-taking", reading, "O3") is None


@pytest.mark.parametrize("code", ["en", "de", "ja"])
def test_help_names_every_command_in_the_readers_language(code: str) -> None:
    with i18n.language(code):
        for slug in ("mimic", "mimic-taking"):
            said = ask(slug, _reading(slug, players=3 if slug == "mimic-taking" else 2),
                       "help")
            names = [name for name, _help in help_lines(_package(slug))]
            assert said and all(f"{name}:" in said for name in names)
        if code != "en":
            assert help_lines(_package("mimic"))[1][1] != "the whole position as text"
