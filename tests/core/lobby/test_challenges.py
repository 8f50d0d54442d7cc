"""Challenges in the core, with real threads racing on every database: a double-clicked
accept, a cancel racing the last accept, and two invitees accepting at once each have exactly
one outcome, and a match is either fully started (seats, mails) or not there at all."""

from __future__ import annotations

from functools import partial

import pytest

from pbem.core.accounts.models import Player
from pbem.core.lobby import challenges
from pbem.core.lobby.challenges import ChallengeRequest
from pbem.core.lobby.models import Challenge, Invite
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match, Seat
from pbem.errors import ConflictError, InvalidRequestError
from tests.conftest import START
from tests.support.threads import race

ROUNDS = 6
# The expiry deadlock needed both UPDATEs inside the same instant: more tries to meet it.
EXPIRY_ROUNDS = 40


def new_challenge(settings, *opponents: str, game: str = "nim") -> Challenge:
    ann = Player.for_email("ann@example.org", START)
    return challenges.create_challenge(settings, ann, ChallengeRequest(game, list(opponents)),
                                       START)


def invite_ids(challenge: Challenge) -> list[int]:
    return [i.id for i in Invite.select().where(Invite.challenge == challenge)
            .order_by(Invite.position)]


def assert_whole_match_or_none(challenge: Challenge) -> None:
    challenge = Challenge.get_by_id(challenge.id)
    matches = list(Match.select())
    if challenge.status == "started":
        assert len(matches) == 1 and challenge.match_id == matches[0].id
        assert Seat.select().where(Seat.match == matches[0]).count() == 1 + len(
            invite_ids(challenge))
        assert OutboxMessage.select().where(OutboxMessage.template == "welcome",
                                            OutboxMessage.match == matches[0]).count() == len(
            matches[0].seat_rows())
    else:
        assert matches == [] and Seat.select().count() == 0


def test_a_double_clicked_accept_starts_one_match(settings) -> None:
    for _ in range(ROUNDS):
        Match.delete().execute()
        challenge = new_challenge(settings, "ben@example.org")
        (invite,) = invite_ids(challenge)
        answers = race(*[partial(challenges.accept, settings, invite, START)] * 4)
        assert all(isinstance(a, challenges.Answer) for a in answers), answers
        assert sum(not a.already for a in answers) == 1
        assert_whole_match_or_none(challenge)
        assert Challenge.get_by_id(challenge.id).status == "started"


def test_a_cancel_racing_the_last_accept_has_one_outcome(settings) -> None:
    ann = Player.for_email("ann@example.org", START)
    outcomes = set()
    for _ in range(ROUNDS):
        Match.delete().execute()
        challenge = new_challenge(settings, "ben@example.org")
        (invite,) = invite_ids(challenge)
        accepted, cancelled = race(partial(challenges.accept, settings, invite, START),
                                   partial(challenges.cancel, challenge.id, ann, START))
        status = Challenge.get_by_id(challenge.id).status
        if status == "started":
            assert isinstance(accepted, challenges.Answer)
            assert isinstance(cancelled, ConflictError) and "started" in str(cancelled)
        else:
            assert status == "cancelled" and isinstance(cancelled, challenges.Answer)
            assert isinstance(accepted, ConflictError) and "cancelled" in str(accepted)
        outcomes.add(status)
        assert_whole_match_or_none(challenge)
    assert outcomes <= {"started", "cancelled"}


def test_invitees_accepting_together_start_the_match_once(settings) -> None:
    for _ in range(ROUNDS):
        Match.delete().execute()
        challenge = new_challenge(settings, "ben@example.org", "cy@example.org",
                                  "dee@example.org", game="bids")
        calls = [partial(challenges.accept, settings, i, START) for i in invite_ids(challenge)]
        answers = race(*calls)
        assert all(isinstance(a, challenges.Answer) and not a.already for a in answers), answers
        assert Challenge.get_by_id(challenge.id).status == "started"
        assert_whole_match_or_none(challenge)


def test_a_decline_racing_an_accept_never_leaves_a_match(settings) -> None:
    for _ in range(ROUNDS):
        Match.delete().execute()
        challenge = new_challenge(settings, "ben@example.org", "cy@example.org", game="bids")
        ben, cy = invite_ids(challenge)
        race(partial(challenges.accept, settings, ben, START),
             partial(challenges.decline, cy, START))
        assert Challenge.get_by_id(challenge.id).status == "declined"
        assert_whole_match_or_none(challenge)


def test_a_refused_challenge_changes_nothing(settings) -> None:
    ann = Player.for_email("ann@example.org", START)
    with pytest.raises(InvalidRequestError, match="not a valid email address"):
        challenges.create_challenge(settings, ann, ChallengeRequest(
            "nim", ["ben@example.org", "nonsense"]), START)
    assert Challenge.select().count() == 0 and OutboxMessage.select().count() == 0
    assert Player.select().count() == 1


def test_expiry_is_read_from_due_rows_and_mails_once(settings) -> None:
    from dataclasses import replace
    from datetime import timedelta

    settings = replace(settings, invitations_per_day=EXPIRY_ROUNDS)

    # Two workers expiring at once, repeated: on MariaDB their UPDATEs deadlocked over the
    # status index until the row was locked first.
    for round_number in range(EXPIRY_ROUNDS):
        challenge = new_challenge(settings, "ben@example.org")
        assert challenges.expire_due(START + timedelta(days=6)) == 0
        expire = partial(challenges.expire_due, START + timedelta(days=7))
        assert race(expire, expire) in ([1, 0], [0, 1])
        assert Challenge.get_by_id(challenge.id).status == "expired"
        assert OutboxMessage.select().where(OutboxMessage.template == "challenge_expired"
                                            ).count() == round_number + 1
