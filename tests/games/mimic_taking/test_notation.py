"""Mimic Taking move notation: canonical forms, forgiving variants and every error case."""

from __future__ import annotations

import pytest

from pbem.games.base import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from tests.games.mimic_taking.helpers import RULES, at, play


def canonical(state, seat: int, text: str) -> str:  # type: ignore[no-untyped-def]
    return RULES.format_move(state, RULES.parse_move(state, seat, text))


PLAYING = "hands=O7,B2,G1,M/O1/O2"
KEEPING = "hands=O4,B1,P1/O6,B2,P2/G4,B3,P3"


@pytest.mark.parametrize("text", ["O7", "o7", "o 7", " O7 ", "play O7", "Play o7", "orange 7",
                                  "ORANGE 7", "o\u20137", "play-o7", "7"])
def test_a_card_play_accepts_forgiving_variants(text: str) -> None:
    assert canonical(at(PLAYING), 0, text) == "O7"


@pytest.mark.parametrize("text", ["M", "m", "mimic", "play mimic", "Play M"])
def test_a_mimic_is_written_m(text: str) -> None:
    assert canonical(at(PLAYING), 0, text) == "M"


def test_a_bare_colour_names_the_only_legal_card_of_that_colour() -> None:
    assert canonical(at(PLAYING), 0, "g") == "G1"
    assert canonical(at(PLAYING), 0, "grey") == "G1"
    assert canonical(at(PLAYING), 0, "gray") == "G1"


def test_a_bare_number_shared_by_several_legal_cards_is_ambiguous() -> None:
    state = at("hands=O7,G7,B2/O1/O2")
    with pytest.raises(AmbiguousMoveError, match="'7' could be O7 or G7"):
        RULES.parse_move(state, 0, "7")


def test_a_bare_colour_shared_by_several_legal_cards_is_ambiguous() -> None:
    with pytest.raises(AmbiguousMoveError, match="'o' could be O2 or O7: write the whole card"):
        RULES.parse_move(at("hands=O7,O2,B2/O1/O3"), 0, "o")


def test_a_bare_number_counts_only_cards_that_may_be_played() -> None:
    state = play(at("hands=O5,B1,P1/O7,G7,B2/O2,O3,P4"), "O5")
    assert canonical(state, 1, "7") == "O7"
    with pytest.raises(IllegalMoveError, match=r"'2' matches none of the cards you may play"):
        RULES.parse_move(state, 1, "2")


@pytest.mark.parametrize("text", ["take O4 G4", "take g4 o4", "TAKE O4,G4", "takeo4g4",
                                  "take orange 4 grey 4", "O4 G4", "g4, o4"])
def test_take_accepts_forgiving_variants_and_lists_cards_in_trick_order(text: str) -> None:
    state = play(at(KEEPING), "O4", "O6", "G4")
    assert canonical(state, 2, text) == "take O4 G4"


@pytest.mark.parametrize(("text", "expected"), [
    ("take none", "take none"), ("Take Nothing", "take none"), ("take all", "take O4 O6 G4"),
    ("g4", "take G4")])
def test_take_none_all_and_a_single_card(text: str, expected: str) -> None:
    state = play(at(KEEPING), "O4", "O6", "G4")
    assert canonical(state, 2, text) == expected


@pytest.mark.parametrize(("text", "expected"), [("add", "add"), ("ADD", "add"),
                                                (" Discard ", "discard")])
def test_the_last_card_choice_is_add_or_discard(text: str, expected: str) -> None:
    state = at("hands=B1/B2/B3 choices=?,?,? prev=0:O4,O6,O5")
    assert canonical(state, 0, text) == expected


@pytest.mark.parametrize("text", ["", "   ", "x9", "O0", "O10", "take", "take O4 x", "add it",
                                  "hello", "play", "O"])
def test_text_that_is_not_notation_is_invalid_and_quoted(text: str) -> None:
    state = at(PLAYING)
    if text == "O":  # a bare colour is notation: it is refused as naming no playable card
        with pytest.raises(IllegalMoveError):
            RULES.parse_move(at("hands=B2/O1/O2"), 0, text)
        return
    with pytest.raises(InvalidMoveError) as error:
        RULES.parse_move(state, 0, text)
    assert repr(text) in str(error.value) and "write a card like O7" in str(error.value)


def test_two_cards_cannot_be_played_at_once() -> None:
    with pytest.raises(IllegalMoveError, match="play one card at a time"):
        RULES.parse_move(at(PLAYING), 0, "O7 B2")


def test_a_keep_choice_must_name_whole_cards() -> None:
    state = play(at(KEEPING), "O4", "O6", "G4")
    with pytest.raises(InvalidMoveError, match="name each card to keep in full"):
        RULES.parse_move(state, 2, "4")


def test_add_or_discard_is_refused_during_a_trick() -> None:
    with pytest.raises(IllegalMoveError, match="cannot add a last card now"):
        RULES.parse_move(at(PLAYING), 0, "add")


def test_every_legal_move_round_trips_through_its_notation() -> None:
    for state, seat in [(at(PLAYING), 0), (play(at(KEEPING), "O4", "O6", "G4"), 2),
                        (at("hands=B1/B2/B3 choices=?,?,? prev=0:O4,O6,O5"), 1)]:
        for move in RULES.legal_moves(state, seat):
            text = RULES.format_move(state, move)
            assert RULES.parse_move(state, seat, text) == move
            assert RULES.parse_move(state, seat, text.lower()) == move
