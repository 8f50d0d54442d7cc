"""The position text (documented in pbem/games/mimic_taking/state.py) and the JSON form."""

from __future__ import annotations

import json

import pytest

from pbem.games.base import RulesError
from tests.games.mimic_taking.helpers import RULES, at

DOCUMENTED = ("round=2 leader=1 hands=O1,O4,M/B2,G8/P3,P5 stacks=-/O6,O7,B6/- aside=G5 "
              "trick=B3 keeper=- prev=0:P2,P7,P8 choices=- scores=-3,10,0 scored=O1,O2/-/M "
              "faceup=0 seed=7")


def test_the_documented_position_round_trips_exactly() -> None:
    state = at(DOCUMENTED)
    assert RULES.position(state) == DOCUMENTED
    assert state.round == 2 and state.leader == 1 and state.trick == ("B3",)
    assert RULES.to_move(state) == {2}


def test_missing_fields_take_start_of_round_defaults() -> None:
    state = at("hands=O1/O2/O3")
    assert RULES.position(state) == (
        "round=1 leader=0 hands=O1/O2/O3 stacks=-/-/- aside=- trick=- keeper=- prev=- "
        "choices=- scores=- scored=- faceup=0 seed=0")


def test_hands_are_written_in_hand_order() -> None:
    assert at("hands=M,G1,O7,B2/-/-").hands[0] == ("O7", "B2", "G1", "M")


def test_a_keep_decision_and_a_last_card_decision_round_trip() -> None:
    for text in ["round=1 leader=0 hands=B1,P1/B2,P2/B3,P3 stacks=-/-/- aside=- trick=O4,O6,G4 "
                 "keeper=2 prev=- choices=- scores=- scored=- faceup=1 seed=3",
                 "round=3 leader=2 hands=B1/B2/B3/G1 stacks=O1/-/M/- aside=O2 trick=- keeper=- "
                 "prev=1:O4,O6,O5,O3 choices=add,?,discard,? scores=1,2,3,4/0,0,0,0 "
                 "scored=M/-/-/O3 faceup=0 seed=99"]:
        assert RULES.position(at(text)) == text
        state = at(text)
        assert RULES.load(json.loads(json.dumps(RULES.dump(state)))) == state


@pytest.mark.parametrize(("text", "message"), [
    ("round=1", "needs hands="),
    ("hands=O1/O2", "3 or 4 hands"),
    ("hands=O1/O2/X5", "'X5' is not a card"),
    ("hands=O9/O2/O3", "'O9' is not a card in a 3-player game"),
    ("hands=O1/O1/O3", "holds O1 more than once"),
    ("hands=M,M,M/M,M/-", "more than 4 mimics"),
    ("hands=O1/O2/O3 leader=5", "seat 5 does not exist"),
    ("hands=O1/O2/O3 round=6", "round must be 1 to 5"),
    ("hands=O1/O2/O3 colour=red", "bad position field 'colour=red'"),
    ("hands=O1/O2/O3 choices=yes", "choices= lists add, discard or ?"),
    ("hands=O1/O2/O3 scores=1,2", "needs 3 scores per round"),
    ("hands=O1/O2/O3 prev=O4", "leader:cards"),
    ("hands=O1/O2/O3 trick=O4,O5,O6", "keeper= chooses"),
])
def test_bad_position_text_is_refused_clearly(text: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        at(text)
