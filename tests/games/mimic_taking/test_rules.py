"""Mimic Taking play, one test per rule sentence and ruling, on hand-built positions."""

from __future__ import annotations

from collections import Counter

import pytest

from pbem.games.base import OptionError, RulesError
from pbem.games.mimic_taking.cards import deck
from tests.games.mimic_taking.helpers import RULES, at, event, kinds, legal, move, play

# -- setting up -------------------------------------------------------------------------------

@pytest.mark.parametrize(("players", "size", "rounds"), [(3, 12, 5), (4, 10, 4)])
def test_the_deal_gives_every_player_an_equal_hand_from_the_whole_deck(
        players: int, size: int, rounds: int) -> None:
    state = RULES.new_game(players, {}, 11)
    assert [len(hand) for hand in state.hands] == [size] * players
    assert Counter(c for hand in state.hands for c in hand) == Counter(deck(players))
    assert state.rounds == rounds


def test_the_deal_and_first_leader_come_from_the_seed() -> None:
    assert RULES.dump(RULES.new_game(4, {}, 5)) == RULES.dump(RULES.new_game(4, {}, 5))
    leaders = {RULES.new_game(3, {}, seed).leader for seed in range(30)}
    assert leaders == {0, 1, 2}
    assert len({RULES.new_game(3, {}, seed).hands for seed in range(5)}) == 5


@pytest.mark.parametrize("players", [2, 5])
def test_only_three_or_four_players_may_play(players: int) -> None:
    with pytest.raises(RulesError, match="3 or 4 players"):
        RULES.new_game(players, {}, 1)


def test_face_up_option_is_validated_clearly() -> None:
    assert RULES.new_game(3, {"face_up": "yes"}, 1).face_up is True
    assert RULES.new_game(3, {}, 1).face_up is False
    with pytest.raises(OptionError, match="face_up must be on or off"):
        RULES.new_game(3, {"face_up": "sideways"}, 1)
    with pytest.raises(OptionError, match="no option colour"):
        RULES.new_game(3, {"colour": "red"}, 1)


# -- playing a trick --------------------------------------------------------------------------

def test_play_goes_in_seat_order_from_the_leader() -> None:
    state = at("leader=2 hands=O1,O2/B1,B2/G1,G2")
    assert RULES.to_move(state) == {2}
    state = play(state, "G1")
    assert RULES.to_move(state) == {0}
    state = play(state, "O1")
    assert RULES.to_move(state) == {1}


def test_the_leader_may_play_any_card() -> None:
    state = at("hands=O2,O5,B1,M/P3,P4,B7/G1,G2,O8")
    assert legal(state, 0) == ["O2", "O5", "B1", "M"]


def test_players_must_follow_the_reference_colour_when_able() -> None:
    state = play(at("hands=O2,O5,B1/P3,O4,B7/G1,G2,O8"), "O5")
    assert legal(state, 1) == ["O4"]


def test_a_player_may_play_any_card_of_the_led_colour() -> None:
    state = play(at("hands=O2,O5,B1/P3,O4,O7,O1/G1"), "O5")
    assert legal(state, 1) == ["O1", "O4", "O7"]


def test_a_player_without_the_led_colour_may_play_any_card() -> None:
    state = play(at("hands=O2,O5,B1/P3,P4,B7,M/G1,G2,O8"), "O5")
    assert legal(state, 1) == ["B7", "P3", "P4", "M"]


def test_a_mimic_may_always_be_played_even_when_able_to_follow() -> None:
    state = play(at("hands=O2,O5,B1/P3,O4,M,M/G1,G2,O8"), "O5")
    assert legal(state, 1) == ["O4", "M"]
    assert RULES.format_move(state, RULES.parse_move(state, 1, "M")) == "M"


def test_after_a_mimic_lead_the_next_player_may_play_any_card() -> None:
    state = play(at("hands=M,O5,B1/P3,O4,B7/G1,G2,O8"), "M")
    assert legal(state, 1) == ["O4", "B7", "P3"]


def test_after_a_mimic_lead_the_first_numbered_card_sets_the_colour_to_follow() -> None:
    state = play(at("hands=M,O5,B1/P3,O4,B7/G1,G2,O8"), "M", "P3")
    assert legal(state, 2) == ["O8", "G1", "G2"]
    state = play(at("hands=M,O5,B1/P3,O4,B7/G1,G2,O8"), "M", "O4")
    assert legal(state, 2) == ["O8"]


def test_after_two_mimics_the_third_player_may_still_play_anything() -> None:
    state = play(at("hands=M,O5/M,O4/G1,O8"), "M", "M")
    assert legal(state, 2) == ["O8", "G1"]


def test_must_follow_error_names_the_colour_the_reference_card_and_the_legal_cards() -> None:
    state = play(at("hands=O2,P5,B1/P3,P8,B7,M/G1,G2,O8"), "P5")
    with pytest.raises(RulesError, match=r"must follow purple: .*P5.* play P3 or P8 or M"):
        RULES.parse_move(state, 1, "B7")


def test_a_card_not_in_hand_is_refused_naming_the_hand() -> None:
    state = at("hands=O2,O5/P3,O4/G1,G2")
    with pytest.raises(RulesError, match=r"you do not hold G7 \(your hand: O2 O5\)"):
        RULES.parse_move(state, 0, "G7")
    with pytest.raises(RulesError, match="you do not hold a mimic"):
        RULES.parse_move(state, 0, "M")


def test_nines_are_refused_in_a_three_player_game() -> None:
    with pytest.raises(RulesError, match="9s are left out"):
        RULES.parse_move(at("hands=O2,O5/P3,O4/G1,G2"), 0, "O9")


def test_a_seat_that_is_not_to_move_is_refused_naming_who_is() -> None:
    state = at("leader=1 hands=O2,O5/P3,O4/G1,G2")
    with pytest.raises(RulesError, match="not your turn: Player 2 is to play"):
        RULES.parse_move(state, 0, "O2")
    assert legal(state, 0) == []


# -- winning a trick --------------------------------------------------------------------------

def test_the_winner_without_a_trump_takes_all_cards_of_the_trick() -> None:
    state = at("hands=O4,B1/O6,B2/O3,B3")
    transition = move(play(state, "O4", "O6"), 2, "O3")
    assert transition.state.stacks == ((), (), ("O4", "O6", "O3"))
    assert event(transition, "trick_won") == {
        "seat": 2, "leader": 0, "cards": ["O4", "O6", "O3"], "how": "closest", "card": "O3",
        "chooses": False}


def test_the_player_after_the_winner_leads_the_next_trick() -> None:
    state = play(at("hands=O4,B1,P1/O6,B2,P2/O5,B3,P3"), "O4", "O6", "O5")
    assert state.stacks[2] and state.leader == 0 and RULES.to_move(state) == {0}
    state = play(at("hands=O4,B1,P1/O5,B2,P2/O7,B3,P3"), "O4", "O5", "O7")
    assert state.leader == 2


def test_the_previous_trick_stays_visible_and_the_table_clears() -> None:
    state = play(at("hands=O4,B1/O6,B2/O5,B3"), "O4", "O6", "O5")
    view = RULES.view(state, 0)
    assert view["trick"] == []
    assert view["previous_trick"]["winner"] == 2
    assert [c["card"] for c in view["previous_trick"]["cards"]] == ["O4", "O6", "O5"]


def test_a_trump_winner_chooses_which_cards_to_keep() -> None:
    state = play(at("hands=O4,B1/O6,B2/G4,B3"), "O4", "O6", "G4")
    assert state.keeper == 2 and RULES.to_move(state) == {2}
    assert legal(state, 2) == [
        "take none", "take O4", "take O6", "take G4", "take O4 O6", "take O4 G4",
        "take O6 G4", "take O4 O6 G4"]
    assert legal(state, 0) == []


def test_keep_choices_treat_the_mimics_of_a_trick_as_alike() -> None:
    state = play(at("hands=M,B1/O4,B2/M,B3/G4,B5"), "M", "O4", "M", "G4")
    assert legal(state, 3) == [
        "take none", "take M", "take O4", "take G4", "take M O4", "take M M", "take M G4",
        "take O4 G4", "take M O4 M", "take M O4 G4", "take M M G4", "take M O4 M G4"]


def test_cards_a_trump_winner_does_not_keep_are_set_aside_for_the_round() -> None:
    state = play(at("hands=O4,B1,P1/O6,B2,P2/G4,B3,P3"), "O4", "O6", "G4")
    transition = move(state, 2, "take g4 o4")
    new = transition.state
    assert new.stacks[2] == ("O4", "G4") and new.aside == ("O6",)
    assert new.keeper is None and new.leader == 0 and RULES.to_move(new) == {0}
    assert event(transition, "took_cards") == {"seat": 2, "kept": ["O4", "G4"],
                                               "set_aside": ["O6"]}


def test_take_none_and_take_all() -> None:
    state = play(at("hands=O4,B1/O6,B2/G4,B3"), "O4", "O6", "G4")
    assert move(state, 2, "take none").state.stacks[2] == ()
    assert move(state, 2, "Take All").state.stacks[2] == ("O4", "O6", "G4")


def test_a_trump_winner_cannot_keep_a_card_that_is_not_in_the_trick() -> None:
    state = play(at("hands=O4,B1/O6,B2/G4,B3"), "O4", "O6", "G4")
    with pytest.raises(RulesError, match=r"the trick holds no B1.*\(the trick: O4 O6 G4\)"):
        RULES.parse_move(state, 2, "take B1 O4")
    with pytest.raises(RulesError, match="holds only 1 O4, so you cannot keep 2"):
        RULES.parse_move(state, 2, "take O4 O4")
    with pytest.raises(RulesError, match="holds no B1s, so"):
        RULES.parse_move(state, 2, "take B1 B1")


def test_a_trump_winner_must_choose_before_playing_on() -> None:
    state = play(at("hands=O4,B1/O6,B2/G4,B3"), "O4", "O6", "G4")
    with pytest.raises(RulesError, match="won the trick with a trump: first choose"):
        RULES.parse_move(state, 2, "play B3")
    with pytest.raises(RulesError, match="Player 3 is choosing which cards"):
        RULES.parse_move(state, 0, "B1")


def test_take_is_refused_when_playing_a_card() -> None:
    with pytest.raises(RulesError, match="cannot take cards now"):
        RULES.parse_move(at("hands=O4,B1/O6,B2/G4,B3"), 0, "take O4")


# -- the end of a round -----------------------------------------------------------------------

def test_the_round_ends_when_every_player_holds_one_card_and_all_choose_at_once() -> None:
    transition = move(play(at("hands=O4,B1/O6,B2/O5,B3"), "O4", "O6"), 2, "O5")
    state = transition.state
    assert "round_ending" in kinds(transition)
    assert RULES.to_move(state) == {0, 1, 2}
    assert legal(state, 1) == ["add", "discard"]


def test_a_trump_winner_of_the_last_trick_chooses_before_the_round_ends() -> None:
    state = play(at("hands=O4,B1/O6,B2/G4,B3"), "O4", "O6", "G4")
    assert RULES.to_move(state) == {2}
    state = play(state, "take all")
    assert RULES.to_move(state) == {0, 1, 2}


def test_a_seat_that_has_chosen_waits_and_its_choice_stays_secret() -> None:
    state = at("round=1 hands=B1/B2/B3 choices=?,?,? prev=0:O4,O6,O5")
    transition = move(state, 1, "discard")
    state = transition.state
    assert RULES.to_move(state) == {0, 2}
    with pytest.raises(RulesError, match="already chosen"):
        RULES.parse_move(state, 1, "add")
    public = [e for e in transition.events if e.visible_to is None]
    assert [e.kind for e in public] == ["last_card_chosen"] and public[0].data == {"seat": 1}
    private = [e for e in transition.events if e.visible_to is not None]
    assert [e.visible_to for e in private] == [frozenset({1})]
    assert RULES.view(state, 0)["my_choice"] is None
    assert RULES.view(state, 0)["chosen"] == [False, True, False]
    assert RULES.view(state, 1)["my_choice"] == "discard"


def test_playing_a_card_at_round_end_is_refused() -> None:
    state = at("hands=B1/B2/B3 choices=?,?,? prev=0:O4,O6,O5")
    with pytest.raises(RulesError, match="choose whether to add your last card B1"):
        RULES.parse_move(state, 0, "B1")


def test_choices_are_revealed_together_and_added_cards_count_in_the_stack() -> None:
    state = at("hands=B1/B2/P3 stacks=O1,O2/P1/- choices=add,discard,? prev=0:O4,O6,O5 seed=3")
    transition = move(state, 2, "add")
    revealed = event(transition, "last_cards_revealed")
    assert revealed == {"choices": ["add", "discard", "add"], "cards": ["B1", "B2", "P3"]}
    scored = event(transition, "round_scored")
    # Player 1: O1 O2 + B1 -> 2 - 1 = -1; Player 2: P1 alone -> -1; Player 3: P3 alone -> -1.
    assert [s["score"] for s in scored["seats"]] == [-1, -1, -1]
    assert scored["seats"][0]["by_colour"] == {"O": ["O1", "O2"], "B": ["B1"], "P": [], "G": []}
    assert transition.state.scores == ((-1, -1, -1),)


def test_the_winner_of_the_last_trick_leads_the_next_round_dealt_afresh() -> None:
    state = at("hands=B1/B2/P3 stacks=O4,O6,O5/-/- choices=?,?,? prev=0:O4,O6,O5 seed=3")
    for seat in (0, 1, 2):
        state = move(state, seat, "discard").state
    assert state.round == 2 and state.leader == 2 and RULES.to_move(state) == {2}
    assert Counter(c for hand in state.hands for c in hand) == Counter(deck(3))
    assert state.stacks == ((), (), ()) and state.aside == ()


def test_round_summary_shows_mimic_placing_and_arithmetic() -> None:
    state = at("hands=M/B2/P3 stacks=O1,O2,O3,B1,M/-/- choices=?,discard,discard "
               "prev=0:O4,O6,O5")
    transition = move(state, 0, "add")
    mine = event(transition, "round_scored")["seats"][0]
    assert mine["assignment"] == {"B": 2} and mine["mimics"] == 2
    assert mine["score"] == 5 and mine["arithmetic"] == "2 colours of 3 each: +5"
    assert "mimics: 2 as brown" in RULES.describe_event(transition.events[-2])


# -- the end of the game ----------------------------------------------------------------------

def test_three_players_stop_after_five_rounds_and_the_highest_total_wins() -> None:
    state = at("round=5 hands=B1/B2/P3 choices=?,?,? prev=0:O4,O6,O5 "
               "scores=-1,0,0/0,0,0/0,0,0/0,0,0")
    for seat in (0, 1, 2):
        state = move(state, seat, "discard").state
    outcome = RULES.outcome(state)
    assert outcome is not None and RULES.to_move(state) == frozenset()
    assert outcome.winners == {1, 2} and outcome.scores == (-1.0, 0.0, 0.0)
    assert outcome.reason == ("Player 2 and Player 3 share the win with the highest total, "
                              "0 points, after 5 rounds")
    with pytest.raises(RulesError, match="the game is over"):
        RULES.parse_move(state, 0, "add")


def test_four_players_stop_after_four_rounds() -> None:
    state = at("round=4 hands=B1/B2/P3/G4 stacks=O1,O2,O3/-/-/- choices=?,?,?,? "
               "prev=0:O4,O6,O5,O7 scores=0,0,0,0/0,0,0,0/0,0,0,0")
    for seat in range(4):
        state = move(state, seat, "discard").state
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.winners == {1, 2, 3}
    assert RULES.outcome(at("round=3 hands=B1/B2/P3/G4 scores=0,0,0,0/0,0,0,0/0,0,0,0")) is None


def test_a_single_highest_total_wins_alone() -> None:
    state = at("round=5 hands=-/-/- scores=5,0,0/0,0,0/0,0,0/0,0,0/0,0,-3")
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.winners == {0}
    assert outcome.reason.startswith("Player 1 wins with the highest total, 5 points")


# -- the face-up variant ----------------------------------------------------------------------

def test_face_down_stacks_are_hidden_even_from_their_owner() -> None:
    state = at("hands=O1/O2/O3 stacks=B1,B2/-/-")
    assert RULES.view(state, 0)["stacks"] is None
    assert RULES.view(state, 0)["stack_sizes"] == [2, 0, 0]


def test_face_up_variant_shows_every_stack_and_what_a_trump_winner_kept() -> None:
    state = at("hands=O4,B1/O6,B2/G4,B3 stacks=P1/-/- faceup=1")
    assert RULES.view(state, 1)["stacks"] == [["P1"], [], []]
    transition = move(play(state, "O4", "O6", "G4"), 2, "take O4")
    took = event(transition, "took")
    assert took["cards"] == ["O4"]
    assert RULES.describe_event(transition.events[0]) == "Player 3 kept O4 from the trick"


# -- autoplay ---------------------------------------------------------------------------------

def test_an_absent_player_plays_the_lowest_legal_number() -> None:
    state = at("hands=O5,B2,G2,M/O6/O7")
    assert RULES.format_move(state, RULES.default_move(state, 0)) == "B2"
    state = play(at("hands=O5/O6,O3,B1,M/O7"), "O5")
    assert RULES.format_move(state, RULES.default_move(state, 1)) == "O3"
    state = play(at("hands=O5/M,M/O7"), "O5")
    assert RULES.format_move(state, RULES.default_move(state, 1)) == "M"


def test_an_absent_trump_winner_keeps_none_and_an_absent_player_discards() -> None:
    state = play(at("hands=O4,B1/O6,B2/G4,B3"), "O4", "O6", "G4")
    assert RULES.format_move(state, RULES.default_move(state, 2)) == "take none"
    state = at("hands=B1/B2/B3 choices=?,?,? prev=0:O4,O6,O5")
    assert RULES.format_move(state, RULES.default_move(state, 0)) == "discard"


def test_a_trump_winner_of_the_last_trick_leads_the_next_round() -> None:
    state = at("hands=B1/B2/P3 choices=?,?,? prev=1:O4,G4,O5 seed=3")
    for seat in (0, 1, 2):
        state = move(state, seat, "add").state
    # Player 2 led O4, Player 3's trump G4 won; Player 3 (seat 2) leads round 2.
    assert state.round == 2 and state.leader == 2 and RULES.to_move(state) == {2}
