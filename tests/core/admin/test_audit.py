"""One history: the audit view reads match changes from the change log, beside the audit
entries of what is not a match change; one-time form keys live on the change log."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.accounts.models import Player
from pbem.core.admin import actions as admin_actions
from pbem.core.admin import players as player_admin
from pbem.core.admin.audit import AlreadyDoneError, AuditFilter, actions, search, to_csv
from pbem.core.admin.models import AuditEntry
from pbem.core.matches import changes
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import ChangeLog, Match, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import make_ruling
from tests.conftest import START
from tests.core.matches.test_rulings import LATE, LATER, timed_out_match


def test_a_ruling_shows_in_the_audit_view_from_the_change_log_alone(db_url: str) -> None:
    match = timed_out_match()
    make_ruling(match.id, "extend", "ill", "ref@club.org", LATER, extension=timedelta(days=2),
                action_key="form-1")
    assert not AuditEntry.select().exists(), "no second history beside the change log"
    ruled = ChangeLog.get(ChangeLog.kind == "ruling")
    assert ruled.action_key == "form-1"
    newest, queued = search(AuditFilter(match_id=match.id))
    assert (newest.id, newest.actor, newest.action, newest.reason, newest.at) == (
        f"change-{ruled.id}", "ref@club.org", "ruling:extend", "ill", LATER)
    assert newest.detail["extension"] == 2 * 24 * 3600 and newest.detail["late"] == 0
    assert (queued.actor, queued.action, queued.reason) == (
        "pbem", "queued", "sent to the admin queue (timeout)")
    assert {"ruling:extend", "queued", "pause"} <= set(actions())


def test_a_player_s_own_changes_are_history_not_audit(db_url: str) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, "k", START).match
    submit_move(match.id, 0, "take 1", 0, START)
    admin_actions.abort(match.id, "ref@club.org", "a test match", LATE)
    rows = search(AuditFilter())
    assert [(r.actor, r.action, r.reason) for r in rows] == [
        ("ref@club.org", "abort", "a test match")]
    assert search(AuditFilter(actor="pbem")) == []


def test_entries_that_are_no_match_change_stay_and_merge_newest_first(db_url: str) -> None:
    match = timed_out_match()
    ann = Player.get(Player.email == "ann@example.org")
    player_admin.revoke_sessions(ann.id, "ref@club.org", START + timedelta(minutes=3))
    admin_actions.pause(match.id, "ref@club.org", "server move", LATER)
    rows = search(AuditFilter(actor="ref@club.org"))
    assert [r.action for r in rows] == ["pause", "player-revoke-sessions"]
    assert [r.action for r in search(AuditFilter(action="player"))] == ["player-revoke-sessions"]
    assert [r.action for r in search(AuditFilter(), limit=2)] == [
        "pause", "player-revoke-sessions"]
    lines = to_csv(search(AuditFilter(since=LATE))).splitlines()
    assert lines[0].startswith("id,at_utc,actor,action") and len(lines) == 4
    assert lines[1].startswith("change-") and ",ref@club.org,pause," in lines[1]


def test_a_repeated_key_makes_its_change_once(db_url: str) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, "k", START,
                         time_control="1h").match
    admin_actions.extend_seat(match.id, 0, timedelta(hours=1), "ref", "flu", START,
                              action_key="once")
    with pytest.raises(AlreadyDoneError, match="already done"):
        admin_actions.extend_seat(match.id, 0, timedelta(hours=1), "ref", "flu", START,
                                  action_key="once")
    seat = Seat.get(Seat.match == match, Seat.seat == 0)
    assert seat.allowance_seconds == 2 * 3600
    assert ChangeLog.select().where(ChangeLog.action_key == "once").count() == 1


def test_the_key_s_unique_index_settles_posts_that_passed_the_check(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two posts that both found the key unused (a race the door's lock would queue): the
    second one's log row breaks the key's unique index, and its whole change rolls back."""
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, "k", START,
                         time_control="1h").match
    monkeypatch.setattr(changes, "_check_fresh", lambda match_id, key: None)
    admin_actions.extend_seat(match.id, 0, timedelta(hours=1), "ref", "flu", START,
                              action_key="raced")
    version = Match.get_by_id(match.id).version
    with pytest.raises(AlreadyDoneError):
        admin_actions.extend_seat(match.id, 0, timedelta(hours=1), "ref", "flu", START,
                                  action_key="raced")
    assert Seat.get(Seat.match == match, Seat.seat == 0).allowance_seconds == 2 * 3600
    assert Match.get_by_id(match.id).version == version


def test_a_repeated_key_acts_once_on_what_is_not_a_match(db_url: str) -> None:
    ann = Player.for_email("ann@example.org", START)
    player_admin.set_blocked(ann.id, True, "ref", "spam", START, action_key="block-1")
    with pytest.raises(AlreadyDoneError):
        player_admin.set_blocked(ann.id, False, "ref", "undo", START, action_key="block-1")
    assert Player.get_by_id(ann.id).challenges_blocked_at is not None
    assert AuditEntry.select().where(AuditEntry.action_key == "block-1").count() == 1


def test_a_match_change_audited_twice_by_an_older_release_shows_once(db_url: str) -> None:
    # Releases before the change log was the one history wrote an audit entry beside the
    # change's row (same match, same moment): an upgraded install shows that change once.
    match = timed_out_match()
    admin_actions.pause(match.id, "ref@club.org", "server move", LATER)
    AuditEntry.create(at=LATER, actor="ref@club.org", action="pause", match=match.id,
                      reason="server move", detail={})
    # An older entry with no change-log row beside it still shows: an outage's one entry.
    AuditEntry.create(at=LATE, actor="pbem", action="outage-extension", match=None,
                      reason="the worker was silent", detail={})
    shown = [(r.action, str(r.id).startswith("change-")) for r in search(AuditFilter())]
    assert shown.count(("pause", True)) == 1 and ("pause", False) not in shown
    assert ("outage-extension", False) in shown
