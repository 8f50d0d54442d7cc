"""Mixed tables: a Mimic Taking challenge or seek fills some seats with the computer; the
match starts with those seats the computer's (no clock, no mail, unrated) and the computer
moves in them; bad lists of levels are refused and make nothing."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from pbem.bots import choose_move
from pbem.core.accounts.models import Player
from pbem.core.computer.jobs import run_due
from pbem.core.lobby import challenges, seeks
from pbem.core.lobby.challenges import ChallengeRequest
from pbem.core.lobby.models import Challenge, Invite, Seek
from pbem.core.lobby.policy import LobbyPolicy
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match, Seat
from pbem.errors import InvalidRequestError
from pbem.games.base import RulesError
from tests.conftest import START

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"


@pytest.fixture
def policy(settings) -> LobbyPolicy:
    return settings


def computers_of(match: Match) -> dict[int, int]:
    return {s.seat: s.computer_level for s in Seat.select().where(Seat.match == match)
            if s.computer_level is not None}


def test_a_challenge_with_two_computer_seats(policy, db_url) -> None:
    ann = Player.for_email(ANN, START)
    challenge = challenges.create_challenge(policy, ann, ChallengeRequest(
        game="mimic-taking", opponents=[BEN], computers=[2, 3]), START)
    assert challenges.describe(challenge)["computers"] == [2, 3]
    invite = Invite.get(Invite.challenge == challenge)
    answer = challenges.accept(policy, invite.id, START)
    match = Match.get_by_id(answer.challenge.match_id)
    assert match.has_computer and sorted(computers_of(match).values()) == [2, 3]
    names = sorted(s.player.public_name for s in match.seat_rows())
    assert names == ["Computer (level 2)", "Computer (level 3)", "ann", "ben"]
    assert not OutboxMessage.select().where(OutboxMessage.match == match,
                                            OutboxMessage.to_address.contains("computer")
                                            ).exists()
    # The computer moves in its seats whenever it owes a move, until a person owes one.
    for _ in range(20):
        if not run_due(lambda: START, choose_move, time.monotonic, timedelta(seconds=60)).moved:
            break
    match = Match.get_by_id(match.id)
    assert set(match.to_move) - set(computers_of(match)), "a person owes the next move"


def test_as_listed_seats_put_the_computers_after_the_people(policy, db_url) -> None:
    ann = Player.for_email(ANN, START)
    challenge = challenges.create_challenge(policy, ann, ChallengeRequest(
        game="mimic-taking", opponents=[BEN], seat_order="as-listed", computers=[1]), START)
    challenges.accept(policy, Invite.get(Invite.challenge == challenge).id, START)
    match = Match.get_by_id(Challenge.get_by_id(challenge.id).match_id)
    assert [s.player.public_name for s in match.seat_rows()] == [
        "ann", "ben", "Computer (level 1)"]


def test_a_seek_with_a_computer_seat_starts_when_the_people_are_there(policy, db_url) -> None:
    ann, ben = Player.for_email(ANN, START), Player.for_email(BEN, START)
    seek = seeks.create_seek(policy, ann, "mimic-taking", {}, "3d", 3, START, computers=[4])
    assert seeks.describe(seek)["computers"] == [4]
    started = seeks.join(policy, seek.id, ben, START)
    match = Match.get_by_id(started.match_id)
    assert list(computers_of(match).values()) == [4] and len(match.seat_rows()) == 3


@pytest.mark.parametrize(("computers", "says"), [
    ([0], "level"), ([6], "level"), (["hard"], "level"), ([1, 1, 1, 1], "at most"),
    ({"level": 2}, "list"),
])
def test_bad_computer_seats_are_refused(policy, db_url, computers, says) -> None:
    ann = Player.for_email(ANN, START)
    with pytest.raises(InvalidRequestError, match=says):
        challenges.create_challenge(policy, ann, ChallengeRequest(
            game="mimic-taking", opponents=[BEN], computers=computers), START)
    assert Challenge.select().count() == 0


def test_too_many_seats_for_the_game_are_refused(policy, db_url) -> None:
    ann = Player.for_email(ANN, START)
    with pytest.raises(RulesError, match="3 or 4"):
        challenges.create_challenge(policy, ann, ChallengeRequest(
            game="mimic-taking", opponents=[BEN, CY], computers=[1, 2]), START)
    with pytest.raises(RulesError, match="2"):
        challenges.create_challenge(policy, ann, ChallengeRequest(
            game="mimic", opponents=[BEN], computers=[1]), START)
    with pytest.raises(InvalidRequestError, match="two people"):
        seeks.create_seek(policy, ann, "mimic-taking", {}, "3d", 3, START, computers=[1, 2])
    assert Challenge.select().count() == 0 and Seek.select().count() == 0


def test_a_rematch_of_a_match_against_the_computer_is_refused_clearly(policy, db_url) -> None:
    from pbem.core.computer.opponents import ComputerRequest, play_computer
    from pbem.core.matches.lifecycle import resign
    from pbem.errors import ConflictError

    ann = Player.for_email(ANN, START)
    match = play_computer(ann, ComputerRequest("mimic", 1, seat=0), "k", START).match
    resign(match.id, 0, START)
    with pytest.raises(ConflictError, match="Play the computer"):
        challenges.rematch(policy, match.id, ann, START)
    assert Challenge.select().count() == 0


def test_the_computers_address_is_not_a_persons_seat(db_url) -> None:
    from pbem.core.matches.creation import create_match

    with pytest.raises(InvalidRequestError, match="computer's own"):
        create_match("mimic", [ANN, "computer-2@computer.invalid"], {}, "k", START)
    assert Match.select().count() == 0
