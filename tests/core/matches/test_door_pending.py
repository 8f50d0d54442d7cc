"""What the door reads as pending (`changes.Pending`): a move skips the reads of draw offers,
conditional moves and the admin's queue when the match has none, and still meets each one
that exists, including one committed while the move waited for the match's lock."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pbem.core.db.connection import database
from pbem.core.matches import offers
from pbem.core.matches.changes import Change, Locked, apply_change
from pbem.core.matches.conditional import store
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import OfferDraw
from pbem.core.matches.models import Adjudication, DrawOffer
from pbem.core.matches.play import submit_move
from pbem.games import get_rules
from tests.conftest import START

SECRET = "test-secret-key"
ANN, BEN = "ann@example.org", "ben@example.org"
SIDE_TABLES = ("draw_offer", "conditional_tree", "adjudication")


@contextmanager
def statements() -> Iterator[list[str]]:
    """Every SQL statement run on this thread's database while inside."""
    seen: list[str] = []
    db = database.obj
    run = db.execute_sql

    def counted(sql: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        seen.append(sql)
        return run(sql, params, *args, **kwargs)

    db.execute_sql = counted
    try:
        yield seen
    finally:
        del db.execute_sql


def test_a_move_with_nothing_pending_reads_no_side_table_on_its_own(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    with statements() as seen:
        submit_move(match.id, 0, "b2-a1", 0, START)
    touching = [sql for sql in seen if any(f'"{t}"' in sql or f"`{t}`" in sql
                                           for t in SIDE_TABLES)]
    # Only the seated players' read asks about them, in one statement.
    assert len(touching) == 1, touching
    assert all(f'"{t}"' in touching[0] or f"`{t}`" in touching[0] for t in SIDE_TABLES)


def test_a_move_still_meets_each_pending_row(db_url: str) -> None:
    match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
    # Ben (seat 1) stores an answer to Ann's move and offers a draw; the admin's queue holds
    # an entry for Ann.
    answer = _answer_to(match.seed, "b2-a1")
    store(match.id, 1, [["b2-a1", answer]], START)
    apply_change(match.id, OfferDraw(seat=1), START)
    Adjudication.create(match=match, seat=0, cause="timeout", opened_at=START)
    result = submit_move(match.id, 0, "b2-a1", 0, START)
    assert result.answered_with == answer
    offer = DrawOffer.get()
    assert (offer.status, offer.how) == ("declined", "moved instead")
    assert Adjudication.get().status == "closed"


@dataclass(frozen=True, kw_only=True)
class OfferThenWait(Change):
    """A draw offer whose transaction stays open until `go` is set."""

    kind: ClassVar[str] = "draw-offer"
    started: threading.Event = field(metadata={"unlogged": True})
    go: threading.Event = field(metadata={"unlogged": True})

    def apply(self, door: Locked) -> None:
        offers.offer(door, 1)
        self.started.set()
        assert self.go.wait(10)


def test_an_offer_committed_while_a_move_waits_for_the_lock_is_declined_by_it(
        db_url: str) -> None:
    # The pending answers are read after the match row is locked. Read before it (or with it,
    # under the statement's earlier snapshot on PostgreSQL), the move would miss an offer
    # committed while it waited, and leave it standing: this failed so on PostgreSQL and
    # MariaDB.
    for _ in range(3):
        match = create_match("mimic", [ANN, BEN], {}, SECRET, START).match
        _offer_while_a_move_waits(match.id)
        offer_row = DrawOffer.get(DrawOffer.match == match)
        assert (offer_row.status, offer_row.how) == ("declined", "moved instead")


def _offer_while_a_move_waits(match_id: int) -> None:
    started, go = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def offer() -> None:
        try:
            with database.connection_context():
                apply_change(match_id, OfferThenWait(seat=1, started=started, go=go), START)
        except BaseException as error:
            failures.append(error)
            started.set()

    def move() -> None:
        try:
            with database.connection_context():
                submit_move(match_id, 0, "b2-a1", 0, START)
        except BaseException as error:
            failures.append(error)

    holder = threading.Thread(target=offer)
    holder.start()
    assert started.wait(10)
    mover = threading.Thread(target=move)
    mover.start()
    time.sleep(0.3)  # the move is now waiting for the match's lock
    go.set()
    holder.join(10)
    mover.join(10)
    assert not failures, failures


def _answer_to(seed: int, move: str) -> str:
    """A legal answer of seat 1 to seat 0's `move` in a new mimic match."""
    rules = get_rules("mimic")
    state = rules.new_game(2, {}, seed)
    state = rules.apply_move(state, 0, rules.parse_move(state, 0, move)).state
    return rules.format_move(state, rules.legal_moves(state, 1)[0])
