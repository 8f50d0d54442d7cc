"""The door hands every change on to its settlers: in their declared order, inside the change's
transaction, never silently without them; and each change kind says who it timed out."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

import pbem
from pbem.core import settlers
from pbem.core.db.connection import database
from pbem.core.mailout import settler as mail_settler
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import changes
from pbem.core.matches.changes import Change, Settled, SettlersMissing
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import ClaimVictory, Resign
from pbem.core.matches.models import ChangeLog, Match, Move
from pbem.core.matches.play import MakeMove, submit_move
from pbem.core.matches.rulings import Forfeit, Ruling
from pbem.core.matches.sweep import Timeout
from pbem.core.tournaments.service import TournamentAdjudication
from tests.conftest import START

ROOT = Path(pbem.__file__).resolve().parent
PAIR = ["ann@example.org", "ben@example.org"]


@pytest.fixture
def reinstalled() -> Iterator[None]:
    """A test that installs its own list gets the real one back afterwards."""
    yield
    settlers.install()


def test_the_settlers_are_named_in_one_list_in_their_order() -> None:
    assert [f"{s.__module__}.{s.__qualname__}" for s in settlers.SETTLERS] == [
        "pbem.core.records.standings.settle_standings",
        "pbem.core.ratings.settle.settle_ended",
        "pbem.core.leagues.results.settle_leagues",
        "pbem.core.matches.creation.thin_when_ended",
        "pbem.core.mailout.settler.settle_mail",
        "pbem.core.matches.computer_turns.settle_computer_turns",
    ]


def test_installing_again_changes_nothing(reinstalled: None) -> None:
    settlers.install()
    settlers.install()
    assert changes.installed_settlers() == settlers.SETTLERS
    with pytest.raises(ValueError, match="at least one settler"):
        changes.install_settlers([], mail_settler.turn_mail_failed)


def test_settlers_run_in_order_inside_the_change_s_transaction(db_url: str,
                                                             reinstalled: None) -> None:
    seen: list[tuple[str, str, bool, bool]] = []

    def first(settled: Settled) -> None:
        seen.append(("first", settled.change.kind, database.in_transaction(), settled.ended))

    def last(settled: Settled) -> None:
        # The settlers before it have run: the move's mail is queued already.
        assert OutboxMessage.select().where(OutboxMessage.ply == settled.match.ply).exists()
        seen.append(("last", settled.change.kind, database.in_transaction(), settled.ended))

    changes.install_settlers([first, *settlers.SETTLERS, last], mail_settler.turn_mail_failed)
    match = create_match("nim", PAIR, {"pile": "2"}, "k", START).match
    submit_move(match.id, 0, "take 2", 0, START)  # takes the last counter: the match ends
    assert seen == [("first", "create", True, False), ("last", "create", True, False),
                    ("first", "move", True, True), ("last", "move", True, True)]


def test_a_settler_that_raises_rolls_the_whole_change_back(db_url: str,
                                                         reinstalled: None) -> None:
    match = create_match("nim", PAIR, {}, "k", START).match
    mails = OutboxMessage.select().count()

    def broken(settled: Settled) -> None:
        raise RuntimeError("the ratings are down")

    changes.install_settlers([*settlers.SETTLERS, broken], mail_settler.turn_mail_failed)
    with pytest.raises(RuntimeError, match="ratings are down"):
        submit_move(match.id, 0, "take 1", 0, START + timedelta(minutes=1))
    assert Match.get_by_id(match.id).ply == 0
    assert not Move.select().exists()
    assert [row.kind for row in ChangeLog.select()] == ["create"]
    assert OutboxMessage.select().count() == mails


def test_the_door_refuses_to_work_without_settlers(db_url: str, reinstalled: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    match = create_match("nim", PAIR, {}, "k", START).match
    monkeypatch.setattr(changes, "_installed", None)
    with pytest.raises(SettlersMissing, match=r"settlers\.install"):
        submit_move(match.id, 0, "take 1", 0, START)
    with pytest.raises(SettlersMissing):
        create_match("nim", PAIR, {}, "k", START)
    assert Match.select().count() == 1 and Match.get_by_id(match.id).ply == 0


def test_only_the_endings_end_a_match() -> None:
    """Every end of a match writes its status through the endings in `lifecycle` (lila's
    Finisher): no other module names a finished or aborted status in a write of the match."""
    writers = []
    for path in (ROOT / "core").rglob("*.py"):
        if "migrations" in path.parts or path == ROOT / "core/matches/lifecycle.py":
            continue
        text = path.read_text(encoding="utf-8")
        if "status=MatchStatus.FINISHED" in text or "status=MatchStatus.ABORTED" in text:
            writers.append(str(path.relative_to(ROOT)))
    # An imported record is born finished: it is no change to a live match.
    assert writers == ["core/records/imports.py"]


@pytest.mark.parametrize(("change", "logged", "timed_out"), [
    (Timeout(seat=1), {"policy": "forfeit", "cause": "timeout"}, {1}),
    (Timeout(seat=1), {"policy": "autoplay", "cause": "timeout"}, set()),
    (Timeout(seat=1), {"settled": "held", "cause": "undelivered"}, set()),
    (Forfeit(seat=0), {}, {0}),
    (ClaimVictory(seat=0), {"late": [1, 2]}, {1, 2}),
    (Ruling(ruling="award", reason="gone"), {"late": 1, "entry": 4}, {1}),
    (Ruling(ruling="draw", reason="fair"), {"late": 1, "entry": 4}, set()),
    (Resign(seat=0), {}, set()),
    (MakeMove(seat=0, text="take 1"), {"result": "last counter taken"}, set()),
    (TournamentAdjudication(winners=(0,)), {}, set()),
])
def test_each_change_kind_says_who_it_timed_out(change: Change, logged: dict[str, object],
                                                timed_out: set[int]) -> None:
    assert change.timed_out(dict(logged)) == frozenset(timed_out)
