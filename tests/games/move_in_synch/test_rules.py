"""Move In Synch, In Opposition: one test per rule sentence and ruling, on hand-built positions.

Positions are written in the module's position text (see its docstring):
`<ranks top-down> <blue marker> <red marker> <move number> <order> <pending>`.
Most use a 4 x 4 board; rank 4 is written first.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from pbem.games import get_rules
from pbem.games.base import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    OptionError,
    RulesError,
)
from pbem.games.move_in_synch.rules import MoveInSynchRules, SynchState
from tests.support.render import render

RULES = get_rules("move-in-synch")
BLUE, RED = 0, 1
EMPTY_4 = "..../..../..../...."
ALL_DIRECTIONS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]


def pos(ranks: str, blue: str, red: str, move: int = 1, order: str = "decider-first",
        pending: str = "-") -> SynchState:
    return RULES.from_position(f"{ranks} {blue} {red} {move} {order} {pending}")


def legal(state: SynchState, seat: int) -> list[str]:
    return list(RULES.legal_moves(state, seat))


def play(state: SynchState, seat: int, text: str) -> SynchState:
    return RULES.apply_move(state, seat, RULES.parse_move(state, seat, text)).state


def symbols(state: SynchState) -> dict[str, str]:
    return RULES.view(state, None)["marks"]


# Setup: "The players start the game by each placing their marker in any square ..."


def test_the_game_is_registered_for_two_players() -> None:
    assert isinstance(RULES, MoveInSynchRules)
    assert RULES.slug == "move-in-synch" and RULES.player_counts == frozenset({2})


def test_blue_places_first_on_any_square_of_the_default_8x8_board() -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert RULES.to_move(state) == {BLUE}
    assert legal(state, BLUE)[:3] == ["a1", "b1", "c1"]
    assert len(legal(state, BLUE)) == 64 and "h8" in legal(state, BLUE)
    assert legal(state, RED) == []


def test_red_places_second_on_any_square_other_than_blues() -> None:
    state = play(RULES.new_game(2, {}, seed=1), BLUE, "e4")
    assert RULES.to_move(state) == {RED}
    assert len(legal(state, RED)) == 63 and "e4" not in legal(state, RED)


def test_the_view_asks_red_to_start_anywhere_but_on_blues_square() -> None:
    state = play(RULES.new_game(2, {}, seed=1), BLUE, "e4")
    assert RULES.view(state, RED)["status"] == (
        "You place your marker: choose any square except Blue's (e4).")
    assert RULES.view(state, BLUE)["status"] == "Red is to place a marker."


def test_red_cannot_start_on_the_square_where_blue_started() -> None:
    state = play(RULES.new_game(2, {}, seed=1), BLUE, "e4")
    with pytest.raises(IllegalMoveError, match=r"different square from Blue.*e4"):
        RULES.parse_move(state, RED, "e4")


def test_each_start_square_gets_its_owners_symbol() -> None:
    state = play(play(RULES.new_game(2, {}, seed=1), BLUE, "e4"), RED, "d5")
    assert symbols(state) == {"e4": "x", "d5": "o"}
    assert RULES.position(state).startswith("......../......../......../...o..../....x.../")


def test_the_seed_changes_nothing_because_the_game_has_no_chance() -> None:
    assert RULES.dump(RULES.new_game(2, {}, 1)) == RULES.dump(RULES.new_game(2, {}, 99))


# Roles: "Players alternate, taking turns who is the directioner and who is the decider."


def test_in_move_one_blue_directs_and_red_decides() -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    view = RULES.view(state, None)
    assert (view["directioner"], view["decider"]) == (BLUE, RED)
    assert RULES.to_move(state) == {RED}


def test_roles_alternate_every_move() -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    seen = []
    for text in ("synch", "N", "synch", "N", "opposition", "E"):
        seat = next(iter(RULES.to_move(state)))
        seen.append(seat)
        state = play(state, seat, text)
    # Move 1: Red decides, Blue directs; move 2: Blue decides, Red directs; move 3 as move 1.
    assert seen == [RED, BLUE, BLUE, RED, RED, BLUE]
    assert RULES.view(state, None)["move_number"] == 4
    assert RULES.view(state, None)["directioner"] == RED


# Standard order: "first the decider decides if the players will move in opposition or in synch"


def test_the_decider_announces_before_the_directioner_picks_a_direction() -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    assert legal(state, RED) == ["synch", "opposition"]
    assert legal(state, BLUE) == []
    with pytest.raises(IllegalMoveError, match="not your turn: Red decides move 1"):
        RULES.parse_move(state, BLUE, "N")
    state = play(state, RED, "synch")
    assert RULES.to_move(state) == {BLUE}


def test_the_decider_may_only_announce_a_mode_that_leaves_the_directioner_a_direction() -> None:
    # Blue directs from a1 (only N, NE, E stay on the board); Red sits in the opposite corner,
    # where N, NE and E all leave the board: synch would leave Blue no direction.
    state = pos("...o/..../..../x...", "a1", "d4")
    assert legal(state, RED) == ["opposition"]
    with pytest.raises(IllegalMoveError,
                       match="cannot announce synch: with Blue on a1 and you on d4, no direction"):
        RULES.parse_move(state, RED, "synch")


def test_the_directioner_must_keep_their_own_marker_on_the_board() -> None:
    state = pos("..../..../.o../x...", "a1", "b2", pending="synch")
    assert legal(state, BLUE) == ["N", "NE", "E"]
    with pytest.raises(IllegalMoveError, match="cannot go S: your marker on a1 would leave"):
        RULES.parse_move(state, BLUE, "S")


def test_in_synch_the_directioner_must_keep_the_decider_on_the_board() -> None:
    state = pos("..../..../.x../o...", "b2", "a1", pending="synch")
    assert legal(state, BLUE) == ["N", "NE", "E"]
    with pytest.raises(IllegalMoveError,
                       match="cannot go W: Red announced synch, so their marker on a1 would "
                             "go W and leave the board"):
        RULES.parse_move(state, BLUE, "W")


def test_in_opposition_the_directioner_must_keep_the_decider_on_the_board() -> None:
    state = pos("..../..../.x../o...", "b2", "a1", pending="opposition")
    assert legal(state, BLUE) == ["S", "SW", "W"]
    with pytest.raises(IllegalMoveError, match="marker on a1 would go S and leave the board"):
        RULES.parse_move(state, BLUE, "N")


def test_in_synch_the_decider_moves_one_square_the_same_way() -> None:
    state = pos("..../..../.x../o...", "b2", "a1", pending="synch")
    state = play(state, BLUE, "NE")
    assert RULES.view(state, None)["markers"] == ["c3", "b2"]


def test_in_opposition_the_decider_moves_one_square_the_exact_opposite_way() -> None:
    state = pos("..../..../.x../o...", "b2", "a1", pending="opposition")
    state = play(state, BLUE, "SW")
    assert RULES.view(state, None)["markers"] == ["a1", "b2"]


# Drawing: "If any player moves his/her marker onto an empty square, ... draws his/her symbol"


def test_a_player_landing_on_an_empty_square_draws_their_symbol() -> None:
    state = pos("..../..o./.x../....", "b2", "c3", pending="synch")
    state = play(state, BLUE, "E")
    assert symbols(state) == {"b2": "x", "c2": "x", "c3": "o", "d3": "o"}


def test_nobody_draws_on_a_square_that_already_holds_a_symbol() -> None:
    # Blue lands on Red's o at c2, Red lands on Red's own o at d3.
    state = pos("..../..oo/.xo./....", "b2", "c3", pending="synch")
    state = play(state, BLUE, "E")
    assert symbols(state) == {"b2": "x", "c2": "o", "c3": "o", "d3": "o"}
    assert RULES.view(state, None)["last_move"]["drew"] == [False, False]


def test_one_player_may_draw_while_the_other_lands_on_a_symbol() -> None:
    state = pos("..../..ox/.x../....", "b2", "c3", pending="synch")
    state = play(state, BLUE, "E")
    assert symbols(state)["c2"] == "x" and symbols(state)["d3"] == "x"
    assert RULES.view(state, None)["last_move"]["drew"] == [True, False]


def test_both_landing_on_the_same_empty_square_draw_nothing() -> None:
    state = pos("..../..../..../x.o.", "a1", "c1", pending="opposition")
    state = play(state, BLUE, "E")
    view = RULES.view(state, None)
    assert view["markers"] == ["b1", "b1"]
    assert "b1" not in view["marks"]
    assert RULES.render_text(view).splitlines()[5].startswith("1  x  .* o")


def test_both_markers_may_share_a_square_and_move_on_from_it() -> None:
    state = pos("..../..../..../x.o.", "b1", "b1", move=2)
    assert legal(state, BLUE) == ["synch", "opposition"]
    state = play(state, BLUE, "synch")
    assert legal(state, RED) == ["N", "NE", "E", "W", "NW"]
    state = play(state, RED, "N")
    assert RULES.view(state, None)["markers"] == ["b2", "b2"]
    assert "b2" not in symbols(state)


# The end: "When all squares are filled up with symbols, or when one player has more symbols
# than the number of symbols his/her opponent has + the number of empty squares"


def test_the_game_ends_when_every_square_holds_a_symbol_and_most_symbols_wins() -> None:
    state = pos("oooo/xooo/xxxx/x.xx", "a1", "d4", pending="opposition")
    assert RULES.outcome(state) is None
    state = play(state, BLUE, "E")
    result = RULES.outcome(state)
    assert result is not None and result.winners == {BLUE}
    assert result.scores == (9.0, 7.0)
    assert "board is full" in result.reason and "9 symbols to 7" in result.reason
    assert RULES.to_move(state) == frozenset()


def test_a_full_board_with_equal_symbols_is_a_draw() -> None:
    state = pos("oooo/oooo/xxxx/x.xx", "a1", "d4", pending="opposition")
    state = play(state, BLUE, "E")
    result = RULES.outcome(state)
    assert result is not None and result.winners == {BLUE, RED}
    assert result.scores == (8.0, 8.0) and "draw" in result.reason


def test_the_game_ends_when_a_player_can_no_longer_be_caught() -> None:
    # Blue 8, Red 2, empty 6: Red could still draw level. Blue draws on b1, Red lands on x.
    state = pos("xxxo/xxx./xo../x...", "a1", "d4", pending="opposition")
    assert RULES.outcome(state) is None
    state = play(state, BLUE, "E")
    result = RULES.outcome(state)
    assert result is not None and result.winners == {BLUE}
    assert result.scores == (9.0, 2.0)
    assert "Red can no longer catch up" in result.reason
    assert RULES.to_move(state) == frozenset()


def test_the_trailing_player_keeps_playing_while_a_tie_is_still_possible() -> None:
    # Red 8 = Blue 2 + 6 empty squares: not "more than", so the game goes on.
    state = pos("ooox/ooo./ox../o...", "b2", "a1")
    assert RULES.outcome(state) is None and RULES.to_move(state) == {RED}
    over = pos("ooox/ooo./oo../o...", "b2", "a1")
    result = RULES.outcome(over)
    assert result is not None and result.winners == {RED} and result.scores == (1.0, 9.0)


def test_no_move_is_accepted_after_the_game_is_over() -> None:
    state = pos("oooo/oooo/xxxx/xxxx", "a1", "d4")
    assert legal(state, RED) == [] and legal(state, BLUE) == []
    with pytest.raises(IllegalMoveError, match="the game is over: the board is full"):
        RULES.parse_move(state, RED, "opposition")
    with pytest.raises(IllegalMoveError, match="game is over"):
        RULES.apply_move(state, RED, "opposition")


# Variant: "The directioner picks the direction first, then the decider decides"


def test_variant_the_directioner_picks_the_direction_first() -> None:
    state = RULES.new_game(2, {"directioner_first": True}, seed=1)
    state = play(play(state, BLUE, "a1"), RED, "d4")
    assert RULES.to_move(state) == {BLUE}
    assert RULES.position(state).endswith("a1 d4 1 directioner-first -")
    with pytest.raises(IllegalMoveError, match="not your turn: Blue directs move 1"):
        RULES.parse_move(state, RED, "synch")


def test_variant_the_directioner_only_needs_to_keep_their_own_marker_on_the_board() -> None:
    # Red in the far corner cannot follow N, NE or E in synch, but can in opposition, so all
    # of Blue's on-board directions are open.
    state = pos("...o/..../..../x...", "a1", "d4", order="directioner-first")
    assert legal(state, BLUE) == ["N", "NE", "E"]
    with pytest.raises(IllegalMoveError, match="cannot go W: your marker on a1 would leave"):
        RULES.parse_move(state, BLUE, "W")


def test_variant_the_direction_must_leave_the_decider_some_mode_that_stays_on() -> None:
    # Red in the corner a1 can follow SE neither in synch (b0) nor in opposition (NW, off the
    # a-file); the same for NW. Every other direction leaves Red one mode.
    state = pos("..../..../.x../o...", "b2", "a1", order="directioner-first")
    assert legal(state, BLUE) == ["N", "NE", "E", "S", "SW", "W"]
    with pytest.raises(IllegalMoveError,
                       match="cannot go SE: Red's marker on a1 would leave the board both in "
                             "synch \\(SE\\) and in opposition \\(NW\\)"):
        RULES.parse_move(state, BLUE, "SE")
    middle = pos("..../.o../.x../....", "b2", "b3", order="directioner-first")
    assert legal(middle, BLUE) == ALL_DIRECTIONS


def test_variant_the_decider_must_choose_a_mode_that_keeps_their_marker_on_the_board() -> None:
    state = pos("o.../..../..../x...", "a1", "a4", order="directioner-first", pending="N")
    assert RULES.to_move(state) == {RED}
    assert legal(state, RED) == ["opposition"]
    with pytest.raises(IllegalMoveError,
                       match="cannot move in synch: Blue picked N, and going N from a4 would "
                             "take your marker off the board; choose opposition"):
        RULES.parse_move(state, RED, "synch")


def test_variant_the_decider_may_choose_either_mode_when_both_stay_on() -> None:
    state = pos("..../..../.o../x...", "a1", "b2", order="directioner-first", pending="NE")
    assert legal(state, RED) == ["synch", "opposition"]
    after = play(state, RED, "opposition")
    assert RULES.view(after, None)["markers"] == ["b2", "a1"]
    assert symbols(after)["b2"] == "o"  # Blue lands on Red's symbol: no new symbol


def test_variant_roles_still_alternate_every_move() -> None:
    state = pos("..../..../.o../x...", "a1", "b2", order="directioner-first")
    state = play(play(state, BLUE, "N"), RED, "synch")
    assert RULES.to_move(state) == {RED}
    assert RULES.view(state, None)["directioner"] == RED


@pytest.mark.parametrize("order", ["decider-first", "directioner-first"])
def test_the_player_to_move_always_has_a_legal_move(order: str) -> None:
    squares = [f"{f}{r}" for f in "abcd" for r in "1234"]
    for blue in squares:
        for red in squares:
            for move in (1, 2):
                state = pos(EMPTY_4, blue, red, move=move, order=order)
                (seat,) = RULES.to_move(state)
                first = legal(state, seat)
                assert first, RULES.position(state)
                for half in first:
                    after = play(state, seat, half)
                    (other,) = RULES.to_move(after)
                    assert other != seat and legal(after, other), RULES.position(after)


# Notation


def test_legal_moves_are_the_canonical_notation() -> None:
    state = pos("..../..../.x../o...", "b2", "a1", pending="synch")
    assert [RULES.format_move(state, m) for m in legal(state, BLUE)] == ["N", "NE", "E"]
    assert RULES.format_move(state, "NE") == "NE"


@pytest.mark.parametrize(("text", "move"), [
    ("synch", "synch"), ("SYNCH", "synch"), ("Sync", "synch"), ("in synch", "synch"),
    ("same", "synch"), (" Same ", "synch"), ("sy", "synch"),
    ("opposition", "opposition"), ("Opposite", "opposition"), ("in opposition", "opposition"),
    ("opp", "opposition"), ("OPP.", "opposition"),
])
def test_the_decider_may_write_the_mode_forgivingly(text: str, move: str) -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    assert RULES.parse_move(state, RED, text) == move


@pytest.mark.parametrize(("text", "move"), [
    ("N", "N"), ("n", "N"), ("north", "N"), ("North", "N"), ("up", "N"),
    ("NE", "NE"), ("ne", "NE"), ("north east", "NE"), ("North-East", "NE"),
    ("north\u2013east", "NE"), ("northeast", "NE"), ("n e", "NE"),
    ("E", "E"), ("east", "E"), ("right", "E"), ("ea", "E"),
])
def test_the_directioner_may_write_the_direction_forgivingly(text: str, move: str) -> None:
    state = pos("..../..../.o../x...", "a1", "b2", pending="synch")
    assert RULES.parse_move(state, BLUE, text) == move


@pytest.mark.parametrize("text", ["e4", "E4", " e 4 ", "place e4", "e-4"])
def test_a_placement_may_be_written_forgivingly(text: str) -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert RULES.parse_move(state, BLUE, text) == "e4"


@pytest.mark.parametrize("text", ["", "hello", "e4e5", "x", "synch N"])
def test_text_that_is_not_a_move_is_refused_and_quoted(text: str) -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    with pytest.raises(InvalidMoveError, match="is not a move") as refused:
        RULES.parse_move(state, RED, text)
    assert repr(text) in str(refused.value)
    assert "you decide move 1: announce synch or opposition" in str(refused.value)


def test_a_square_off_the_board_is_refused_naming_the_board() -> None:
    state = RULES.new_game(2, {"size": 4}, seed=1)
    with pytest.raises(InvalidMoveError, match="'e4' is not on the board \\(a1 to d4\\)"):
        RULES.parse_move(state, BLUE, "e4")


@pytest.mark.parametrize(("text", "candidates"), [
    ("no", "N or NE or NW"), ("sou", "SE or S or SW"), ("in", "synch or opposition"),
    ("do", "SE or S or SW"),
])
def test_an_ambiguous_beginning_lists_the_moves_it_could_mean(text: str, candidates: str) -> None:
    state = pos("..../..../.o../x...", "a1", "b2", pending="synch")
    with pytest.raises(AmbiguousMoveError, match=f"{text!r} could mean {candidates}"):
        RULES.parse_move(state, BLUE, text)


def test_a_direction_is_refused_while_the_decider_must_announce() -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    with pytest.raises(IllegalMoveError,
                       match="cannot play N now: you decide move 1: announce synch or "
                             "opposition; then Blue picks a direction"):
        RULES.parse_move(state, RED, "north")


def test_a_mode_is_refused_when_a_direction_is_due() -> None:
    state = pos("..../..../.o../x...", "a1", "b2", pending="synch")
    with pytest.raises(IllegalMoveError,
                       match="cannot play opposition now: you direct move 1: Red announced "
                             "synch, so pick a direction"):
        RULES.parse_move(state, BLUE, "opposite")


def test_a_square_is_refused_once_both_markers_are_placed() -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    with pytest.raises(IllegalMoveError, match="cannot play c3 now: you decide move 1"):
        RULES.parse_move(state, RED, "c3")


def test_a_direction_is_refused_while_markers_are_being_placed() -> None:
    state = RULES.new_game(2, {}, seed=1)
    with pytest.raises(IllegalMoveError, match="place your marker first"):
        RULES.parse_move(state, BLUE, "N")
    with pytest.raises(IllegalMoveError, match="not your turn: Blue is to place a marker"):
        RULES.parse_move(state, RED, "e4")


def test_apply_move_refuses_an_illegal_move_and_leaves_the_state_alone() -> None:
    state = pos("..../..../.x../o...", "b2", "a1", pending="synch")
    before = RULES.dump(state)
    with pytest.raises(IllegalMoveError, match="cannot go S"):
        RULES.apply_move(state, BLUE, "S")
    assert RULES.dump(state) == before


# Options


def test_options_default_to_an_8x8_board_in_the_standard_order() -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert RULES.position(state) == "/".join(["........"] * 8) + " - - 1 decider-first -"


@pytest.mark.parametrize("size", [4, "10", 19])
def test_the_board_size_may_be_4_to_19(size: int | str) -> None:
    state = RULES.new_game(2, {"size": size}, seed=1)
    assert RULES.view(state, None)["size"] == int(size)
    assert len(legal(state, BLUE)) == int(size) ** 2


@pytest.mark.parametrize(("options", "message"), [
    ({"size": 3}, "option size must be at least 4, not 3"),
    ({"size": 20}, "option size must be at most 19, not 20"),
    ({"size": "big"}, "option size must be a whole number, not 'big'"),
    ({"directioner_first": "maybe"}, "option directioner_first must be on or off"),
    ({"colour": "blue"}, "has no option colour"),
])
def test_bad_options_are_refused_clearly(options: dict, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        RULES.new_game(2, options, seed=1)


def test_the_game_is_for_exactly_two_players() -> None:
    with pytest.raises(RulesError, match="played by 2 players, not 3"):
        RULES.new_game(3, {}, seed=1)


# Position text


@pytest.mark.parametrize("line", [
    "..../..../..../.... - - 1 decider-first -",
    "..../..../..../x... a1 - 1 directioner-first -",
    "..../..../xo../xo.. a2 b2 2 decider-first opposition",
    "..../..o./.x../xo.. b2 c3 7 directioner-first SW",
    "..../..../..../x.o. b1 b1 2 decider-first -",
])
def test_the_position_text_round_trips(line: str) -> None:
    assert RULES.position(RULES.from_position(line)) == line


def test_the_position_text_records_everything_that_decides_the_legal_moves() -> None:
    standard = pos("..../..../.o../x...", "a1", "b2", move=2)
    variant = pos("..../..../.o../x...", "a1", "b2", move=2, order="directioner-first")
    assert RULES.to_move(standard) == {BLUE} and RULES.to_move(variant) == {RED}
    after = play(standard, BLUE, "opposition")
    assert RULES.position(after) == "..../..../.o../x... a1 b2 2 decider-first opposition"


@pytest.mark.parametrize(("line", "message"), [
    ("..../..../..../.... a1 b2 1 decider-first", "six fields"),
    (".../.../... a1 b2 1 decider-first -", "4 to 19 ranks"),
    ("..../..../...../.... a1 b2 1 decider-first -", "every rank needs 4"),
    ("..../..../..../..z. a1 b2 1 decider-first -", "each x, o or ."),
    ("..../..../..../.... - b2 1 decider-first -", "Blue places the marker before Red"),
    ("..../..../..../.... a1 b2 1 sideways -", "the order is"),
    ("..../..../..../.... a1 b2 0 decider-first -", "move number"),
    ("..../..../..../.... a1 b2 1 decider-first N", "'N' cannot be the pending"),
    ("...o/..../..../x... a1 d4 1 decider-first synch", "'synch' cannot be the pending"),
    ("..../..../..../.... a1 e5 1 decider-first -", "not on the board"),
])
def test_a_bad_position_text_is_refused_with_a_reason(line: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        RULES.from_position(line)


# Views, text, events, dump/load, autoplay


def test_the_view_tells_each_seat_its_role_this_move() -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    assert RULES.view(state, RED)["status"].startswith("You decide move 1: announce synch")
    assert RULES.view(state, BLUE)["status"] == (
        "You direct move 1; Red decides move 1 (synch or opposition).")
    assert RULES.view(state, None)["status"] == (
        "Move 1: Blue directs and Red decides; Red decides move 1 (synch or opposition).")
    seats = RULES.view(state, None)["seats"]
    assert [s["role"] for s in seats] == ["directioner", "decider"]
    assert [s["symbols"] for s in seats] == [1, 1]


def test_the_view_carries_the_last_move_to_highlight_and_is_json_safe() -> None:
    state = play(pos("..../..../.o../x...", "a1", "b2", pending="synch"), BLUE, "N")
    view = RULES.view(state, BLUE)
    assert view["last_move"] == {"directioner": 0, "mode": "synch", "direction": "N",
                                 "from": ["a1", "b2"], "to": ["a2", "b3"],
                                 "drew": [True, True]}
    assert view["highlight"] == ["a1", "a2", "b2", "b3"]
    assert json.loads(json.dumps(view)) == view


def test_the_text_board_has_coordinates_symbols_and_markers() -> None:
    state = pos("..../..o./.x../xo..", "b2", "c3", move=2)
    text = RULES.render_text(RULES.view(state, BLUE))
    lines = text.splitlines()
    assert lines[0] == ("Move 2. Blue (x) 2, Red (o) 2, empty 12. "
                        "Directioner: Red; decider: Blue.")
    assert lines[1] == "   a  b  c  d"
    assert lines[3] == "3  .  .  oR .  3"
    assert lines[4] == "2  .  xB .  .  2"
    assert lines[5] == "1  x  o  .  .  1"
    assert "B = Blue (b2), R = Red (c3)" in text
    assert lines[-1].startswith("You decide move 2")


def test_events_read_as_short_sentences() -> None:
    state = RULES.new_game(2, {"size": 4}, seed=1)
    placed = RULES.apply_move(state, BLUE, "a1")
    assert RULES.describe_event(placed.events[0]) == (
        "Blue places the marker on a1 and draws x there")
    state = pos("..../..../..../x.o.", "a1", "c1")
    announced = RULES.apply_move(state, RED, "opposition")
    assert RULES.describe_event(announced.events[0]) == "Red announces opposition"
    moved = RULES.apply_move(announced.state, BLUE, "E")
    assert RULES.describe_event(moved.events[0]) == (
        "Blue a1-b1 E, Red c1-b1 W in opposition; both landed on b1, so nobody drew")
    variant = pos("..../..../.o../x...", "a1", "b2", order="directioner-first")
    directed = RULES.apply_move(variant, BLUE, "NE")
    assert RULES.describe_event(directed.events[0]) == "Blue picks direction NE"
    done = RULES.apply_move(directed.state, RED, "synch")
    assert RULES.describe_event(done.events[0]) == (
        "Blue a1-b2 NE, Red b2-c3 NE in synch; Red drew o on c3")


def test_dump_and_load_round_trip_including_the_last_move() -> None:
    state = play(pos("..../..../.o../x...", "a1", "b2", pending="synch"), BLUE, "N")
    data = json.loads(json.dumps(RULES.dump(state)))
    assert RULES.load(data) == state


def test_seat_labels_are_blue_and_red() -> None:
    state = RULES.new_game(2, {}, seed=1)
    assert [RULES.seat_label(state, s) for s in (BLUE, RED)] == ["Blue", "Red"]


def test_autoplay_takes_the_first_legal_move() -> None:
    assert RULES.default_move(RULES.new_game(2, {}, seed=1), BLUE) == "a1"
    assert RULES.default_move(pos("..../..../..../x... ".strip(), "a1", "-"), RED) == "b1"
    assert RULES.default_move(pos("...o/..../..../x...", "a1", "d4"), RED) == "opposition"
    assert RULES.default_move(pos("..../..../.o../x...", "a1", "b2"), RED) == "synch"
    state = pos("..../..../.x../o...", "b2", "a1", pending="opposition")
    assert RULES.default_move(state, BLUE) == "S"


# Templates


def test_the_board_shows_both_markers_symbols_and_the_viewers_role() -> None:
    state = pos("..../..../.o../x...", "a1", "b2")
    svg = render("games/move-in-synch/board.html", view=RULES.view(state, RED), seat=RED,
                 legal_moves=legal(state, RED))
    assert "You decide this move" in svg
    assert "Blue marker on a1" in svg and "Red marker on b2" in svg
    table = render("games/move-in-synch/board_table.html", view=RULES.view(state, BLUE),
                   seat=BLUE)
    assert "You direct this move" in table


def test_the_board_draws_two_markers_sharing_a_square() -> None:
    state = pos("..../..../..../x.o.", "b1", "b1", move=2)
    svg = render("games/move-in-synch/board.html", view=RULES.view(state, None), seat=None,
                 legal_moves=[])
    assert "Blue marker on b1" in svg and "Red marker on b1" in svg


def test_the_rules_page_renders_with_every_ruling() -> None:
    page = render("games/move-in-synch/rules.html", rules=RULES,
                  url_for=lambda *args, **kwargs: "/",
                  page_flashes=lambda: [],
                  config=SimpleNamespace(PBEM_SETTINGS=SimpleNamespace(development=False)))
    for phrase in ("directioner_first", "opposition", "same empty square", "decider-first",
                   "a1", "moves for an absent player"):
        assert phrase in page
