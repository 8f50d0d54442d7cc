"""`pbem leagues rebuild`: derive every league's standings and every ladder's places again
from history (the matches, the games' timeouts, the ladders' events) and write the copies the
pages read. The derivation is the one the settler runs, so on a consistent database nothing
changes; `changed` counts what did (after a restore, or a hand edit)."""

from __future__ import annotations

from dataclasses import dataclass

from pbem.core.db.connection import write_transaction
from pbem.core.leagues.ladders import refresh_places
from pbem.core.leagues.models import Ladder, LeagueDivision
from pbem.core.leagues.results import refresh_division


@dataclass
class RebuildReport:
    divisions: int = 0
    ladders: int = 0
    changed: int = 0


def rebuild() -> RebuildReport:
    report = RebuildReport()
    for division in LeagueDivision.select().order_by(LeagueDivision.id):
        with write_transaction():
            before = division.standings
            if refresh_division(division) != before:
                report.changed += 1
        report.divisions += 1
    for ladder in Ladder.select().order_by(Ladder.id):
        with write_transaction():
            if refresh_places(ladder):
                report.changed += 1
        report.ladders += 1
    return report
