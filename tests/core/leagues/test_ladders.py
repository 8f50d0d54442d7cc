"""Ladders on every database: joining at the bottom, challenges in range and under the
incoming limit, the winner taking the place, an unaccepted challenge won by the challenger,
a timeout putting a player on hold, and two challenges for the last open slot at once."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.accounts.models import Player
from pbem.core.leagues import ladders
from pbem.core.leagues.models import Ladder, LadderChallenge, LadderMember
from pbem.core.leagues.rebuild import rebuild
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import lifecycle
from pbem.core.matches.models import Match
from pbem.errors import ConflictError, UnprocessableError
from tests.conftest import START
from tests.support.threads import race

KEY = "k" * 43


def _ladder(size: int, **body: object) -> tuple[Ladder, list[Player]]:
    players = [Player.for_email(f"l{n}@example.org", START) for n in range(size)]
    ladder = ladders.create_ladder(players[0], {"name": "The ladder", "game": "nim",
                                                "clock": "2d", "on_timeout": "forfeit",
                                                **body}, START)
    for player in players:
        ladders.join(ladder.id, player, START)
    return ladder, players


def _places(ladder: Ladder) -> list[int]:
    return ladders.places(ladder).places


def test_a_challenger_who_wins_takes_the_place_and_the_between_move_down(settings) -> None:
    ladder, players = _ladder(7)
    ids = [p.id for p in players]
    assert _places(ladder) == ids
    with pytest.raises(UnprocessableError):
        ladders.challenge(ladder.id, players[6], {"place": 1}, START)  # six up: out of range
    with pytest.raises(UnprocessableError):
        ladders.challenge(ladder.id, players[1], {"place": 4}, START)  # only upwards
    found = ladders.challenge(ladder.id, players[5], {"place": 2}, START)
    match_id = ladders.accept(found.id, players[1], KEY, START)
    assert Match.get_by_id(match_id).competition == "ladder"
    lifecycle.resign(match_id, 1, START)  # the defender (second seat) resigns
    assert _places(ladder) == [ids[0], ids[5], ids[1], ids[2], ids[3], ids[4], ids[6]]
    assert LadderMember.get(LadderMember.player == ids[5]).place == 2
    assert rebuild().changed == 0


def test_an_unaccepted_challenge_is_won_by_the_challenger(settings, worker, clock) -> None:
    ladder, players = _ladder(3, accept_days=5)
    ladders.challenge(ladder.id, players[2], {"player": players[0].public_name}, START)
    clock.advance(days=4)
    worker.run_leagues()
    assert _places(ladder)[0] == players[0].id
    clock.advance(days=1)
    assert worker.run_leagues().expired == 1
    assert _places(ladder) == [players[2].id, players[0].id, players[1].id]


def test_a_first_timeout_holds_the_place_and_joining_again_comes_back(settings, worker,
                                                                      clock) -> None:
    ladder, players = _ladder(3)
    found = ladders.challenge(ladder.id, players[2], {"place": 1}, START)
    ladders.accept(found.id, players[0], KEY, START)  # the challenger moves first, and not
    clock.advance(days=3)
    worker.sweep_deadlines()
    state = ladders.places(ladder)
    assert state.on_hold == {players[2].id}
    assert state.places == [p.id for p in players]  # held, place kept
    held = OutboxMessage.get(OutboxMessage.template == "ladder_on_hold")
    assert held.to_address == players[2].email and held.params["place"] == 3
    assert ladders.join(ladder.id, players[2], clock()) == 3
    assert ladders.places(ladder).on_hold == set()


def test_the_incoming_limit_and_one_open_challenge_per_pair(settings) -> None:
    ladder, players = _ladder(5, incoming_limit=2)
    ladders.challenge(ladder.id, players[1], {"place": 1}, START)
    with pytest.raises(ConflictError):
        ladders.challenge(ladder.id, players[1], {"place": 1}, START)
    ladders.challenge(ladder.id, players[2], {"place": 1}, START)
    with pytest.raises(ConflictError):
        ladders.challenge(ladder.id, players[3], {"place": 1}, START)


@pytest.mark.parametrize("attempt", range(5))
def test_two_challenges_for_the_last_slot_at_once_one_wins(settings, attempt: int) -> None:
    # Without the ladder's row lock both read "no open challenge" and both are written.
    ladder, players = _ladder(4, incoming_limit=1)
    results = race(lambda: ladders.challenge(ladder.id, players[2], {"place": 1}, START),
                   lambda: ladders.challenge(ladder.id, players[3], {"place": 1}, START))
    made = [r for r in results if isinstance(r, LadderChallenge)]
    refused = [r for r in results if isinstance(r, ConflictError)]
    assert len(made) == 1 and len(refused) == 1, results
    assert LadderChallenge.select().where(LadderChallenge.ladder == ladder.id).count() == 1


def test_leaving_closes_the_gap(settings) -> None:
    ladder, players = _ladder(4)
    ladders.leave(ladder.id, players[1], START + timedelta(hours=1))
    assert _places(ladder) == [players[0].id, players[2].id, players[3].id]
