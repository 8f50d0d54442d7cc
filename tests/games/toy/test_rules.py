"""The toy tic-tac-toe's rules, one test per rule sentence (the guide's step 6)."""

from __future__ import annotations

import pytest

from pbem.games.base import IllegalMoveError, InvalidMoveError, Transition
from tests.games.toy.tic_tac_toe import GAME, TicTacToeState

RULES = GAME.rules


def played(position: str, *moves: str) -> TicTacToeState:
    state = RULES.from_position(position)
    for text in moves:
        seat = min(RULES.to_move(state))
        transition: Transition = RULES.apply_move(state, seat, RULES.parse_move(state, seat, text))
        state = transition.state
    return state


def test_x_moves_first_on_an_empty_board_of_nine_squares() -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert RULES.position(state) == ".../.../... x"
    assert RULES.to_move(state) == {0}
    assert len(RULES.legal_moves(state, 0)) == 9 and RULES.legal_moves(state, 1) == []


def test_a_move_marks_an_empty_square_and_passes_the_turn() -> None:
    state = played(".../.../... x", " B2 ")
    assert RULES.position(state) == ".../.x./... o" and RULES.to_move(state) == {1}


def test_a_taken_square_or_a_square_off_the_board_is_refused() -> None:
    state = played(".../.../... x", "b2")
    with pytest.raises(IllegalMoveError, match="b2 is taken"):
        RULES.parse_move(state, 1, "b2")
    with pytest.raises(InvalidMoveError, match="not a square"):
        RULES.parse_move(state, 1, "d4")
    with pytest.raises(IllegalMoveError, match="not your turn"):
        RULES.parse_move(state, 0, "a1")


@pytest.mark.parametrize("line", [("a1", "b1", "c1"), ("a1", "a2", "a3"), ("a1", "b2", "c3"),
                                  ("c1", "b2", "a3")])
def test_three_in_a_row_a_column_or_a_diagonal_wins_at_once(line: tuple[str, str, str]) -> None:
    others = [square for square in ("b3", "c2", "a2", "b1", "c3") if square not in line][:2]
    state = played(".../.../... x", line[0], others[0], line[1], others[1], line[2])
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.winners == {0} and outcome.scores == (1.0, 0.0)
    assert outcome.reason == "X has three in a row" and RULES.to_move(state) == frozenset()


def test_a_full_board_without_a_line_is_a_draw() -> None:
    state = played("oxo/xxo/.ox x", "a1")
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.winners == {0, 1} and outcome.scores == (0.5, 0.5)


def test_the_text_board_names_whose_turn_or_says_the_match_is_over() -> None:
    view = RULES.view(played(".../.../... x", "b2"), None)
    assert RULES.render_text(view).splitlines() == [
        "   a b c", "3  . . .", "2  . x .", "1  . . .", "Last move: b2", "O to move."]
    assert RULES.render_text(view, over=True).splitlines()[-1] == "Match over."
