"""The pure half of takebacks (games/takebacks.py) over random Mimic Taking matches at 3 and 4
seats: for every move, a takeback is allowed exactly when the mover's view after it is the
same in every re-deal (the game's own events say which moves revealed something: a round's
end shows the stacks and deals new hands), and after an allowed takeback every seat's view,
replayed from the start without that move, is the view before it."""

from __future__ import annotations

import random

import pytest

from pbem.games import get_rules
from pbem.games.takebacks import sees_nothing_new

RULES = get_rules("mimic-taking")
# What shows a seat something hidden: the round's stacks and last cards, and a new deal.
REVEALING = {"last_cards_revealed", "round_scored", "round_started", "game_over"}


def _start(players: int, committed: bool, number: int):  # type: ignore[no-untyped-def]
    if committed:
        return RULES.new_committed_game(players, {"salted": number % 2 == 0},
                                        f"{number:064x}")
    return RULES.new_game(players, {}, number)


@pytest.mark.parametrize(("players", "committed", "number"),
                         [(3, False, 1), (4, False, 2), (3, True, 3), (4, True, 4)])
def test_a_takeback_is_allowed_exactly_when_nothing_new_was_seen(
        players: int, committed: bool, number: int) -> None:
    chooser = random.Random(number)
    start = state = _start(players, committed, number)
    played: list[tuple[int, object]] = []
    allowed = refused = 0
    while RULES.to_move(state):
        seat = min(RULES.to_move(state))
        move = chooser.choice(list(RULES.legal_moves(state, seat)))
        transition = RULES.apply_move(state, seat, move)
        revealed = any(event.kind in REVEALING for event in transition.events)
        verdict = sees_nothing_new(RULES, state, seat, move)
        assert verdict is not revealed, (len(played), RULES.format_move(state, move),
                                          [e.kind for e in transition.events])
        if verdict:
            allowed += 1
            replayed = start
            for mover, earlier in played:
                replayed = RULES.apply_move(replayed, mover, earlier).state
            for viewer in [None, *range(players)]:
                assert RULES.view(replayed, viewer) == RULES.view(state, viewer)
        else:
            refused += 1
        played.append((seat, move))
        state = transition.state
    assert allowed > 100 and refused >= RULES.view(state, None)["rounds"]


def test_a_game_without_hidden_information_always_allows_it() -> None:
    rules = get_rules("mimic")
    state = rules.new_game(2, {}, 1)
    seat = min(rules.to_move(state))
    assert sees_nothing_new(rules, state, seat, rules.legal_moves(state, seat)[0])
