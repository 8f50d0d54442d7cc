"""An admin's actions on a match: through the door, kept once (in the change log, which the
audit view reads), clocks held while paused."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.admin import actions as admin_actions
from pbem.core.admin.audit import AlreadyDoneError, AuditFilter, search
from pbem.core.admin.models import AuditEntry
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import ChangeLog, Match, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.sweep import sweep
from pbem.errors import ConflictError, InvalidRequestError
from tests.conftest import START

GRACE = timedelta(hours=12)


def new_match() -> Match:
    return create_match("nim", ["ann@example.org", "ben@example.org"], {}, "k", START,
                        time_control="1h").match


def seat(match: Match, number: int) -> Seat:
    return Seat.get(Seat.match == match, Seat.seat == number)


def test_paused_clocks_do_not_run_and_resume_gives_the_time_back(db_url: str) -> None:
    match = new_match()
    before = seat(match, 0).deadline
    admin_actions.pause(match.id, "ref", "server move", START + timedelta(minutes=10), "k1")
    assert seat(match, 0).deadline is None and Match.get_by_id(match.id).paused_at
    sweep(START + timedelta(hours=5), GRACE)
    assert Match.get_by_id(match.id).is_live
    admin_actions.resume(match.id, "ref", "done", START + timedelta(hours=6), "k2")
    assert seat(match, 0).deadline == before + timedelta(hours=5, minutes=50)
    actions = [(a.actor, a.action, a.reason) for a in reversed(search(AuditFilter()))]
    assert actions == [("ref", "pause", "server move"), ("ref", "resume", "done")]
    assert not AuditEntry.select().exists(), "a match change writes no second history"


def test_a_move_while_paused_is_charged_only_up_to_the_pause(db_url: str) -> None:
    match = new_match()
    admin_actions.pause(match.id, "ref", "why", START + timedelta(minutes=20))
    submit_move(match.id, 0, "take 1", 0, START + timedelta(hours=3))
    assert seat(match, 1).deadline is None and seat(match, 1).owes_since is not None
    admin_actions.resume(match.id, "ref", "why", START + timedelta(hours=4))
    assert seat(match, 1).deadline == START + timedelta(hours=5)


def test_the_same_form_posted_twice_acts_and_is_logged_once(db_url: str) -> None:
    match = new_match()
    admin_actions.extend_seat(match.id, 0, timedelta(days=1), "ref", "flu", START, action_key="x")
    deadline = seat(match, 0).deadline
    with pytest.raises(AlreadyDoneError):
        admin_actions.extend_seat(match.id, 0, timedelta(days=1), "ref", "flu", START,
                                  action_key="x")
    assert seat(match, 0).deadline == deadline == START + timedelta(days=1, hours=1)
    (logged,) = ChangeLog.select().where(ChangeLog.kind == "extension")
    assert logged.action_key == "x" and "action_key" not in logged.payload
    assert [row.action for row in search(AuditFilter(action="extend"))] == ["extend-seat"]


def test_extensions_are_bounded_and_abort_tells_everyone(db_url: str) -> None:
    match = new_match()
    with pytest.raises(InvalidRequestError, match="at most 30 days"):
        admin_actions.extend_seat(match.id, 0, timedelta(days=31), "ref", "x", START)
    with pytest.raises(InvalidRequestError, match="reason"):
        admin_actions.abort(match.id, "ref", " ", START)
    admin_actions.abort(match.id, "ref", "cheating", START)
    assert Match.get_by_id(match.id).status == "aborted"
    assert OutboxMessage.select().where(OutboxMessage.template == "aborted").count() == 2
    with pytest.raises(ConflictError):
        admin_actions.pause(match.id, "ref", "x", START)


def test_one_form_posted_eight_times_at_once_acts_once(db_url: str) -> None:
    """Real threads, each with its own connection: the door and the unique key let one
    through; the others are told it was already done."""
    from pbem.core.accounts.models import Player
    from pbem.core.admin import players as player_admin
    from tests.support.threads import race

    for round_ in range(4):
        match = new_match()
        results = race(*(lambda match=match, round_=round_: admin_actions.extend_seat(
            match.id, 0, timedelta(hours=1), "ref", "flu", START,
            action_key=f"extend-{round_}") for _ in range(8)))
        assert sum(r is None for r in results) == 1, results
        assert all(isinstance(r, AlreadyDoneError) for r in results if r is not None)
        assert seat(match, 0).deadline == START + timedelta(hours=2)
        ann = Player.get(Player.email == "ann@example.org")
        results = race(*(lambda round_=round_, ann=ann: player_admin.revoke_sessions(
            ann.id, "ref", START, action_key=f"revoke-{round_}") for _ in range(8)))
        assert sum(r == 0 for r in results) == 1, results
    assert ChangeLog.select().where(ChangeLog.kind == "extension").count() == 4
    assert AuditEntry.select().where(AuditEntry.action == "player-revoke-sessions"
                                     ).count() == 4
