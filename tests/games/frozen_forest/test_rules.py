"""Frozen Forest: one test per rule sentence and ruling, each on a hand-built position."""

from __future__ import annotations

import json
import math
import random

import pytest

from pbem.games import REGISTRY
from pbem.games.base import (
    IllegalMoveError,
    InvalidMoveError,
    OptionError,
    RulesError,
)
from pbem.games.frozen_forest.rules import ForestState, FrozenForestRules
from pbem.games.notation import FILES
from tests.support.render import template_env

rules = FrozenForestRules()
START = "/".join(["TTTTTTTTTT"] * 10) + " yuki 1 10 any -"


def board(*, yuki: str | None = None, mina: str | None = None, discs: str = "",
          turn: str = "yuki", game: int = 1, size: int = 10, ways: str = "any",
          done: str = "-") -> str:
    """Position text for a forest of `size` with the given discs, Yuki and Mina."""
    low = (10 - size) // 2
    spots = {f"{FILES[f]}{r + 1}": "T" if low <= f < low + size and low <= r < low + size
             else "." for f in range(10) for r in range(10)}
    for square in discs.split():
        spots[square] = "."
    if yuki:
        spots[yuki] = "Y"
    if mina:
        spots[mina] = "M" if spots[mina] == "T" else "m"
    ranks = ["".join(spots[f"{FILES[f]}{r}"] for f in range(10)) for r in range(10, 0, -1)]
    return f"{'/'.join(ranks)} {turn} {game} {size} {ways} {done}"


def at(text: str) -> ForestState:
    state = rules.from_position(text)
    assert rules.position(state) == text
    return state


def legal(state: ForestState) -> list[str]:
    seat = next(iter(rules.to_move(state)))
    return [rules.format_move(state, move) for move in rules.legal_moves(state, seat)]


def play(state: ForestState, *moves: str) -> ForestState:
    for text in moves:
        seat = next(iter(rules.to_move(state)))
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
    return state


def refused(state: ForestState, text: str) -> str:
    seat = next(iter(rules.to_move(state)))
    with pytest.raises(IllegalMoveError) as caught:
        rules.parse_move(state, seat, text)
    return str(caught.value)


def eaten(state: ForestState) -> list[int | None]:
    return [game["trees_eaten"] for game in rules.view(state, None)["games"]]


# Yuki on e5 with his setup disc, Mina on b2 to move; discs on c4, b4 and e2.
MINA_TO_MOVE = board(yuki="e5", mina="b2", discs="c4 b4 e2", turn="mina")
# Yuki on e5 to move, Mina on e8 hidden behind e6 and e7; d6 is a disc.
YUKI_TO_MOVE = board(yuki="e5", mina="e8", discs="d6")


# --- registration, options --------------------------------------------------------------

def test_the_game_is_registered_under_its_slug() -> None:
    assert isinstance(REGISTRY["frozen-forest"], FrozenForestRules)
    assert rules.player_counts == frozenset({2})


def test_a_new_match_is_an_untouched_ten_by_ten_forest_with_yuki_to_set_up() -> None:
    state = rules.new_game(2, {}, 1)
    assert rules.position(state) == START
    assert rules.to_move(state) == frozenset({0})
    assert rules.seat_label(state, 0) == "Yuki" and rules.seat_label(state, 1) == "Mina"


@pytest.mark.parametrize("value", [7, 11, "12", 0])
def test_a_bad_forest_size_is_refused_clearly(value: object) -> None:
    with pytest.raises(OptionError, match="forest_size must be one of 10, 9, 8"):
        rules.new_game(2, {"forest_size": value}, 1)
    with pytest.raises(OptionError, match="forest_size must be a whole number, not 'big'"):
        rules.new_game(2, {"forest_size": "big"}, 1)


def test_a_bad_orthogonal_option_is_refused_clearly() -> None:
    with pytest.raises(OptionError, match="orthogonal_mina must be on or off"):
        rules.new_game(2, {"orthogonal_mina": "maybe"}, 1)


def test_options_given_as_text_are_accepted() -> None:
    state = rules.new_game(2, {"forest_size": "9", "orthogonal_mina": "yes"}, 1)
    assert rules.position(state).endswith(" yuki 1 9 orth -")


def test_unknown_options_and_other_player_counts_are_refused() -> None:
    with pytest.raises(OptionError, match="no option size"):
        rules.new_game(2, {"size": 8}, 1)
    with pytest.raises(RulesError, match="played by 2 players, not 3"):
        rules.new_game(3, {}, 1)


# --- line of sight ----------------------------------------------------------------------

def test_sight_is_blocked_exactly_when_the_distances_share_a_factor_in_a_full_forest() -> None:
    state = play(rules.new_game(2, {}, 1), "e5")
    expected = [f"{FILES[f]}{r + 1}" for r in range(10) for f in range(10)
                if (f, r) != (4, 4) and math.gcd(f - 4, r - 4) > 1]
    assert legal(state) == expected


def test_discs_never_block_the_line_of_sight() -> None:
    state = at(board(yuki="e5", discs="e6", turn="mina"))
    assert "e7" not in legal(state)
    assert refused(state, "e7") == (
        "Mina cannot hide on e7: Yuki on e5 would see her, as no tree stands between them "
        "(discs do not block)")


def test_one_tree_on_any_lattice_point_between_blocks_the_sight() -> None:
    # a1 to d4 crosses b2 and c3: the tree on c3 alone hides d4; with both gone it is seen.
    one_left = at(board(yuki="a1", discs="b2", turn="mina"))
    none_left = at(board(yuki="a1", discs="b2 c3", turn="mina"))
    assert "d4" in legal(one_left)
    assert "d4" not in legal(none_left)


def test_trees_off_the_exact_line_never_block() -> None:
    # e5 to g8 is 2 files and 3 ranks: no lattice point between, so Yuki always sees g8.
    state = at(board(yuki="e5", turn="mina"))
    assert "g8" not in legal(state)
    assert "Yuki on e5 would see her" in refused(state, "g8")


def test_the_tree_mina_stands_on_does_not_block_and_neither_does_yukis_target() -> None:
    # From b1, Yuki looks at Mina on d1 across the disc on c1; d1 and b1 hold trees.
    state = at(board(yuki="a1", mina="d1", discs="c1 a2 b2"))
    assert legal(state) == ["b1"]


# --- setup ------------------------------------------------------------------------------

def test_yuki_starts_on_any_tree_which_he_eats() -> None:
    state = rules.new_game(2, {}, 1)
    assert len(legal(state)) == 100 and legal(state)[:3] == ["a1", "b1", "c1"]
    after = play(state, "e5")
    assert rules.position(after) == board(yuki="e5", turn="mina")
    assert eaten(after) == [1, None]


def test_yuki_cannot_start_on_a_covered_spot_of_a_smaller_forest() -> None:
    state = rules.new_game(2, {"forest_size": 8}, 1)
    assert legal(state) == [f"{FILES[f]}{r}" for r in range(2, 10) for f in range(1, 9)]
    assert refused(state, "a1") == (
        "a1 is outside the 8x8 forest (a disc covers it): Yuki must start on a tree")


def test_the_nine_forest_covers_file_j_and_rank_ten() -> None:
    state = rules.new_game(2, {"forest_size": 9}, 1)
    assert legal(state) == [f"{FILES[f]}{r}" for r in range(1, 10) for f in range(9)]
    assert "j5" in rules.view(state, None)["outside"]
    assert "a10" in rules.view(state, None)["outside"]


def test_mina_then_starts_on_another_tree_hidden_from_yuki() -> None:
    state = at(board(yuki="e5", turn="mina"))
    assert rules.to_move(state) == frozenset({1})
    assert "e7" in legal(state)
    after = play(state, "e7")
    assert rules.position(after) == board(yuki="e5", mina="e7", turn="yuki")


def test_mina_cannot_start_on_yukis_spot() -> None:
    state = at(board(yuki="e5", turn="mina"))
    assert refused(state, "e5") == "Yuki is on e5: Mina must hide on another tree"


def test_mina_cannot_start_on_a_disc() -> None:
    # j10 is hidden from b2 behind c3…i9, but in the 8x8 forest it holds no tree.
    state = at(board(yuki="b2", turn="mina", size=8))
    assert "j10" not in legal(state)
    assert refused(state, "j10") == (
        "j10 has no tree (a disc covers it): Mina must start on a tree")


def test_mina_cannot_start_where_yuki_sees_her() -> None:
    state = at(board(yuki="e5", turn="mina"))
    assert refused(state, "f7") == (
        "Mina cannot hide on f7: Yuki on e5 would see her, as no tree stands between them "
        "(discs do not block)")


def test_after_setup_yuki_moves_first() -> None:
    state = play(rules.new_game(2, {}, 1), "e5", "e7")
    assert rules.to_move(state) == frozenset({0})
    assert rules.view(state, 0)["to_move_role"] == "Yuki"


# --- Yuki's step ------------------------------------------------------------------------

def test_yuki_steps_to_a_neighbouring_tree_that_sees_mina() -> None:
    # e4 and e6 look up the e-file through e7 (and e6); d6 is a disc.
    assert legal(at(YUKI_TO_MOVE)) == ["d4", "f4", "d5", "f5", "f6"]


def test_yuki_eats_the_tree_he_steps_onto() -> None:
    state = at(YUKI_TO_MOVE)
    transition = rules.apply_move(state, 0, rules.parse_move(state, 0, "f6"))
    assert rules.position(transition.state) == board(
        yuki="f6", mina="e8", discs="d6 e5", turn="mina")
    assert [rules.describe_event(event) for event in transition.events] == [
        "Yuki e5-f6, eating a tree (3 eaten)"]


def test_yuki_moves_only_one_space() -> None:
    state = at(YUKI_TO_MOVE)
    assert refused(state, "c3") == "Yuki moves one space: c3 is not next to e5"
    assert refused(state, "e5") == "Yuki is already on e5: he must step to a neighbouring tree"


def test_yuki_cannot_step_onto_a_disc() -> None:
    assert refused(at(YUKI_TO_MOVE), "d6") == (
        "d6 has no tree (a disc covers it): Yuki only steps onto trees")


def test_yuki_cannot_step_where_a_tree_hides_mina() -> None:
    state = at(YUKI_TO_MOVE)
    assert refused(state, "e6") == (
        "from e6 Yuki would not see Mina on e8: the tree on e7 blocks the line of sight")
    assert refused(state, "e4") == (
        "from e4 Yuki would not see Mina on e8: the trees on e6, e7 block the line of sight")


def test_yuki_cannot_step_onto_minas_spot() -> None:
    state = at(board(yuki="e5", mina="e6"))
    assert "e6" not in legal(state)
    assert refused(state, "e6") == "Mina is on e6: Yuki cannot step onto her spot"


def test_yuki_steps_diagonally_even_when_mina_is_orthogonal_only() -> None:
    state = at(board(yuki="e5", mina="e8", discs="d6", ways="orth"))
    assert legal(state) == ["d4", "f4", "d5", "f5", "f6"]


# --- Mina's move ------------------------------------------------------------------------

def test_mina_moves_any_distance_in_eight_directions_to_spots_hidden_from_yuki() -> None:
    assert legal(at(MINA_TO_MOVE)) == ["a1", "c1", "e2", "h2", "c3", "b5", "b8"]


def test_mina_passes_trees_and_discs_and_may_end_on_a_disc() -> None:
    state = at(MINA_TO_MOVE)
    after = play(state, "b5")  # over b3 (tree) and b4 (disc)
    assert rules.position(after) == board(yuki="e5", mina="b5", discs="c4 b4 e2")
    on_disc = play(state, "e2")
    assert rules.position(on_disc) == board(yuki="e5", mina="e2", discs="c4 b4 e2")
    assert rules.position(on_disc).split()[0].split("/")[8][4] == "m"


def test_mina_cannot_pass_yuki() -> None:
    state = at(MINA_TO_MOVE)
    assert "g7" not in legal(state)  # g7 is hidden behind f6, but Yuki on e5 is in the way
    assert refused(state, "g7") == "Mina cannot pass Yuki: he stands on e5, between b2 and g7"


def test_mina_cannot_end_on_yukis_spot() -> None:
    assert refused(at(MINA_TO_MOVE), "e5") == "Yuki is on e5: Mina cannot end her move there"


def test_mina_must_move_at_least_one_space() -> None:
    assert refused(at(MINA_TO_MOVE), "b2") == (
        "Mina is already on b2: she must move at least one space")


def test_mina_cannot_end_where_yuki_sees_her() -> None:
    # a3 lies behind c4, but c4 is a disc and does not block.
    assert refused(at(MINA_TO_MOVE), "a3") == (
        "Mina cannot hide on a3: Yuki on e5 would see her, as no tree stands between them "
        "(discs do not block)")


def test_mina_moves_in_a_straight_line_only() -> None:
    assert refused(at(MINA_TO_MOVE), "c4") == (
        "Mina moves in a straight line, orthogonally or diagonally: c4 is not in line with b2")


def test_orthogonal_only_mina_never_moves_diagonally() -> None:
    state = at(board(yuki="e5", mina="b2", discs="c4 b4 e2", turn="mina", ways="orth"))
    assert legal(state) == ["e2", "h2", "b5", "b8"]
    assert refused(state, "c3") == (
        "in this match Mina moves orthogonally only: c3 is diagonal from b2")
    assert refused(state, "c4") == (
        "Mina moves in a straight line, orthogonally only in this match: c4 is not in the same "
        "file or rank as b2")


# --- losing, trees eaten, the second game -----------------------------------------------

def test_yuki_with_every_neighbour_eaten_loses_and_game_two_starts_with_roles_swapped() -> None:
    state = at(board(yuki="a1", mina="e1", discs="a2 b1 b2", turn="mina"))
    transition = rules.apply_move(state, 1, rules.parse_move(state, 1, "e3"))
    after = transition.state
    assert rules.position(after) == "/".join(["TTTTTTTTTT"] * 10) + " yuki 2 10 any mina:4"
    assert rules.to_move(after) == frozenset({1})
    assert rules.seat_label(after, 1) == "Yuki" and rules.seat_label(after, 0) == "Mina"
    assert rules.outcome(after) is None
    assert [rules.describe_event(event) for event in transition.events] == [
        "Mina e1-e3",
        "Yuki has no valid move: Mina (Player 2) wins game 1; Yuki ate 4 trees",
        "Game 2 begins with roles swapped: Player 2 is Yuki, Player 1 is Mina",
    ]


def test_yuki_with_no_neighbouring_tree_seeing_mina_loses() -> None:
    # From e9 Mina slips to e5: from b2, Yuki's only tree, c3 and d4 hide her.
    state = at(board(yuki="a1", mina="e9", discs="a2 b1", turn="mina"))
    after = play(state, "e5")
    assert rules.view(after, None)["games"][0]["winner_role"] == "Mina"
    assert eaten(after) == [3, 0]


def test_mina_with_no_hidden_spot_loses() -> None:
    # Yuki's only tree is d6; once it is eaten, only h1, i1 and j1 stand, behind Yuki.
    state = at(board(yuki="e5", mina="a9", turn="yuki", discs=" ".join(
        f"{FILES[f]}{r}" for f in range(10) for r in range(1, 11)
        if f"{FILES[f]}{r}" not in ("d6", "h1", "i1", "j1"))))
    assert legal(state) == ["d6"]
    after = play(state, "d6")
    games = rules.view(after, None)["games"]
    assert games[0]["winner_role"] == "Yuki" and games[0]["trees_eaten"] == 97
    assert rules.to_move(after) == frozenset({1})


def test_trees_eaten_count_every_disc_yuki_placed_including_his_first() -> None:
    state = play(rules.new_game(2, {}, 1), "e5", "e7", "d4", "a7")
    assert eaten(state) == [2, None]
    assert rules.view(state, 0)["games"][0]["status"] == "in progress; 2 trees eaten so far"


def test_covered_outer_spots_are_not_eaten_trees() -> None:
    state = play(rules.new_game(2, {"forest_size": 8}, 1), "e5")
    assert eaten(state) == [1, None]


def test_game_two_keeps_the_forest_size_and_mina_directions() -> None:
    state = at(board(yuki="b2", mina="f2", discs="b3 c2 c3", turn="mina", size=8, ways="orth"))
    after = play(state, "f4")
    assert rules.position(after) == rules.position(
        rules.new_game(2, {"forest_size": 8, "orthogonal_mina": True}, 1)).replace(
        " yuki 1 8 orth -", " yuki 2 8 orth mina:4")


# --- the match result -------------------------------------------------------------------

YUKI_STUCK_IN_GAME_2 = dict(yuki="a1", mina="e9", discs="a2 b1", turn="mina", game=2)
MINA_STUCK_IN_GAME_2 = dict(yuki="e5", mina="a9", game=2, discs=" ".join(
    f"{FILES[f]}{r}" for f in range(10) for r in range(1, 11)
    if f"{FILES[f]}{r}" not in ("d6", "h1", "i1", "j1")))


def _finish(spec: dict, done: str, move: str):
    state = play(at(board(**spec, done=done)), move)
    assert rules.to_move(state) == frozenset()
    assert rules.legal_moves(state, 0) == [] and rules.legal_moves(state, 1) == []
    return rules.outcome(state)


def test_a_player_who_wins_both_games_wins_the_match() -> None:
    result = _finish(MINA_STUCK_IN_GAME_2, "mina:30", "d6")  # Player 2: Mina, then Yuki
    assert result.winners == frozenset({1}) and result.scores == (0.0, 1.0)
    assert result.reason == (
        "Player 2 won both games, as Yuki and as Mina: a hide-and-seek master")
    result = _finish(YUKI_STUCK_IN_GAME_2, "yuki:30", "e5")  # Player 1: Yuki, then Mina
    assert result.winners == frozenset({0}) and result.scores == (1.0, 0.0)


def test_both_won_as_yuki_fewer_trees_eaten_wins() -> None:
    result = _finish(MINA_STUCK_IN_GAME_2, "yuki:30", "d6")  # Player 2 ate 97
    assert result.winners == frozenset({0})
    assert result.reason == (
        "both players won as Yuki, so fewer trees eaten wins; Player 1 ate 30 trees as Yuki, "
        "Player 2 ate 97 trees: Player 1 wins")
    assert _finish(MINA_STUCK_IN_GAME_2, "yuki:98", "d6").winners == frozenset({1})


def test_both_won_as_yuki_with_equal_trees_is_a_draw() -> None:
    result = _finish(MINA_STUCK_IN_GAME_2, "yuki:97", "d6")
    assert result.winners == frozenset({0, 1}) and result.scores == (0.5, 0.5)
    assert result.reason.endswith("Player 1 ate 97 trees as Yuki, Player 2 ate 97 trees: a draw")


def test_both_won_as_mina_more_trees_eaten_as_yuki_wins() -> None:
    result = _finish(YUKI_STUCK_IN_GAME_2, "mina:10", "e5")  # Player 2 ate 3 as Yuki
    assert result.winners == frozenset({0})
    assert result.reason == (
        "both players won as Mina, so more trees eaten as Yuki wins; Player 1 ate 10 trees "
        "as Yuki, Player 2 ate 3 trees: Player 1 wins")
    assert _finish(YUKI_STUCK_IN_GAME_2, "mina:2", "e5").winners == frozenset({1})


def test_both_won_as_mina_with_equal_trees_is_a_draw() -> None:
    result = _finish(YUKI_STUCK_IN_GAME_2, "mina:3", "e5")
    assert result.winners == frozenset({0, 1})
    assert result.reason.endswith(": a draw")


def test_a_finished_match_refuses_moves_and_keeps_its_result_in_the_position() -> None:
    state = play(at(board(**MINA_STUCK_IN_GAME_2, done="yuki:30")), "d6")
    text = rules.position(state)
    assert text.endswith(" mina 2 10 any yuki:30,yuki:97")
    assert rules.outcome(at(text)) == rules.outcome(state)
    with pytest.raises(IllegalMoveError, match="the match is over"):
        rules.parse_move(state, 0, "a1")
    view = rules.view(state, 0)
    assert view["result"].endswith("Player 1 wins") and view["to_move"] is None
    assert [game["trees_eaten"] for game in view["games"]] == [30, 97]


# --- notation ---------------------------------------------------------------------------

def test_the_issue_examples_are_canonical() -> None:
    state = rules.new_game(2, {}, 1)
    for seat, text in [(0, "e5"), (1, "e7"), (0, "d4"), (1, "a7")]:
        move = rules.parse_move(state, seat, text)
        assert rules.format_move(state, move) == text
        state = rules.apply_move(state, seat, move).state
    assert rules.view(state, None)["last_move"] == ["e7", "a7"]


@pytest.mark.parametrize("text", ["f6", "F6", "  f6 ", "f 6", "e5-f6", "e5f6", "E5 \u2013 F6",
                                  "e5 - f6", "e5 f6"])
def test_forgiving_variants_name_the_same_step(text: str) -> None:
    state = at(YUKI_TO_MOVE)
    assert rules.format_move(state, rules.parse_move(state, 0, text)) == "f6"


@pytest.mark.parametrize("text", ["", "hello", "e", "5", "e5-f6-g7", "yuki", "ee5"])
def test_text_that_is_not_a_square_is_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError, match="is not a Frozen Forest move: write the square"):
        rules.parse_move(at(YUKI_TO_MOVE), 0, text)


@pytest.mark.parametrize("text", ["k5", "e11", "e0"])
def test_squares_off_the_board_are_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError, match=r"is not on the board \(a1 to j10\)"):
        rules.parse_move(at(YUKI_TO_MOVE), 0, text)


def test_a_wrong_origin_is_refused() -> None:
    assert refused(at(YUKI_TO_MOVE), "f5-f6") == "Yuki is on e5, not f5"
    assert refused(at(MINA_TO_MOVE), "c2-c3") == "Mina is on b2, not c2"


def test_an_origin_at_setup_is_refused() -> None:
    assert refused(rules.new_game(2, {}, 1), "e4-e5") == (
        "Yuki is not in the forest yet: name one square, the tree where Yuki starts")


def test_a_move_out_of_turn_is_refused() -> None:
    with pytest.raises(IllegalMoveError, match=r"it is Yuki's turn \(Player 1\), not yours"):
        rules.parse_move(at(YUKI_TO_MOVE), 1, "f6")
    with pytest.raises(IllegalMoveError, match="not yours"):
        rules.apply_move(at(YUKI_TO_MOVE), 1, (5, 5))
    assert rules.legal_moves(at(YUKI_TO_MOVE), 1) == []


def test_the_default_move_is_the_first_legal_square_from_a1() -> None:
    assert rules.default_move(at(YUKI_TO_MOVE), 0) == (3, 3)  # d4
    assert rules.default_move(rules.new_game(2, {}, 1), 0) == (0, 0)


# --- position text, dump, views ---------------------------------------------------------

def test_the_position_text_round_trips_through_a_whole_game() -> None:
    state = rules.new_game(2, {"orthogonal_mina": True}, 1)
    for _ in range(12):
        text = rules.position(state)
        assert rules.position(rules.from_position(text)) == text
        state = rules.apply_move(state, next(iter(rules.to_move(state))),
                                 rules.default_move(state, next(iter(rules.to_move(state))))).state


@pytest.mark.parametrize(("text", "problem"), [
    ("nonsense", "a position has 6 fields"),
    (START.replace("yuki 1", "yeti 1"), "bad role"),
    (START.replace(" 10 any", " 7 any"), "bad role, game, forest size"),
    (START.replace("TTTTTTTTTT", "TTTTTTTTT", 1), "10 ranks of 10 spots"),
    (START.replace("TTTTTTTTTT", "TTTTTTTTTX", 1), "unknown spot 'X' on j10"),
    (board(yuki="a1", mina="e1", discs="a2 b1 b2", done="nope"), "bad finished game"),
    (board(size=8).replace(".", "T", 1), "a tree stands outside the forest"),
    (board(yuki="a1", mina="e1", discs="a2 b1 b2"), "Yuki is to move but has no valid move"),
    (board(yuki="e5", mina="e7", done="mina:3"), "do not match the game number"),
    (board(yuki="e5", mina="e7", turn="mina").replace("T", "Y", 1), "one Yuki and one Mina"),
])
def test_malformed_or_unreachable_positions_are_refused(text: str, problem: str) -> None:
    with pytest.raises(RulesError, match=problem):
        rules.from_position(text)


def test_dump_and_load_keep_the_last_move() -> None:
    state = play(rules.new_game(2, {}, 1), "e5", "e7", "d4")
    data = json.loads(json.dumps(rules.dump(state)))
    assert rules.load(data) == state
    assert rules.view(rules.load(data), None)["last_move"] == ["e5", "d4"]


def test_views_show_both_games_trees_eaten_and_whose_turn_it_is() -> None:
    state = play(rules.new_game(2, {}, 1), "e5", "e7", "d4")
    view = rules.view(state, 1)
    assert view["yuki"] == "d4" and view["mina"] == "e7"
    assert view["to_move"] == 1 and view["to_move_role"] == "Mina"
    assert view["roles"] == ["Yuki", "Mina"] and view["last_move_role"] == "Yuki"
    assert [g["status"] for g in view["games"]] == [
        "in progress; 2 trees eaten so far", "not started"]
    spectator = rules.view(state, None)
    assert {**spectator, "seat": 1} == view  # nothing is secret in this game


def test_the_text_board_is_drawn_with_coordinates() -> None:
    state = play(rules.new_game(2, {}, 1), "e5", "e7", "d4")
    text = rules.render_text(rules.view(state, 0))
    lines = text.splitlines()
    assert lines[1] == "    a b c d e f g h i j"
    assert lines[5] == "  7 ^ ^ ^ ^ M ^ ^ ^ ^ ^ 7"
    assert lines[7] == "  5 ^ ^ ^ ^ . ^ ^ ^ ^ ^ 5"
    assert lines[8] == "  4 ^ ^ ^ Y ^ ^ ^ ^ ^ ^ 4"
    assert "Last move: Yuki e5-d4" in text and "To move: Mina (Player 2)" in text
    assert "Game 1: Player 1 is Yuki, Player 2 is Mina; in progress; 2 trees eaten so far" in text


def test_setup_events_read_well() -> None:
    transition = rules.apply_move(rules.new_game(2, {}, 1), 0, (4, 4))
    assert rules.describe_event(transition.events[0]) == "Yuki starts on e5 and eats its tree"
    transition = rules.apply_move(transition.state, 1, (4, 6))
    assert rules.describe_event(transition.events[0]) == "Mina hides on e7"


def test_the_match_end_event_gives_the_result() -> None:
    state = at(board(**MINA_STUCK_IN_GAME_2, done="mina:30"))
    events = rules.apply_move(state, 1, (3, 5)).events
    assert [event.kind for event in events] == ["moved", "game_over", "match_over"]
    assert rules.describe_event(events[-1]).startswith("Player 2 won both games")


def test_the_rules_page_renders() -> None:
    env = template_env()
    env.globals.update(url_for=lambda *args, **kwargs: "/", page_flashes=lambda: [],
                       config={"PBEM_SETTINGS": {"development": False}})
    page = env.get_template("games/frozen-forest/rules.html").render(rules=rules)
    assert "forest_size" in page and "orthogonal_mina" in page and "a1, b1" in page


def test_the_board_marks_the_squares_the_player_may_go_to() -> None:
    state = at(YUKI_TO_MOVE)
    moves = legal(state)
    svg = template_env().get_template("games/frozen-forest/board.html").render(
        view=rules.view(state, 0), seat=0, legal_moves=moves)
    assert svg.count("<title>you may go to") == len(moves) == 5
    assert "d4</title>" in svg


@pytest.mark.parametrize("options", [{"forest_size": 9}, {"forest_size": 8},
                                     {"orthogonal_mina": True}])
def test_random_matches_with_each_option_keep_positions_round_tripping(options: dict) -> None:
    rng = random.Random(5)
    state = rules.new_game(2, options, 5)
    while rules.to_move(state):
        text = rules.position(state)
        assert rules.position(rules.from_position(text)) == text
        seat = next(iter(rules.to_move(state)))
        move = rng.choice(list(rules.legal_moves(state, seat)))
        state = rules.apply_move(state, seat, move).state
    assert rules.position(rules.from_position(rules.position(state))) == rules.position(state)
    assert rules.outcome(state) is not None
