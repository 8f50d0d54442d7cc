"""Who wins a trick, and how a stack scores (rule book "Winning conditions", "Scoring",
"Mimic", "Perfect mimicry bonus"; RULINGS.md Mimic Taking)."""

from __future__ import annotations

import pytest

from pbem.games.mimic_taking.cards import deck, score_stack, trick_winner


def winner(cards: str) -> tuple[int, str]:
    result = trick_winner(cards.split())
    return result.index, result.how


# -- deck ------------------------------------------------------------------------------------

def test_three_players_use_36_cards_without_the_nines() -> None:
    cards = deck(3)
    assert len(cards) == 36 and cards.count("M") == 4
    assert not any(card.endswith("9") for card in cards)


def test_four_players_use_all_40_cards() -> None:
    cards = deck(4)
    assert len(cards) == 40 and cards.count("M") == 4 and "G9" in cards and "O1" in cards


# -- the winner of a trick -----------------------------------------------------------------

def test_closest_number_of_the_led_colour_wins() -> None:
    assert winner("O4 O7 O5") == (2, "closest")


def test_equal_gap_goes_to_the_card_played_later() -> None:
    # Rule book example 1: lead 4, then 6 and 2 are both 2 away; the later 2 wins.
    assert winner("P4 P6 P2") == (2, "closest")
    assert winner("P4 P2 P6") == (2, "closest")


def test_the_reference_card_itself_is_no_candidate() -> None:
    assert winner("O5 O9 B1") == (1, "closest")


def test_a_card_of_another_colour_with_the_reference_number_is_a_trump_and_wins() -> None:
    assert winner("O4 O5 G4") == (2, "trump")


def test_of_several_trumps_the_later_one_wins() -> None:
    # Rule book example 2.
    assert winner("O4 G4 P4 O3") == (2, "trump")


def test_off_colour_cards_of_another_number_do_not_win() -> None:
    assert winner("O4 B5 G3") == (0, "reference")


def test_with_no_follower_and_no_trump_the_reference_player_wins() -> None:
    assert winner("B2 O3 P8") == (0, "reference")


def test_a_trick_led_by_a_mimic_takes_its_reference_from_the_first_numbered_card() -> None:
    assert winner("M O4 O6") == (2, "closest")
    assert winner("M O4 G4") == (2, "trump")
    assert winner("M B3 O1") == (1, "reference")


def test_mimics_have_no_number_and_never_win_by_it() -> None:
    assert winner("O4 M O1") == (2, "closest")
    assert winner("O4 M B2") == (0, "reference")


def test_when_every_card_is_a_mimic_the_last_card_wins() -> None:
    assert winner("M M M") == (2, "mimics")


# -- scoring -----------------------------------------------------------------------------------

def stack(text: str) -> list[str]:
    return text.split()


def test_score_is_minus_the_gap_between_most_and_least_held_colour() -> None:
    # Rule book example: 4 of one colour, 1 of another -> minus 3.
    scored = score_stack(stack("O1 O2 O3 O4 B1 P1 P2"))
    assert scored.score == -3
    assert scored.arithmetic == "orange 4 - brown 1 = -3"


def test_with_one_colour_held_the_least_is_zero() -> None:
    # Rule book example: 4 of one colour and nothing else -> 4 - 0, minus 4.
    assert score_stack(stack("G1 G2 G3 G5")).score == -4


def test_colours_not_held_do_not_count_as_the_least_when_two_or_more_are_held() -> None:
    assert score_stack(stack("O1 O2 O3 O4 B1")).score == -3


@pytest.mark.parametrize(("cards", "bonus"), [
    ("O1 B1", 5), ("O1 O2 B1 B2", 5), ("O1 O2 B1 B2 P5 P6", 10), ("O1 B2 P3 G4", 15),
])
def test_equal_held_colours_score_the_perfect_mimicry_bonus(cards: str, bonus: int) -> None:
    assert score_stack(stack(cards)).score == bonus


def test_an_empty_stack_scores_zero() -> None:
    assert score_stack([]).score == 0


def test_a_stack_of_mimics_only_scores_zero() -> None:
    scored = score_stack(stack("M M"))
    assert scored.score == 0 and scored.assignment == {}


def test_each_mimic_joins_the_colour_that_gives_the_best_score() -> None:
    scored = score_stack(stack("O1 O2 O3 B1 M M"))
    assert scored.score == 5
    assert scored.assignment == {"B": 2} and scored.counts == {"O": 3, "B": 3}


def test_mimics_may_split_between_colours() -> None:
    scored = score_stack(stack("O1 O2 O3 B1 P1 M M M M"))
    assert scored.score == 10
    assert scored.assignment == {"B": 2, "P": 2}


def test_a_mimic_joins_only_a_colour_already_held() -> None:
    # Joining an absent colour would give O2 B1 (-1); the mimic must join orange: 3 - 0.
    scored = score_stack(stack("O1 O2 M"))
    assert scored.score == -3 and scored.assignment == {"O": 1}
