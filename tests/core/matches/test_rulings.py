"""An admin's rulings: each one's effect, the emails, the audit log and the public page."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.admin.audit import AuditFilter, search
from pbem.core.admin.models import AuditEntry
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication, Match, Move, Seat
from pbem.core.matches.rulings import AlreadyRuledError, make_ruling
from pbem.core.matches.sweep import sweep
from pbem.core.records.match_record import public_record
from pbem.errors import InvalidRequestError, NotFoundError
from tests.conftest import START
from tests.support.render import rendered

LATE = START + timedelta(minutes=1)
LATER = START + timedelta(minutes=5)


def timed_out_match() -> Match:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, "k", START,
                         time_control="45s").match
    sweep(LATE, timedelta(minutes=10))
    assert Adjudication.select().count() == 1
    return match


def ruling_mails() -> list[OutboxMessage]:
    return list(OutboxMessage.select().where(OutboxMessage.template.in_(["ruling", "result"]),
                                             OutboxMessage.created_at == LATER))


@pytest.mark.parametrize(("ruling", "status", "winners", "template"), [
    ("award", "finished", [1], "result"),
    ("draw", "finished", [0, 1], "result"),
    ("abort", "aborted", None, "ruling"),
])
def test_rulings_that_end_the_match(db_url: str, ruling, status, winners, template) -> None:
    match = timed_out_match()
    make_ruling(match.id, ruling, "no reply for a week", "ref@club.org", LATER)
    match = Match.get_by_id(match.id)
    assert match.status == status
    assert (match.result or {}).get("winners") == winners
    mails = ruling_mails()
    assert sorted(m.to_address for m in mails) == ["ann@example.org", "ben@example.org"]
    assert {m.template for m in mails} == {template}
    (audit,) = search(AuditFilter(action="ruling"))
    assert (audit.actor, audit.action, audit.reason, audit.match_id) == (
        "ref@club.org", f"ruling:{ruling}", "no reply for a week", match.id)
    assert not AuditEntry.select().exists(), "the change log is the ruling's one history"
    page = public_record(match, LATER)
    assert page["rulings"] == [{"ruling": ruling, "seat": 0, "late": "First",
                                "reason": "no reply for a week", "at": LATER.isoformat() + "Z"}]
    assert all(s.deadline is None for s in match.seat_rows())


def test_extend_gives_the_late_seat_a_new_deadline(db_url: str) -> None:
    match = timed_out_match()
    make_ruling(match.id, "extend", "ill", "ref@club.org", LATER, extension=timedelta(days=2))
    seat = Seat.get(Seat.match == match, Seat.seat == 0)
    assert seat.deadline == LATER + timedelta(days=2)
    (mail, _) = ruling_mails()
    assert rendered(mail)["ruling_text"].startswith("extend") and rendered(mail)["reason"] == "ill"
    assert Match.get_by_id(match.id).status == "active"


def test_autoplay_makes_one_move_for_the_late_seat(db_url: str) -> None:
    match = timed_out_match()
    make_ruling(match.id, "autoplay", "keep it going", "ref@club.org", LATER)
    (move,) = Move.select()
    assert (move.seat, move.text, move.note) == (
        0, "take 1", "played by the computer for ann (keep it going)")
    assert Match.get_by_id(match.id).to_move == [1]


def test_a_ruling_needs_a_reason_an_open_entry_and_a_known_kind(db_url: str) -> None:
    match = timed_out_match()
    with pytest.raises(InvalidRequestError, match="needs a reason"):
        make_ruling(match.id, "award", "  ", "ref", LATER)
    with pytest.raises(InvalidRequestError, match="not a ruling"):
        make_ruling(match.id, "banish", "x", "ref", LATER)
    with pytest.raises(InvalidRequestError, match="how long"):
        make_ruling(match.id, "extend", "x", "ref", LATER)
    with pytest.raises(NotFoundError, match="no match"):
        make_ruling(match.id + 1, "award", "x", "ref", LATER)
    make_ruling(match.id, "draw", "fair", "ref", LATER)
    with pytest.raises(AlreadyRuledError, match=r"Already ruled: .*\(declare the match drawn"):
        make_ruling(match.id, "award", "again", "ref", LATER)
    assert len(search(AuditFilter(action="ruling"))) == 1
