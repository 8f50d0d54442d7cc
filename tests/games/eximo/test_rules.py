"""EXIMO: one test per rule sentence (rules/eximo.txt) and per ruling (RULINGS.md, "EXIMO").

Positions are built by hand through the position text; see `board()` below.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from pbem.games import get_rules
from pbem.games.base import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    OptionError,
    RulesError,
)
from pbem.games.eximo.rules import START_POSITION, EximoRules, EximoState
from tests.support.render import render

RULES = EximoRules()
ZONE_BLACK = "b1 c1 d1 e1 f1 g1 b2 c2 d2 e2 f2 g2"
ZONE_WHITE = "b7 c7 d7 e7 f7 g7 b8 c8 d8 e8 f8 g8"


def board(black: str = "", white: str = "", turn: str = "b") -> EximoState:
    """A position with Black and White checkers on the listed squares, `turn` (b/w) to move."""
    pieces = {square: "b" for square in black.split()}
    pieces.update({square: "w" for square in white.split()})
    rows = []
    for rank in range(8, 0, -1):
        row = "".join(pieces.get(f"{file}{rank}", ".") for file in "abcdefgh")
        rows.append(re.sub(r"\.+", lambda run: str(len(run.group())), row))
    return RULES.from_position("/".join(rows) + " " + turn)


def moves(state: EximoState, start: str | None = None) -> list[str]:
    texts = [RULES.format_move(state, m) for m in RULES.legal_moves(state, state.turn)]
    return [t for t in texts if start is None or t.startswith(start)]


def play(state: EximoState, text: str) -> EximoState:
    seat = state.turn
    return RULES.apply_move(state, seat, RULES.parse_move(state, seat, text)).state


def refusal(state: EximoState, text: str, error: type[Exception] = IllegalMoveError) -> str:
    with pytest.raises(error) as caught:
        RULES.parse_move(state, state.turn, text)
    return str(caught.value)


def occupant(state: EximoState, square: str) -> str:
    file, rank = "abcdefgh".index(square[0]), int(square[1:]) - 1
    return state.board[rank * 8 + file]


# -- registry, players and options ---------------------------------------------------------------


def test_eximo_is_registered_for_two_players_without_options() -> None:
    rules = get_rules("eximo")
    assert rules.slug == "eximo" and rules.title == "EXIMO"
    assert rules.player_counts == frozenset({2}) and rules.options == ()


def test_any_option_is_refused_with_a_clear_message() -> None:
    with pytest.raises(OptionError, match="EXIMO has no option drops"):
        RULES.new_game(2, {"drops": 3}, 1)


def test_three_players_are_refused() -> None:
    with pytest.raises(RulesError, match="played by 2 players, not 3"):
        RULES.new_game(3, {}, 1)


# -- setup and opening (ruling: setup; rule text: opening moves) ---------------------------------


def test_setup_puts_black_on_b1_g2_b3_c3_f3_g3_and_white_mirrored() -> None:
    state = RULES.new_game(2, {}, 5)
    assert RULES.position(state) == START_POSITION
    assert state == board(f"{ZONE_BLACK} b3 c3 f3 g3", f"{ZONE_WHITE} b6 c6 f6 g6")
    assert RULES.to_move(state) == frozenset({0})
    assert RULES.seat_label(state, 0) == "Black" and RULES.seat_label(state, 1) == "White"


def test_the_seed_does_not_change_the_start() -> None:
    assert RULES.new_game(2, {}, 1) == RULES.new_game(2, {}, 999)


def test_black_has_forty_opening_moves_twenty_up_to_mirror_symmetry() -> None:
    opening = moves(RULES.new_game(2, {}, 1))
    assert len(opening) == len(set(opening)) == 40
    mirror = str.maketrans("abcdefgh", "hgfedcba")
    assert len({min(text, text.translate(mirror)) for text in opening}) == 20


def test_ten_checkers_open_three_ways_four_two_ways_and_two_one_way() -> None:
    state = RULES.new_game(2, {}, 1)
    per_checker = Counter(text.split("-")[0] for text in moves(state))
    assert Counter(per_checker.values()) == {3: 10, 2: 4, 1: 2}


def test_white_has_forty_replies_to_every_black_opening() -> None:
    state = RULES.new_game(2, {}, 1)
    for text in moves(state):
        assert len(moves(play(state, text))) == 40, text


# -- ordinary move ---------------------------------------------------------------------------


def test_ordinary_move_goes_one_step_north_north_east_or_north_west() -> None:
    assert moves(board("d4", "h8")) == ["d4-c5", "d4-d5", "d4-e5"]


def test_white_moves_south() -> None:
    assert moves(board("a1", "d5", turn="w")) == ["d5-c4", "d5-d4", "d5-e4"]


def test_ordinary_move_needs_an_empty_square() -> None:
    # c5 and e5 are White but cannot be captured (the squares beyond are taken).
    state = board("d4", "c5 e5 b6 f6 h8")
    assert moves(state) == ["d4-d5"]
    assert "e5 is occupied" in refusal(state, "d4-e5")


def test_a_checker_never_steps_sideways_or_backwards() -> None:
    state = board("d4", "h8")
    assert refusal(state, "d4-e4") == "d4-e4: a checker moves sideways only when it captures"
    assert refusal(state, "d4-d3") == ("d4-d3: a checker never moves backwards, only forward or "
                                       "diagonally forward (north-west, north, north-east)")
    assert "south-west, south, south-east" in refusal(board("a1", "d5", turn="w"), "d5-d6")


def test_an_ordinary_move_is_a_single_step() -> None:
    assert "single step" in refusal(board("d4", "h8"), "d4-d5-d6")


# -- jumping move ----------------------------------------------------------------------------


def test_jumping_move_goes_over_a_friendly_checker_in_three_directions_only() -> None:
    state = board("d4 c5 d5 e5 c4 e4 c3 d3 e3", "h8")
    assert moves(state, "d4") == ["d4-b6", "d4-d6", "d4-f6"]


def test_a_checker_cannot_jump_a_friendly_checker_sideways() -> None:
    assert "only forward or diagonally forward" in refusal(board("d4 e4", "h8"), "d4-f4")


def test_a_jump_needs_an_empty_landing_square() -> None:
    state = board("c1 c2 c3", "h8")
    assert moves(state, "c1") == ["c1-b2", "c1-d2"]
    assert "c3 is occupied" in refusal(state, "c1-c3")


def test_jumping_move_must_continue_while_another_friendly_jump_is_possible() -> None:
    state = board("c1 c2 c4", "h8")
    assert moves(state, "c1") == ["c1-b2", "c1-d2", "c1-c3-c5"]
    message = refusal(state, "c1-c3")
    assert "must continue" in message and "c5" in message and "c1-c3-c5" in message


def test_jumping_move_branches_are_the_players_choice_and_need_not_be_longest() -> None:
    state = board("c1 c2 d2 c4", "h8")
    assert {"c1-e3", "c1-c3-c5"} <= set(moves(state, "c1"))
    assert occupant(play(state, "c1-e3"), "e3") == "b"


def test_a_jumping_move_cannot_capture_on_the_way() -> None:
    state = board("c1 c2", "c4 h8")
    assert moves(state, "c1") == ["c1-b2", "c1-d2", "c1-c3"]
    assert "never a mix" in refusal(state, "c1-c3xc5")
    assert "never a mix" in refusal(state, "c1-c3-c5")


def test_a_jump_over_an_empty_square_is_refused() -> None:
    assert "no checker on c2 to jump over" in refusal(board("c1", "h8"), "c1-c3")


def test_the_full_path_tells_apart_two_jumps_to_the_same_square() -> None:
    state = board("c1 c2 d2 d4 e4", "h8")
    assert {"c1-c3-e5", "c1-e3-e5"} <= set(moves(state, "c1"))
    message = refusal(state, "c1-e5", AmbiguousMoveError)
    assert "c1-c3-e5" in message and "c1-e3-e5" in message
    # The start and end are enough when only one path joins them.
    assert RULES.format_move(state, RULES.parse_move(state, 0, "c1-c5")) == "c1-e3-c5"


# -- capture ---------------------------------------------------------------------------------


def test_capture_goes_in_five_directions_but_never_backwards() -> None:
    state = board("d4", "c5 d5 e5 c4 e4 c3 d3 e3")
    first_landings = {text.split("x")[1] for text in moves(state)}
    assert first_landings == {"b6", "d6", "f6", "b4", "f4"}


def test_a_single_capture_removes_the_captured_checker() -> None:
    state = play(board("d4", "e5 a8"), "d4xf6")
    assert occupant(state, "e5") == "." and occupant(state, "f6") == "b"
    assert occupant(state, "d4") == "."


def test_white_captures_south_east_and_west() -> None:
    state = board("d4 c5 e5 a1", "d5", turn="w")
    assert moves(state) == ["d5xd3", "d5xb5", "d5xf5"]


def test_capture_is_mandatory_for_every_checker_of_the_side() -> None:
    state = board("a1 c1 c2 d4", "d5 h8")
    assert moves(state) == ["d4xd6"]
    assert "capturing is mandatory: d4 can capture d5 (d4xd6)" in refusal(state, "a1-a2")
    assert "capturing is mandatory" in refusal(state, "c1-c3")


def test_capture_must_continue_while_another_capture_is_possible() -> None:
    state = board("e4", "e5 f6")
    assert moves(state) == ["e4xe6xg6"]
    message = refusal(state, "e4xe6")
    assert message == ("the capture must continue: from e6 the checker can still capture f6 "
                       "by jumping to g6 (e4xe6xg6)")


def test_capture_branches_are_free_and_the_longest_is_not_required() -> None:
    state = board("c2", "b3 d3 e5")
    assert moves(state) == ["c2xa4", "c2xe4xe6"]
    after = play(state, "c2xa4")
    assert occupant(after, "d3") == "w" and occupant(after, "e5") == "w"


def test_captured_checkers_leave_at_once_and_cannot_be_jumped_twice() -> None:
    # Were c4 left standing until the end of the turn, b4 could capture it back and forth.
    state = board("b4", "c4 h8")
    assert moves(state) == ["b4xd4"]
    after = play(state, "b4xd4")
    assert occupant(after, "c4") == "." and after.board.count("w") == 1


def test_a_capture_sequence_removes_every_captured_checker() -> None:
    after = play(board("e4", "e5 f6 a8"), "e4xe6xg6")
    assert [occupant(after, s) for s in ("e4", "e5", "e6", "f6", "g6")] == list("...." + "b")


def test_a_capture_cannot_land_on_an_occupied_square() -> None:
    state = board("d4 a1", "d5 d6 h8")
    assert "d4xd6" not in moves(state)
    assert "d6 is occupied" in refusal(state, "d4xd6")


# -- the far row (rule text "On the last row"; ruling on drops) ------------------------------


def test_reaching_the_far_row_removes_the_checker_and_drops_two() -> None:
    state = board("d7", "a5")
    assert len(moves(state)) == 3 * 66
    after = play(state, "d7-d8 drop c1 d1")
    assert occupant(after, "d8") == "." and occupant(after, "d7") == "."
    assert occupant(after, "c1") == "b" and occupant(after, "d1") == "b"
    assert after.board.count("b") == 2 and after.turn == 1


def test_drops_go_only_on_the_first_two_rows_without_the_a_and_h_files() -> None:
    state = board("d7", "a5")
    dropped = {square for text in moves(state) for square in text.split(" drop ")[1].split()}
    assert dropped == set(ZONE_BLACK.split())
    for square in ("a1", "h2", "c3"):
        message = refusal(state, f"d7-d8 drop {square} d1")
        assert f"{square} is outside your drop zone" in message


def test_white_drops_on_its_own_first_two_rows() -> None:
    state = board("a3", "e2", turn="w")
    dropped = {square for text in moves(state) for square in text.split(" drop ")[1].split()}
    assert dropped == set(ZONE_WHITE.split())
    assert "c1 is outside your drop zone" in refusal(state, "e2-e1 drop c1 c8")


def test_the_two_drops_are_an_unordered_pair() -> None:
    state = board("d7", "a5")
    assert len(moves(state, "d7-d8")) == 66
    assert RULES.parse_move(state, 0, "d7-d8 drop d1 c1") == RULES.parse_move(
        state, 0, "d7-d8 drop c1 d1")
    assert "two different squares" in refusal(state, "d7-d8 drop c1 c1")
    assert "exactly two drops" in refusal(state, "d7-d8 drop c1")
    assert "exactly two drops" in refusal(state, "d7-d8 drop c1 d1 e1")


def test_drops_are_named_in_file_then_rank_order() -> None:
    state = board("d7", "a5")
    assert RULES.format_move(state, RULES.parse_move(state, 0, "d7-d8 drop c1 b2")) == (
        "d7-d8 drop b2 c1")


def test_drops_cannot_go_on_an_occupied_square() -> None:
    state = board("d7 b1", "a5")
    assert "cannot drop on b1: it is occupied" in refusal(state, "d7-d8 drop b1 c1")


def test_only_one_drop_when_one_square_of_the_zone_is_free() -> None:
    state = board(ZONE_BLACK.replace("c1 ", "") + " d7", "a5")
    assert moves(state, "d7") == ["d7-c8 drop c1", "d7-d8 drop c1", "d7-e8 drop c1"]
    assert RULES.format_move(state, RULES.parse_move(state, 0, "d7-d8")) == "d7-d8 drop c1"
    assert "drop exactly one" in refusal(state, "d7-d8 drop c1 d2")


def test_no_drop_when_the_zone_is_full_and_the_checker_is_lost() -> None:
    state = board(ZONE_BLACK + " d7", "a5")
    assert moves(state, "d7") == ["d7-c8", "d7-d8", "d7-e8"]
    after = play(state, "d7-d8")
    assert after.board.count("b") == 12
    assert "nothing to drop" in refusal(state, "d7-d8 drop c1")


def test_two_free_squares_give_the_one_forced_pair() -> None:
    state = board(ZONE_BLACK.replace("c1 ", "").replace("g2", "") + " d7", "a5")
    assert moves(state, "d7-d8") == ["d7-d8 drop c1 g2"]
    assert RULES.format_move(state, RULES.parse_move(state, 0, "d7-d8")) == "d7-d8 drop c1 g2"


def test_missing_drops_with_a_choice_to_make_are_ambiguous() -> None:
    message = refusal(board("d7", "a5"), "d7-d8", AmbiguousMoveError)
    assert "choosing two of b1, b2, c1" in message and "d7-d8 drop b1 b2" in message


def test_a_jump_reaching_the_far_row_frees_its_own_starting_square_for_a_drop() -> None:
    state = board(ZONE_BLACK + " d3 d5 d7", "a5")
    assert "d2-d4-d6-d8 drop d2" in moves(state, "d2")


def test_a_capture_reaching_the_far_row_ends_the_sequence() -> None:
    # On d8 the checker would see e8 with f8 empty, but it has already left the board.
    state = board("d6", "d7 e8")
    assert {text.split(" drop ")[0] for text in moves(state)} == {"d6xd8"}
    message = refusal(state, "d6xd8xf8 drop c1 d1")
    assert "leaves the board when it reaches d8" in message
    after = play(state, "d6xd8 drop c1 d1")
    assert occupant(after, "d7") == "." and occupant(after, "e8") == "w"


def test_a_friendly_jump_reaching_the_far_row_removes_the_checker() -> None:
    state = board("d6 d7", "a5")
    after = play(state, "d6-d8 drop c2 f2")
    assert occupant(after, "d8") == "." and occupant(after, "d6") == "."
    assert after.board.count("b") == 3


def test_drops_belong_only_to_a_move_that_reaches_the_far_row() -> None:
    assert "only when a checker reaches the far row" in refusal(board("d4", "h8"),
                                                               "d4-d5 drop c1 d1")


def test_drops_need_a_move_first() -> None:
    assert "write the path first" in refusal(board("d4", "h8"), "drop c1 d1", InvalidMoveError)
    assert "drops come only after a move" in refusal(board("d4", "h8"), "d4 drop c1 d1")


# -- end of the game (object; ruling: no legal move loses) -----------------------------------


def test_a_side_without_checkers_loses() -> None:
    state = board("d4", "", turn="w")
    over = RULES.outcome(state)
    assert over is not None and over.winners == frozenset({0}) and over.scores == (1.0, 0.0)
    assert over.reason == "White has no checkers left, so Black wins"
    assert RULES.to_move(state) == frozenset()


def test_capturing_the_last_checker_wins_the_game() -> None:
    state = board("d4", "d5")
    transition = RULES.apply_move(state, 0, RULES.parse_move(state, 0, "d4xd6"))
    assert RULES.outcome(transition.state).winners == frozenset({0})
    assert [event.kind for event in transition.events] == ["moved", "game_over"]
    assert "refused" not in RULES.describe_event(transition.events[1])
    assert RULES.describe_event(transition.events[1]) == (
        "Game over: White has no checkers left, so Black wins")


def test_a_side_with_checkers_but_no_legal_move_loses() -> None:
    state = board("b3 d3 f3 c4 d4 e4 b5 c5 e5 f5", "d5", turn="w")
    assert RULES.legal_moves(state, 1) == []
    over = RULES.outcome(state)
    assert over is not None and over.winners == frozenset({0})
    assert over.reason == "White has no legal move, so Black wins"
    assert RULES.to_move(state) == frozenset()


def test_a_move_after_the_end_is_refused() -> None:
    assert "the game is over" in refusal(board("d4", "", turn="w"), "d5-d4")


def test_a_move_out_of_turn_is_refused() -> None:
    state = RULES.new_game(2, {}, 1)
    with pytest.raises(IllegalMoveError, match="not your turn: Black is to move"):
        RULES.parse_move(state, 1, "c6-c5")
    assert RULES.legal_moves(state, 1) == []


# -- notation --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["c2-c3", "C2-C3", "c2c3", " c2 - c3 ", "c2\u2013c3",
                                  "c2 c3", "c2:c3"])
def test_ordinary_move_notation_is_forgiving(text: str) -> None:
    state = board("c2", "h8")
    assert RULES.format_move(state, RULES.parse_move(state, 0, text)) == "c2-c3"


@pytest.mark.parametrize("text", ["e4xe6xg6", "E4XE6XG6", "e4 x e6 x g6", "e4e6g6",
                                  "e4\u00d7e6\u00d7g6", "e4-e6-g6"])
def test_capture_notation_is_forgiving(text: str) -> None:
    state = board("e4", "e5 f6")
    assert RULES.format_move(state, RULES.parse_move(state, 0, text)) == "e4xe6xg6"


@pytest.mark.parametrize("text", ["d6xd8 drop c1 d1", "D6XD8 DROP D1 C1", "d6xd8drop c1d1",
                                  "d6xd8 drops c1, d1", "d6xd8 c1 d1", "d6 x d8  drop c1 and d1"])
def test_drop_notation_is_forgiving(text: str) -> None:
    state = board("d6", "d7 e8")
    assert RULES.format_move(state, RULES.parse_move(state, 0, text)) == "d6xd8 drop c1 d1"


def test_jumping_move_notation_names_every_landing_square() -> None:
    state = board("c1 c2 c4", "h8")
    move = RULES.parse_move(state, 0, "c1c3c5")
    assert RULES.format_move(state, move) == "c1-c3-c5"


@pytest.mark.parametrize("text", ["hello", "c2", "c2-c3 please", "", "c2--x-c3"])
def test_text_that_is_not_a_move_is_invalid_and_quoted(text: str) -> None:
    message = refusal(board("c2", "h8"), text, InvalidMoveError)
    assert repr(text.strip()) in message


def test_a_square_off_the_board_is_invalid() -> None:
    assert "'c9' is not on the board (a1 to h8)" in refusal(board("c2", "h8"), "c2-c9",
                                                             InvalidMoveError)


def test_moving_from_an_empty_square_or_an_opponents_checker_is_refused() -> None:
    state = board("c2", "h8")
    assert refusal(state, "d2-d3") == "there is no checker on d2"
    assert refusal(state, "h8-h7") == "h8 holds a White checker, not one of yours"


def test_a_hop_that_is_neither_step_nor_jump_is_refused() -> None:
    assert "neither a step" in refusal(board("c2", "h8"), "c2-d5")


def test_jumps_and_captures_never_go_backwards() -> None:
    assert "never moves, jumps or captures backwards" in refusal(board("d4", "d3 h8"), "d4-d2")


# -- views, events, text and storage ---------------------------------------------------------


def test_every_seat_and_spectators_see_the_same_board() -> None:
    state = play(RULES.new_game(2, {}, 1), "c3-d4")
    views = [RULES.view(state, seat) for seat in (0, 1, None)]
    for view in views:
        json.dumps(view)
        del view["viewer"]
    assert views[0] == views[1] == views[2]


def test_the_view_shows_the_last_move_with_its_captures_and_drops() -> None:
    state = play(board("d6", "d7 e8"), "d6xd8 drop c1 d1")
    last = RULES.view(state, None)["last_move"]
    assert last == {"seat": 0, "label": "Black", "text": "d6xd8 drop c1 d1",
                    "squares": ["d6", "d8"], "captured": ["d7"], "drops": ["c1", "d1"],
                    "removed_at": "d8"}
    assert RULES.view(state, 1)["to_move_label"] == "White"


def test_render_text_draws_the_board_with_coordinates() -> None:
    text = RULES.render_text(RULES.view(play(RULES.new_game(2, {}, 1), "c3-d4"), 0))
    lines = text.splitlines()
    assert lines[0] == "    a b c d e f g h"
    assert lines[1] == " 8  . w w w w w w .  8"
    assert lines[5] == " 4  . . . b . . . .  4"
    assert "Last move: Black c3-d4" in text and "White to move." in text


def test_white_sees_the_text_board_turned_like_its_web_page() -> None:
    text = RULES.render_text(RULES.view(play(RULES.new_game(2, {}, 1), "c3-d4"), 1))
    lines = text.splitlines()
    assert lines[0] == "    h g f e d c b a"
    assert lines[1] == " 1  . b b b b b b .  1"
    assert lines[5] == " 5  . . . . . . . .  5"
    assert lines[4] == " 4  . . . . b . . .  4"


def test_events_describe_moves_captures_and_drops_in_words() -> None:
    state = board("d6", "d7 e8 a5")
    event = RULES.apply_move(state, 0, RULES.parse_move(state, 0, "d6xd8 drop c1 d1")).events[0]
    assert RULES.describe_event(event) == (
        "Black d6xd8, capturing d7; the checker reached d8 and left the board, "
        "and new checkers were dropped on c1 and d1")
    step = RULES.apply_move(state, 0, RULES.parse_move(state, 0, "d6xd8 drop c1 d1")).state
    event = RULES.apply_move(step, 1, RULES.parse_move(step, 1, "a5-a4")).events[0]
    assert RULES.describe_event(event) == "White a5-a4"


def test_apply_move_leaves_its_input_untouched_and_dump_round_trips() -> None:
    state = board("e4", "e5 f6 a8")
    before = RULES.dump(state)
    after = play(state, "e4xe6xg6")
    assert RULES.dump(state) == before
    assert RULES.load(json.loads(json.dumps(RULES.dump(after)))) == after


def test_position_text_round_trips_and_names_the_side_to_move() -> None:
    text = "1wwwwww1/1wwwwww1/1ww2ww1/8/3b4/1bb3b1/1bbbbbb1/1bbbbbb1 w"
    assert RULES.position(RULES.from_position(text)) == text
    assert RULES.from_position(text).turn == 1
    assert RULES.position(board("d4", "h8")) == "7w/8/8/8/3b4/8/8/8 b"


@pytest.mark.parametrize("text", ["8/8/8/8/8/8/8/8", "8/8/8/8/8/8/8 b", "9/8/8/8/8/8/8/8 b",
                                  "8/8/8/8/8/8/8/8 x", "3k4/8/8/8/8/8/8/8 b",
                                  "3b4/8/8/8/8/8/8/8 w", "8/8/8/8/8/8/8/3w4 b"])
def test_bad_position_text_is_refused(text: str) -> None:
    with pytest.raises(RulesError):
        RULES.from_position(text)


def test_the_autoplay_default_is_the_first_legal_move() -> None:
    state = RULES.new_game(2, {}, 1)
    assert RULES.format_move(state, RULES.default_move(state, 0)) == "b1-a2"
    assert RULES.format_move(board("a1 d4", "d5 h8"),
                             RULES.default_move(board("a1 d4", "d5 h8"), 0)) == "d4xd6"


# -- templates -------------------------------------------------------------------------------


def _page_globals() -> dict[str, object]:
    return {"url_for": lambda endpoint, **_: f"/{endpoint}",
            "config": {"PBEM_SETTINGS": {"development": False}},
            "page_flashes": lambda: []}


def test_rules_page_explains_rulings_notation_position_text_and_autoplay() -> None:
    page = " ".join(render("games/eximo/rules.html", rules=RULES, **_page_globals()).split())
    for needle in ("Capturing is compulsory", "forty", "two, one or none", "whole path",
                   "no legal move", "c1-c3-c5", "e4xe6xg6", "d6xd8 drop c1 d1", START_POSITION,
                   "b1-a2", "never on the a or h file"):
        assert needle in page, needle


def test_board_highlights_the_last_move_and_marks_captures_and_movable_checkers() -> None:
    state = play(board("d6 c2", "d7 e8 a5"), "d6xd8 drop c1 d1")
    play_now = [RULES.format_move(state, m) for m in RULES.legal_moves(state, 1)]
    svg = render("games/eximo/board.html", view=RULES.view(state, 1), seat=1,
                 legal_moves=play_now)
    assert svg.count('fill="#f2d14b"') == 4  # d6, d8 and the drops c1, d1
    assert "White checker on a5" in svg and 'stroke="#2e8b57"' in svg
    assert "left the board at d8" in svg and "captured d7" in svg
    table = render("games/eximo/board_table.html", view=RULES.view(state, None), seat=None)
    assert table.count('bgcolor="#f2d14b"') == 4 and "&times;" in table


def test_an_unfinished_capture_is_refused_not_swapped_for_another_path() -> None:
    # Review finding: "d4xd6" once matched the other capture ending on d6 (d4xb4xb6xd6).
    state = RULES.from_position("8/8/2w5/1w1w4/2wb4/8/8/8 b")
    assert sorted(moves(state)) == ["d4xb4xb6xd6", "d4xd6xb6"]
    for text in ("d4xd6", "d4-d6"):
        with pytest.raises(IllegalMoveError, match="must continue"):
            RULES.parse_move(state, 0, text)


def test_drops_written_without_the_word_drop_get_the_right_refusal() -> None:
    state = RULES.from_position("8/2b5/8/3w4/3b4/7w/8/8 b")
    for text in ("c7-c8 d1 e1", "c7-c8 drop d1 e1"):
        with pytest.raises(IllegalMoveError, match="capturing is mandatory"):
            RULES.parse_move(state, 0, text)
