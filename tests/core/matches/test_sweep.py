"""Automatic policy actions show in the audit view with actor "pbem", read from the change log
(they write no audit entry of their own)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.admin.audit import AuditFilter, search
from pbem.core.admin.models import AuditEntry
from pbem.core.matches.creation import create_match
from pbem.core.matches.sweep import sweep
from tests.conftest import START

SECRET = "k" * 40
GRACE = timedelta(minutes=10)


@pytest.mark.parametrize(("policy", "action"), [
    ("autoplay", "autoplay"), ("forfeit", "forfeit"), ("adjudicate", "queued"),
    ("claim", "out-of-time")])
def test_a_timeout_writes_one_audit_entry_by_pbem(db_url: str, policy: str, action: str) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {}, SECRET, START,
                         time_control="45s", on_timeout=policy).match
    sweep(START + timedelta(seconds=30), GRACE)
    sweep(START + timedelta(seconds=50), GRACE)
    sweep(START + timedelta(seconds=55), GRACE)
    rows = search(AuditFilter(match_id=match.id))
    assert [(r.actor, r.action) for r in rows] == [("pbem", action)]
    assert rows[0].detail["seat"] == 0 and rows[0].reason
    assert not AuditEntry.select().exists()


def test_an_outage_extension_is_logged(db_url: str) -> None:
    create_match("nim", ["ann@example.org", "ben@example.org"], {}, SECRET, START,
                 time_control="1d")
    sweep(START, GRACE)
    sweep(START + timedelta(hours=2), GRACE)
    (row,) = search(AuditFilter(action="outage-extension"))
    assert row.actor == "pbem" and row.detail["seats"] == 1
    assert row.detail["outage"] == 7200 and "silent for 2:00:00" in row.reason
