"""Mimic: one test per rule sentence and ruling, each on a hand-built position.

Positions are built through the documented position text (see pbem/games/mimic.py), with the
`board` helper below writing the board field from a square -> stack map (bottom to top).
"""

from __future__ import annotations

import json
import random

import pytest

from pbem.games import get_rules
from pbem.games.base import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    OptionError,
    RulesError,
)
from pbem.games.mimic.rules import MimicRules, MimicState

RULES: MimicRules = get_rules("mimic")  # type: ignore[assignment]
START = "10/1rrrrrrrr1/10/10/10/10/10/10/1bbbbbbbb1/10 b - goal:any -"
FILES = "abcdefghij"


def board(**stacks: str) -> str:
    """The board field of a position text: board(e4="b", e7="br") puts a stack on e7."""
    ranks = []
    for rank in range(10, 0, -1):
        text, empty = "", 0
        for file in FILES:
            stack = stacks.get(f"{file}{rank}", "")
            if not stack:
                empty += 1
                continue
            if empty:
                text, empty = text + str(empty), 0
            text += stack if len(stack) == 1 else f"({stack})"
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


def position(side: str = "b", before: str = "-", rule: str = "goal:any",
             result: str = "-", **stacks: str) -> MimicState:
    return RULES.from_position(f"{board(**stacks)} {side} {before} {rule} {result}")


def moves(state: MimicState, seat: int | None = None) -> set[str]:
    seat = state.turn if seat is None else seat
    return {RULES.format_move(state, m) for m in RULES.legal_moves(state, seat)}


def play(state: MimicState, text: str) -> tuple[MimicState, list[str]]:
    """Play a move by the side to move; return the new state and the events in prose."""
    transition = RULES.apply_move(state, state.turn, RULES.parse_move(state, state.turn, text))
    return transition.state, [RULES.describe_event(e) for e in transition.events]


def stacks_of(state: MimicState) -> dict[str, str]:
    return {f"{FILES[i % 10]}{i // 10 + 1}": s for i, s in enumerate(state.board) if s}


def refusal(state: MimicState, text: str, seat: int | None = None) -> str:
    seat = state.turn if seat is None else seat
    with pytest.raises(IllegalMoveError) as caught:
        RULES.parse_move(state, seat, text)
    return str(caught.value)


# -- setup (ruling: board, setup, first player) ------------------------------------------------

def test_setup_is_blue_on_b2_to_i2_red_on_b9_to_i9_with_blue_to_move() -> None:
    state = RULES.new_game(2, {}, seed=5)
    assert RULES.position(state) == START
    assert RULES.to_move(state) == {0}
    assert RULES.seat_label(state, 0) == "Blue" and RULES.seat_label(state, 1) == "Red"


def test_blue_has_fifty_opening_moves_and_red_none_yet() -> None:
    state = RULES.new_game(2, {}, seed=1)
    opening = moves(state)
    assert len(opening) == 50
    assert {"b2-a1", "b2-a3", "e2-e3", "e2-d3", "i2-j1", "i2-j3"} <= opening
    assert "e2-d2" not in opening  # d2 holds a Blue checker
    assert RULES.legal_moves(state, 1) == []


def test_the_game_is_for_exactly_two_players() -> None:
    with pytest.raises(RulesError, match="played by 2 players, not 3"):
        RULES.new_game(3, {}, seed=1)


# -- orthogonal visibility --------------------------------------------------------------------

def test_figure_two_only_the_unblocked_opponent_is_visible_and_mimics_north() -> None:
    # Blue e4 sees Red e7; Red i4 is hidden behind Blue h4, so e4 is not frozen.
    state = position(e4="b", e7="r", h4="b", i4="r", a10="r")
    after, events = play(state, "e4-e5")
    assert events == ["Blue e4-e5", "Red e7-e6 mimicked"]
    assert stacks_of(after) == {"e5": "b", "e6": "r", "h4": "b", "i4": "r", "a10": "r"}


def test_a_diagonal_move_is_mimicked_with_the_mirrored_diagonal() -> None:
    state = position(e4="b", e7="r", h4="b", i4="r")
    after, events = play(state, "e4-f5")
    assert events == ["Blue e4-f5", "Red e7-d6 mimicked"]
    assert stacks_of(after)["d6"] == "r"


def test_red_moving_south_makes_blue_mimic_north() -> None:
    state = position(side="r", e7="r", e3="b", j1="b")
    after, events = play(state, "e7-e6")
    assert events == ["Red e7-e6", "Blue e3-e4 mimicked"]
    assert stacks_of(after) == {"e6": "r", "e4": "b", "j1": "b"}


def test_arrow_stops_at_own_checker_so_no_mimic() -> None:
    state = position(e4="b", e5="b", e9="r")
    after, events = play(state, "e4-d4")
    assert events == ["Blue e4-d4"]
    assert stacks_of(after)["e9"] == "r"


def test_visible_means_orthogonal_only_not_diagonal() -> None:
    state = position(e4="b", f5="r", d3="r")
    after, events = play(state, "e4-e3")
    assert events == ["Blue e4-e3"]
    assert stacks_of(after) == {"e3": "b", "f5": "r", "d3": "r"}


def test_visibility_is_counted_before_the_move() -> None:
    # Before moving, e4 sees only e7; on e5 it would also see a5. The mimic still happens.
    state = position(e4="b", e7="r", a5="r")
    after, events = play(state, "e4-e5")
    assert events == ["Blue e4-e5", "Red e7-e6 mimicked"]
    assert stacks_of(after) == {"e5": "b", "e6": "r", "a5": "r"}
    # And a checker seeing two before moving is frozen, though on e5 it would see only e7.
    frozen = position(e4="b", e7="r", a4="r", j1="b")
    assert moves(frozen) == {"j1-i1", "j1-i2", "j1-j2"}


def test_only_the_top_checker_of_a_stack_counts_for_visibility() -> None:
    blue_on_top = position(e4="b", e7="rb", a10="r")
    after, events = play(blue_on_top, "e4-e5")
    assert events == ["Blue e4-e5"]
    red_on_top = position(e4="b", e7="br", a10="r")
    after, events = play(red_on_top, "e4-e5")
    assert events == ["Blue e4-e5", "Red e7-e6 mimicked"]
    # Stacks never move: the Blue checker under it stays on e7.
    assert stacks_of(after)["e7"] == "b" and stacks_of(after)["e6"] == "r"


def test_no_visible_opponent_means_no_mimic() -> None:
    state = position(e4="b", j9="r")
    after, events = play(state, "e4-e5")
    assert events == ["Blue e4-e5"]
    assert stacks_of(after) == {"e5": "b", "j9": "r"}


# -- frozen checkers --------------------------------------------------------------------------

def test_frozen_checker_cannot_make_an_original_move() -> None:
    state = position(e4="b", e7="r", a4="r", j1="b")
    assert moves(state) == {"j1-i1", "j1-i2", "j1-j2"}
    assert refusal(state, "e4-e5") == (
        "e4 cannot move: it sees two opposing checkers (e7, a4), so it is frozen")


def test_three_visible_opponents_freeze_too() -> None:
    state = position(e4="b", e7="r", a4="r", e1="r", j10="b")
    assert "three opposing checkers (e7, e1, a4)" in refusal(state, "e4-d5")


def test_frozen_checker_still_mimics() -> None:
    # Red e7 sees Blue e4 and Blue a7, so it is frozen; Blue e4 sees only e7.
    pieces = {"e4": "b", "e7": "r", "a7": "b", "j1": "r"}
    assert "e7 cannot move" in refusal(position(side="r", **pieces), "e7-e6")
    state = position(side="b", **pieces)
    after, events = play(state, "e4-e5")
    assert events == ["Blue e4-e5", "Red e7-e6 mimicked"]
    assert stacks_of(after) == {"e5": "b", "e6": "r", "a7": "b", "j1": "r"}


# -- original moves ---------------------------------------------------------------------------

def test_a_checker_steps_one_square_in_any_of_eight_directions() -> None:
    state = position(e4="b", a10="r")
    assert {m for m in moves(state) if m.startswith("e4")} == {
        "e4-d3", "e4-e3", "e4-f3", "e4-d4", "e4-f4", "e4-d5", "e4-e5", "e4-f5"}
    assert "adjacent square, like a chess king" in refusal(state, "e4-e6")
    assert "adjacent square" in refusal(state, "e4-e4")


def test_original_move_must_go_to_a_vacant_square() -> None:
    state = position(e4="b", e5="b", f5="r", d5="rb", j10="r")
    assert {m for m in moves(state) if m.startswith("e4")} == {
        "e4-d3", "e4-e3", "e4-f3", "e4-d4", "e4-f4"}
    for target in ("e5", "f5", "d5"):
        assert refusal(state, f"e4-{target}") == (
            f"{target} is occupied: an original move goes to an empty square "
            "(only a mimic may stack)")


def test_original_move_cannot_leave_the_board() -> None:
    state = position(j5="b", e1="b", a10="r")
    assert not any(m.endswith(("k4", "k5", "k6", "0")) for m in moves(state))
    assert refusal(state, "j5-k5") == (
        "j5-k5 leaves the board: an original move cannot go off the edge "
        "(only a mimicked checker can fall off)")
    assert "leaves the board" in refusal(state, "e1-e0")


def test_a_checker_on_its_goal_row_by_mimic_cannot_step_off_the_far_edge() -> None:
    state = position(rule="goal:original", e10="b", a1="r")
    assert "leaves the board" in refusal(state, "e10-e11")
    assert "e10-e11" not in moves(state)


def test_only_the_top_checker_of_a_stack_can_move() -> None:
    state = position(e4="br", f6="rb", a10="r")
    assert refusal(state, "e4-e5") == (
        "your checker on e4 is buried under a Red checker: only the top checker of a stack "
        "can move")
    after, _ = play(state, "f6-g6")
    assert stacks_of(after)["f6"] == "r" and stacks_of(after)["g6"] == "b"


def test_you_cannot_move_an_opponents_checker_or_an_empty_square() -> None:
    state = position(e4="b", e7="r", a1="b")
    assert refusal(state, "e7-e6") == "the checker on e7 is Red's, not yours"
    assert refusal(state, "c3-c4") == "there is no checker on c3"


def test_players_alternate_and_moves_out_of_turn_are_refused() -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert refusal(state, "e9-e8", seat=1) == "it is Blue's turn, not Red's"
    after, _ = play(state, "b2-b3")
    assert RULES.to_move(after) == {1}
    assert refusal(after, "c2-c3", seat=0) == "it is Red's turn, not Blue's"


# -- the mimic: stacking and removal ----------------------------------------------------------

def test_mimic_stacks_on_the_checker_that_moved_toward_it() -> None:
    state = position(e4="b", e6="r", a1="b")
    after, events = play(state, "e4-e5")
    assert events == ["Blue e4-e5", "Red e6-e5 mimicked, stacked on Blue"]
    assert stacks_of(after) == {"e5": "br", "a1": "b"}
    # Red's checker on top of the stack may move on; the Blue one under it is buried.
    assert any(m.startswith("e5") for m in moves(after))


def test_mimic_lands_on_top_of_any_stack_with_no_height_limit() -> None:
    state = position(e4="b", e7="r", d6="rbrbr", a1="b")
    after, events = play(state, "e4-f5")
    assert events == [
        "Blue e4-f5", "Red e7-d6 mimicked, stacked on Red, Blue, Red, Blue, Red (bottom to top)"]
    assert stacks_of(after)["d6"] == "rbrbrr"
    assert board(d6="rbrbrr", f5="b", a1="b") in RULES.position(after)


def test_mimic_off_the_board_removes_the_checker() -> None:
    state = position(e4="b", a4="r", j10="r", j1="b")
    after, events = play(state, "e4-f4")
    assert events == ["Blue e4-f4", "Red a4 mimicked off the board and is removed from play"]
    assert stacks_of(after) == {"f4": "b", "j10": "r", "j1": "b"}
    assert RULES.view(after, None)["seats"][1]["checkers"] == 1


def test_a_mimic_off_the_board_from_a_stack_leaves_the_stack_below() -> None:
    state = position(e4="b", e10="bbr", j6="r")
    after, events = play(state, "e4-e3")
    assert events == ["Blue e4-e3", "Red e10 mimicked off the board and is removed from play"]
    assert stacks_of(after)["e10"] == "bb"


# -- winning ----------------------------------------------------------------------------------

def test_original_move_onto_the_goal_row_wins_and_is_not_mimicked() -> None:
    state = position(e9="b", a9="r")
    after, events = play(state, "e9-e10")
    assert events == ["Blue e9-e10", "Blue reached row 10 with an original move and wins"]
    assert stacks_of(after)["a9"] == "r"  # the mimic a9-a8 is ignored
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.winners == {0} and outcome.scores == (1.0, 0.0)
    assert RULES.to_move(after) == frozenset()
    assert RULES.legal_moves(after, 1) == []
    assert RULES.position(after).endswith(" won:b:goal")


def test_red_wins_by_reaching_row_one() -> None:
    state = position(side="r", d2="r", j9="b")
    after, _ = play(state, "d2-c1")
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.winners == {1}
    assert outcome.reason == "Red reached row 1 with an original move and wins"


def test_mimic_onto_its_owners_goal_row_wins_for_the_owner_by_default() -> None:
    state = position(e5="b", e2="r", a10="b")
    after, events = play(state, "e5-e6")
    assert events == ["Blue e5-e6", "Red e2-e1 mimicked",
                      "Red was mimicked onto row 1, its goal row, and wins"]
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.winners == {1}
    assert RULES.position(after).endswith(" goal:any won:r:mimic")


def test_with_only_original_moves_winning_a_mimic_onto_the_goal_row_does_not_win() -> None:
    state = position(rule="goal:original", e5="b", e2="r", a10="b")
    after, events = play(state, "e5-e6")
    assert events == ["Blue e5-e6", "Red e2-e1 mimicked"]
    assert RULES.outcome(after) is None and RULES.to_move(after) == {1}
    assert stacks_of(after)["e1"] == "r"


def test_the_goal_rule_option_sets_the_position() -> None:
    assert RULES.position(RULES.new_game(2, {"mimic_goal_wins": "off"}, 1)).endswith(
        " goal:original -")
    assert RULES.position(RULES.new_game(2, {"mimic_goal_wins": True}, 1)).endswith(
        " goal:any -")


def test_a_player_with_no_legal_move_on_their_turn_loses() -> None:
    # After Blue j1-j2 Red's only checker, e5, sees e1 and a5: frozen, so Red loses.
    state = position(e5="r", e1="b", a5="b", j1="b")
    after, events = play(state, "j1-j2")
    assert events[-1] == "Red has no legal move and loses; Blue wins"
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.winners == {0}
    assert RULES.to_move(after) == frozenset()
    assert RULES.position(after).endswith(" won:b:no-move")


def test_a_player_whose_last_checker_fell_off_the_board_loses() -> None:
    state = position(e4="b", e10="r")
    after, events = play(state, "e4-e3")
    assert events[1:] == ["Red e10 mimicked off the board and is removed from play",
                          "Red has no legal move and loses; Blue wins"]
    assert RULES.outcome(after).winners == {0}  # type: ignore[union-attr]


def test_a_hand_built_position_with_no_legal_move_is_read_as_lost() -> None:
    boxed = position(side="b", a1="b", a2="r", b1="r", b2="r")
    assert RULES.outcome(boxed).winners == {1}  # type: ignore[union-attr]
    assert RULES.position(boxed).endswith(" won:r:no-move")


# -- no immediate repetition ------------------------------------------------------------------

def test_a_move_may_not_recreate_the_position_before_the_opponents_last_turn() -> None:
    state, _ = play(RULES.new_game(2, {}, seed=1), "e2-e3")  # Red e9-e8 mimicked
    assert "e8-e9" not in moves(state)
    assert refusal(state, "e8-e9") == (
        "e8-e9 would repeat the position before Blue's last turn: immediate repetition is "
        "not allowed")
    assert "e8-e7" in moves(state)


def test_the_same_move_is_legal_when_it_recreates_an_older_position_or_none() -> None:
    # Blue e4-e5 would bring back `before`; with no earlier position it is allowed.
    earlier = board(e5="b", a10="r")
    assert "e4-e5" not in moves(position(before=earlier, e4="b", a10="r"))
    assert "e4-e5" in moves(position(before="-", e4="b", a10="r"))
    assert "e4-e5" in moves(position(before=board(e5="b", a9="r"), e4="b", a10="r"))


def test_repetition_can_leave_a_player_without_a_legal_move() -> None:
    # Blue a1's only move a1-b1 pushes Red a2's top checker off the board, which would bring
    # back the position before Red's last turn: Blue has no legal move and loses.
    before = board(b1="b", a2="r", b2="r")
    state = position(before=before, a1="b", a2="rr", b2="r")
    assert moves(state) == set()
    assert RULES.outcome(state).winners == {1}  # type: ignore[union-attr]
    open_state = position(a1="b", a2="rr", b2="r")
    assert moves(open_state) == {"a1-b1"}


# -- notation ---------------------------------------------------------------------------------

def test_every_legal_move_round_trips_through_its_notation() -> None:
    state = RULES.new_game(2, {}, seed=1)
    for move in RULES.legal_moves(state, 0):
        text = RULES.format_move(state, move)
        assert RULES.parse_move(state, 0, text) == move


@pytest.mark.parametrize("text", [
    "e2-e3", "E2-E3", "e2e3", "E2E3", "e2 e3", " e2 - e3 ", "e2\u2013e3", "e2 \u2014 e3",
    "e2 to e3", "e2\u2212e3",
])
def test_forgiving_variants_are_accepted(text: str) -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert RULES.format_move(state, RULES.parse_move(state, 0, text)) == "e2-e3"


def test_ten_is_read_as_a_two_digit_rank() -> None:
    state = position(side="r", e10="r", a1="b")
    assert RULES.format_move(state, RULES.parse_move(state, 1, "e10e9")) == "e10-e9"


def test_a_lone_destination_names_the_only_move_that_ends_there() -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert RULES.format_move(state, RULES.parse_move(state, 0, "A1")) == "b2-a1"
    with pytest.raises(AmbiguousMoveError) as caught:
        RULES.parse_move(state, 0, "e3")
    assert str(caught.value) == "'e3' could mean d2-e3, e2-e3, f2-e3: write the move from-to"
    assert refusal(state, "e5") == "none of your checkers can move to e5 now"


@pytest.mark.parametrize("text", ["", "hello", "e2-", "e2-e3-e4", "22-23", "e2xe3", "pass"])
def test_text_that_is_not_a_move_is_invalid_and_quoted(text: str) -> None:
    state = RULES.new_game(2, {}, seed=1)
    with pytest.raises(InvalidMoveError) as caught:
        RULES.parse_move(state, 0, text)
    assert repr(text) in str(caught.value) and "like e2-e3" in str(caught.value)


@pytest.mark.parametrize("text", ["k2-k3", "e0-e1", "e11-e10", "z5"])
def test_a_starting_square_off_the_board_is_invalid(text: str) -> None:
    state = RULES.new_game(2, {}, seed=1)
    with pytest.raises(InvalidMoveError, match="not on the board"):
        RULES.parse_move(state, 0, text)


def test_no_move_is_accepted_after_the_game_is_over() -> None:
    state = position(result="won:b:goal", e10="b", a5="r", side="r")
    assert refusal(state, "a5-a4", seat=1) == "the game is over: no more moves can be made"
    with pytest.raises(IllegalMoveError, match="game is over"):
        RULES.apply_move(state, 1, (40, 30))


def test_parse_accepts_exactly_the_legal_moves_in_random_positions() -> None:
    rng = random.Random(11)
    state = RULES.new_game(2, {}, seed=11)
    for _ in range(60):
        seat = state.turn
        legal = moves(state)
        for i, stack in enumerate(state.board):
            if not stack:
                continue
            f, r = i % 10, i // 10
            for df in (-1, 0, 1):
                for dr in (-1, 0, 1):
                    if not (0 <= f + df < 10 and 0 <= r + dr < 10):
                        continue
                    text = f"{FILES[f]}{r + 1}-{FILES[f + df]}{r + dr + 1}"
                    try:
                        RULES.parse_move(state, seat, text)
                        accepted = True
                    except IllegalMoveError:
                        accepted = False
                    assert accepted == (text in legal), text
        state = RULES.apply_move(state, seat, rng.choice(RULES.legal_moves(state, seat))).state
        if RULES.outcome(state):
            break


# -- events, views, text, position and storage ------------------------------------------------

def test_events_are_json_safe_and_name_the_checkers() -> None:
    state = position(e4="b", e6="r", a1="b")
    transition = RULES.apply_move(state, 0, RULES.parse_move(state, 0, "e4-e5"))
    data = [(e.kind, e.data, e.visible_to) for e in transition.events]
    assert data == [
        ("move", {"seat": 0, "from": "e4", "to": "e5"}, None),
        ("mimic", {"seat": 1, "from": "e6", "to": "e5", "onto": [0]}, None),
    ]
    json.dumps([e.data for e in transition.events])


def test_the_view_shows_stacks_last_move_and_turn_to_everyone_alike() -> None:
    state, _ = play(position(e4="b", e6="r", a1="b", j10="r"), "e4-e5")
    view = RULES.view(state, 0)
    assert view == {**RULES.view(state, None), "seat": 0}
    assert {"square": "e5", "stack": [0, 1], "frozen": False} in view["stacks"]
    assert view["last_move"] == {"seat": 0, "from": "e4", "to": "e5",
                                 "mimic_from": "e6", "mimic_to": "e5"}
    assert view["highlight"] == ["e4", "e5"] and view["marked"] == ["e6", "e5"]
    assert view["to_move"] == 1 and view["outcome"] is None
    assert "seed" not in json.dumps(view)


def test_the_view_marks_frozen_checkers() -> None:
    view = RULES.view(position(e4="b", e7="r", a4="r"), None)
    frozen = {entry["square"] for entry in view["stacks"] if entry["frozen"]}
    assert frozen == {"e4"}


def test_the_text_drawing_has_coordinates_and_every_stack_bottom_to_top() -> None:
    state, _ = play(position(e4="b", e6="r", a1="b", j10="rbr"), "e4-e5")
    text = RULES.render_text(RULES.view(state, 0))
    lines = text.splitlines()
    assert lines[0].split() == list(FILES)
    assert lines[1].split() == ["10", ".", ".", ".", ".", ".", ".", ".", ".", ".", "R3", "10"]
    assert lines[6].split()[5] == "R2"  # e5: Red on Blue
    assert "Stacks, bottom to top: e5 BR, j10 RBR" in text
    assert "Last move: Blue e4-e5; Red e6-e5 mimicked" in text
    assert text.endswith("Red to move.")
    assert all(line == line.rstrip() for line in lines)


def test_red_sees_the_text_board_turned_like_its_web_page() -> None:
    state, _ = play(position(e4="b", e6="r", a1="b", j10="rbr"), "e4-e5")
    lines = RULES.render_text(RULES.view(state, 1)).splitlines()
    assert lines[0].split() == list(reversed(FILES))
    assert lines[1].split() == ["1", ".", ".", ".", ".", ".", ".", ".", ".", ".", "B", "1"]
    assert lines[10].split() == ["10", "R3", ".", ".", ".", ".", ".", ".", ".", ".", ".", "10"]


def test_position_text_round_trips_with_stacks_history_and_result() -> None:
    texts = [
        START,
        f"{board(e5='br', c3='bbrbr', j10='b')} r {board(e4='b', e6='r', c3='bbrbr', j10='b')}"
        " goal:original -",
        f"{board(e10='b', a9='r')} r {board(e9='b', a9='r')} goal:any won:b:goal",
    ]
    for text in texts:
        assert RULES.position(RULES.from_position(text)) == text


def test_position_text_writes_stacks_in_brackets_bottom_to_top() -> None:
    state = RULES.from_position("10/10/10/10/4(brr)5/10/10/10/10/b9 b - goal:any -")
    assert stacks_of(state) == {"e6": "brr", "a1": "b"}


@pytest.mark.parametrize(("text", "problem"), [
    ("10/10 b - goal:any -", "10 ranks"),
    ("10/10/10/10/10/10/10/10/10/10 b -", "5 fields"),
    ("10/10/10/10/10/10/10/10/10/9 b - goal:any -", "does not describe 10 squares"),
    ("10/10/10/10/10/10/10/10/10/9x b - goal:any -", "does not describe 10 squares"),
    ("10/10/10/10/10/10/10/10/10/b9 x - goal:any -", "side to move"),
    ("10/10/10/10/10/10/10/10/10/b9 b - goal:some -", "goal rule"),
    ("10/10/10/10/10/10/10/10/10/b9 b - goal:any won:q:goal", "result"),
])
def test_bad_position_text_is_refused_with_the_reason(text: str, problem: str) -> None:
    with pytest.raises(RulesError, match=problem):
        RULES.from_position(text)


def test_dump_and_load_keep_the_last_move() -> None:
    state, _ = play(position(e4="b", a4="r", j10="r", j1="b"), "e4-f4")
    data = json.loads(json.dumps(RULES.dump(state)))
    loaded = RULES.load(data)
    assert loaded == state
    assert RULES.view(loaded, None)["last_move"]["mimic_to"] is None


def test_apply_move_leaves_its_input_untouched() -> None:
    state = position(e4="b", e6="r", a1="b")
    before = RULES.position(state)
    play(state, "e4-e5")
    assert RULES.position(state) == before


def test_default_move_is_the_first_legal_move() -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert RULES.format_move(state, RULES.default_move(state, 0)) == "b2-a1"


# -- options ----------------------------------------------------------------------------------

def test_bad_option_values_are_refused_clearly() -> None:
    with pytest.raises(OptionError, match="option mimic_goal_wins must be on or off, not 'maybe'"):
        RULES.new_game(2, {"mimic_goal_wins": "maybe"}, 1)
    with pytest.raises(OptionError, match="Mimic has no option size"):
        RULES.new_game(2, {"size": 8}, 1)
