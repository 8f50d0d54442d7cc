"""A match whose first deal waits for salts (option `salted`, committed deals): every seat adds
its own salt or takes the one offered to it, publicly; the last salt deals round 1."""

from __future__ import annotations

import pytest

from pbem.games import get_rules
from pbem.games.base import IllegalMoveError, InvalidMoveError
from pbem.games.dealing import DealStream, default_salt

RULES = get_rules("mimic-taking")
SEED = "5e" * 32


def _salted(players: int = 3):  # type: ignore[no-untyped-def]
    return RULES.new_committed_game(players, {"salted": True}, SEED)


def test_nothing_is_dealt_until_every_seat_has_a_salt() -> None:
    state = _salted()
    assert RULES.to_move(state) == {0, 1, 2} and state.hands == ((), (), ())
    assert [RULES.format_move(state, m) for m in RULES.legal_moves(state, 1)] == ["salt"]
    view = RULES.view(state, 1)
    assert view["phase"] == "salt" and view["my_offered_salt"] == default_salt(SEED, 1)
    assert RULES.view(state, None)["my_offered_salt"] is None  # nobody else sees an offer
    for seat, text in ((0, "salt  mine, all mine "), (2, "salt")):
        move = RULES.parse_move(state, seat, text)
        assert RULES.move_visibility(state, seat, move) is None  # published as set
        state = RULES.apply_move(state, seat, move).state
        assert state.hands == ((), (), ())
    assert RULES.view(state, 1)["salts"] == ["mine, all mine", None, default_salt(SEED, 2)]
    assert RULES.view(state, 0)["my_offered_salt"] is None, "added: nothing more to offer"
    with pytest.raises(IllegalMoveError, match="already"):
        RULES.parse_move(state, 0, "salt again")
    with pytest.raises(IllegalMoveError, match="nothing is dealt yet"):
        RULES.parse_move(state, 1, "O1")
    state = RULES.apply_move(state, 1, RULES.parse_move(state, 1, "salt")).state
    salts = ("mine, all mine", default_salt(SEED, 1), default_salt(SEED, 2))
    assert state.salts == salts and all(len(hand) == 12 for hand in state.hands)
    stream = DealStream(SEED, salts, "mimic-taking round 1")
    deck = [f"{c}{n}" for c in "OBPG" for n in range(1, 9)] + ["M"] * 4
    stream.shuffle(deck)
    assert sorted(state.hands[0]) == sorted(deck[:12])
    assert state.leader == stream.below(3)
    with pytest.raises(IllegalMoveError, match="only be added before the first deal"):
        RULES.parse_move(state, state.leader, "salt late")
    assert RULES.from_position(RULES.position(state)) == state


def test_a_seats_own_salt_changes_its_deal() -> None:
    hands = set()
    for text in ("salt a", "salt b"):
        state = _salted(4)
        for seat in range(4):
            state = RULES.apply_move(state, seat, RULES.parse_move(
                state, seat, text if seat == 0 else "salt")).state
        hands.add(state.hands[0])
    assert len(hands) == 2


@pytest.mark.parametrize("text", ["salt " + "x" * 65, "salt a\x07b"])
def test_a_salt_is_one_short_line(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        RULES.parse_move(_salted(), 0, text)


def test_an_absent_seat_takes_its_offered_salt() -> None:
    state = _salted()
    assert RULES.format_move(state, RULES.default_move(state, 2)) == "salt"
