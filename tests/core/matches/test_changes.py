"""Every change to a match is a value the door applies, and each leaves exactly one row in the
match's change log (kind, seat, who, which channel, what it did, when); a refused change
leaves none. The log is what the record, the admin's page and the public page read."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from pbem.core.accounts.models import Player
from pbem.core.admin import actions
from pbem.core.matches import lifecycle, vacations
from pbem.core.matches.changes import Channel
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication, ChangeLog, Match
from pbem.core.matches.play import submit_move
from pbem.core.matches.rulings import make_ruling
from pbem.core.matches.sweep import sweep
from pbem.core.records.exports import match_record
from pbem.errors import ConflictError
from tests.conftest import START

SECRET = "k" * 40
PAIR = ["ann@example.org", "ben@example.org"]
GRACE = timedelta(minutes=10)


def _log(match_id: int) -> list[tuple[str, int | None, str, str]]:
    return [(row.kind, row.seat, row.actor, row.channel) for row in
            ChangeLog.select().where(ChangeLog.match == match_id)
            .order_by(ChangeLog.version, ChangeLog.id)]


def _nim(**options: str) -> int:
    return create_match("nim", PAIR, dict(options), SECRET, START).match.id


def test_a_match_begins_its_log_and_each_move_adds_one_row(db_url: str) -> None:
    match_id = _nim(pile="9")
    submit_move(match_id, 0, "take 1", 0, START + timedelta(minutes=1))
    submit_move(match_id, 1, "take 2", 1, START + timedelta(minutes=2), via=Channel.API)
    assert _log(match_id) == [("create", None, "server", "web"),
                              ("move", 0, "player", "web"), ("move", 1, "player", "api")]
    last = ChangeLog.select().where(ChangeLog.match == match_id).order_by(
        ChangeLog.version.desc()).get()
    # A move's row keeps what the move table does not: here only the ply it made (the move
    # row at that ply has "take 2"); the text as typed or a surprising expected ply are kept.
    assert last.payload == {"ply": 2}
    assert last.version == Match.get_by_id(match_id).version
    submit_move(match_id, 0, "TAKE 1", None, START + timedelta(minutes=3), offer_draw=True)
    typed = ChangeLog.select().where(ChangeLog.match == match_id).order_by(
        ChangeLog.version.desc()).get()
    assert typed.payload == {"ply": 3, "text": "TAKE 1", "offer_draw": True}


def test_a_refused_change_leaves_no_row(db_url: str) -> None:
    match_id = _nim(pile="9")
    submit_move(match_id, 0, "take 1", 0, START)
    before = _log(match_id)
    with pytest.raises(ConflictError):  # stale: the ply moved on
        submit_move(match_id, 1, "take 1", 0, START)
    lifecycle.resign(match_id, 1, START, via=Channel.MAIL)
    with pytest.raises(ConflictError):  # the match is over
        lifecycle.resign(match_id, 0, START)
    assert _log(match_id) == [*before, ("resign", 1, "player", "mail")]


def test_a_matchs_life_is_logged_kind_by_kind(db_url: str) -> None:
    match_id = _nim(pile="9")
    lifecycle.draw_yes(match_id, 0, START, via=Channel.API)
    lifecycle.draw_no(match_id, 1, START)
    lifecycle.abort(match_id, 1, START, via=Channel.CLI)
    kinds = _log(match_id)[1:]
    assert kinds == [("draw-offer", 0, "player", "api"), ("draw-decline", 1, "player", "web"),
                     ("abort", 1, "player", "cli")]


def test_admin_actions_and_rulings_are_logged_with_who_made_them(db_url: str) -> None:
    match_id = create_match("nim", PAIR, {}, SECRET, START, time_control="1h").match.id
    actions.pause(match_id, "ref@club.org", "a storm", START)
    actions.resume(match_id, "ref@club.org", "over", START + timedelta(hours=1))
    actions.extend_seat(match_id, 0, timedelta(hours=2), "ref@club.org", "flu", START)
    sweep(START + timedelta(hours=5), GRACE)  # the clock runs out: into the queue
    entry = Adjudication.get(Adjudication.match == match_id)
    make_ruling(match_id, "award", "no reply", "ref@club.org", START + timedelta(hours=6),
                entry_id=entry.id)
    log = _log(match_id)
    assert ("pause", None, "ref@club.org", "admin") in log
    assert ("resume", None, "ref@club.org", "admin") in log
    assert ("extension", 0, "ref@club.org", "admin") in log
    assert ("timeout", 0, "server", "worker") in log
    assert log[-1] == ("ruling", None, "ref@club.org", "admin")
    ruling = ChangeLog.select().where(ChangeLog.match == match_id,
                                      ChangeLog.kind == "ruling").get()
    assert ruling.payload["ruling"] == "award" and ruling.payload["reason"] == "no reply"
    assert "action_key" not in ruling.payload


def test_an_outage_credit_goes_through_the_door(db_url: str) -> None:
    match_id = create_match("nim", PAIR, {}, SECRET, START, time_control="1d").match.id
    version = Match.get_by_id(match_id).version
    sweep(START, GRACE)
    sweep(START + timedelta(hours=2), GRACE)
    credit = ChangeLog.get(ChangeLog.match == match_id, ChangeLog.kind == "outage-credit")
    assert credit.payload["outage"] == 7200 and credit.payload["seats"] == 1
    assert Match.get_by_id(match_id).version == version + 1  # a change like any other


def test_a_vacation_is_a_change_in_each_live_match(db_url: str) -> None:
    match_id = _nim(pile="9")
    ann = Player.get(Player.email == PAIR[0])
    vacations.declare(ann.id, date(2026, 1, 10), date(2026, 1, 12), 21, START)
    row = ChangeLog.get(ChangeLog.match == match_id, ChangeLog.kind == "vacation")
    assert row.actor == "player" and row.payload["player"] == ann.id


def test_the_record_carries_the_history_without_hidden_moves(db_url: str) -> None:
    match_id = _nim(pile="9")
    submit_move(match_id, 0, "take 1", 0, START)
    lifecycle.resign(match_id, 1, START)
    changes = match_record(Match.get_by_id(match_id))["changes"]
    assert [c["kind"] for c in changes] == ["create", "move", "resign"]
    assert "move" not in changes[1] and changes[1]["ply"] == 1  # the moves list has the text
    assert all(c["by"] in ("player", "server", "admin") for c in changes)


def test_a_moves_note_tells_how_it_was_made() -> None:
    from pbem.core.matches.models import CONDITIONAL_NOTE, Move

    assert Move(note=None).how_made() == {"autoplayed": None, "conditional": False}
    assert Move(note=CONDITIONAL_NOTE).how_made() == {"autoplayed": None, "conditional": True}
    assert Move(note="late").how_made() == {"autoplayed": "late", "conditional": False}
