"""What a match version derives to is remembered per process (`VersionMemo`): it must follow
every change, never outlive a rolled-back version, never cross seats or languages, and be
forgotten when the models point at another database."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from pbem.core.db.connection import bind_database, database
from pbem.core.db.memo import VersionMemo, forget_all
from pbem.core.matches.creation import create_match, rules_for
from pbem.core.matches.lifecycle import resign
from pbem.core.matches.models import Seat
from pbem.core.matches.play import submit_move
from pbem.core.records.match_record import public_record, seat_record
from pbem.i18n import language
from tests.conftest import START

PLAYERS = ["ann@example.org", "ben@example.org"]
VERSION_1 = SimpleNamespace(id=1, version=1)  # a match row as read, for the memo alone


def _seat(match_id: int, number: int) -> Seat:
    return Seat.get((Seat.match == match_id) & (Seat.seat == number))


def _first_moves(match_id: int) -> list[str]:
    """Seat 0's legal moves now (it moves first in Mimic)."""
    return seat_record(_seat(match_id, 0), START)["legal_moves"]


def test_a_memo_keeps_its_newest_values_up_to_its_size() -> None:
    memo: VersionMemo[int] = VersionMemo(2)
    made: list[str] = []

    def make(key: str) -> int:
        made.append(key)
        return len(made)

    for key in ("a", "b", "a", "c", "a"):
        memo.remember(VERSION_1, lambda key=key: make(key), key)
    # "a" was dropped, as the oldest, to make room for "c", so it was made again.
    assert made == ["a", "b", "c", "a"]
    assert len(memo) == 2
    forget_all()
    assert len(memo) == 0


def test_nothing_made_inside_a_transaction_is_kept(db_url: str) -> None:
    memo: VersionMemo[int] = VersionMemo(4)
    with database.atomic():
        assert memo.remember(VERSION_1, lambda: 1) == 1
        assert memo.remember(VERSION_1, lambda: 2) == 2
    assert memo.remember(VERSION_1, lambda: 3) == 3
    assert memo.remember(VERSION_1, lambda: 4) == 3
    # The next version of the same match is its own.
    assert memo.remember(SimpleNamespace(id=1, version=2), lambda: 5) == 5


def test_the_record_follows_every_move_and_the_end(db_url: str, settings) -> None:
    match = create_match("mimic", PLAYERS, {}, settings.secret_key, START, seed=1).match
    before = seat_record(_seat(match.id, 0), START)
    assert before["your_turn"] and before["legal_moves"] and before["moves"] == []
    first = before["legal_moves"][0]
    submit_move(match.id, 0, first, 0, START)
    after = seat_record(_seat(match.id, 0), START)
    assert not after["your_turn"] and after["legal_moves"] == []
    assert [move["text"] for move in after["moves"]] == [first]
    assert after["board_text"] != before["board_text"]
    theirs = seat_record(_seat(match.id, 1), START)
    assert theirs["your_turn"] and theirs["legal_moves"]
    # A resignation changes no position, only the match's status: the record follows it.
    resign(match.id, 1, START)
    ended = seat_record(_seat(match.id, 1), START)
    assert ended["status"] != "active" and not ended["your_turn"] and ended["legal_moves"] == []
    assert public_record(_seat(match.id, 1).match, START)["status"] == ended["status"]


def test_a_version_read_inside_a_rolled_back_move_is_not_remembered(db_url: str,
                                                                     settings) -> None:
    """The door's version counter is reused when a change rolls back: a record read in the
    rolled-back transaction must not stand for the version another move then takes."""
    match = create_match("mimic", PLAYERS, {}, settings.secret_key, START, seed=1).match
    legal = _first_moves(match.id)
    tried, played = legal[0], legal[-1]
    with database.atomic() as transaction:
        submit_move(match.id, 0, tried, 0, START)
        inside = seat_record(_seat(match.id, 1), START)
        version = _seat(match.id, 1).match.version
        public_inside = public_record(_seat(match.id, 1).match, START)
        assert [move["text"] for move in inside["moves"]] == [tried]
        transaction.rollback()
    submit_move(match.id, 0, played, 0, START)
    seat = _seat(match.id, 1)
    assert seat.match.version == version  # the same version number, taken by another move
    record = seat_record(seat, START)
    assert [move["text"] for move in record["moves"]] == [played]
    rules = rules_for(seat.match)
    state = rules.load(seat.match.state)
    assert record["view"] == rules.view(state, 1)
    assert record["board_text"] == rules.render_text(rules.view(state, 1), over=False)
    assert public_record(seat.match, START)["view"] == rules.view(state, None)
    assert public_inside["view"] != rules.view(state, None)


def test_seats_and_languages_get_their_own(db_url: str, settings) -> None:
    match = create_match("mimic-taking", [*PLAYERS, "cal@example.org"], {},
                         settings.secret_key, START, seed=4).match
    views = [seat_record(_seat(match.id, number), START)["view"] for number in range(3)]
    # Each seat sees its own hand, never another's (the views differ where hands are shown).
    assert len({repr(view) for view in views}) == 3
    rules = rules_for(match)
    state = rules.load(match.state)
    for number, view in enumerate(views):
        assert view == rules.view(state, number)
    with language("de"):
        german = seat_record(_seat(match.id, 0), START)["board_text"]
    english = seat_record(_seat(match.id, 0), START)["board_text"]
    with language("de"):
        assert german == rules.render_text(rules.view(state, 0))
    assert english == rules.render_text(rules.view(state, 0))
    assert german != english


def test_pointing_at_another_database_forgets_everything(tmp_path: Path) -> None:
    memo: VersionMemo[int] = VersionMemo(4)
    memo.remember(VERSION_1, lambda: 1)
    bind_database(f"sqlite:///{tmp_path}/other.sqlite3")
    assert len(memo) == 0


@pytest.fixture(autouse=True)
def _fresh() -> None:
    forget_all()


def test_what_a_seat_may_do_follows_a_clock_running_out_and_every_move(db_url: str,
                                                                       settings) -> None:
    """`can` is worked out once per version, seat and whose clock ran out: a clock marked
    run out shows at once (the claim), whether or not the version moved with it."""
    from pbem.core.matches.deadlines import TimeoutPolicy

    match = create_match("mimic", PLAYERS, {}, settings.secret_key, START, seed=1,
                         on_timeout=TimeoutPolicy.CLAIM).match
    assert "claim-victory" not in seat_record(_seat(match.id, 1), START)["can"]
    # Seat 0 (to move) runs out of time: marked on its row alone, no version moved.
    Seat.update(out_of_time_at=START).where(
        (Seat.match == match.id) & (Seat.seat == 0)).execute()
    assert "claim-victory" in seat_record(_seat(match.id, 1), START)["can"]
    assert "claim-victory" not in seat_record(_seat(match.id, 0), START)["can"]
    # Seat 0 moves after all: play goes on, nobody may claim, and no one may abort any more
    # once seat 1 has moved too.
    first = seat_record(_seat(match.id, 0), START)["legal_moves"][0]
    submit_move(match.id, 0, first, 0, START)
    after = seat_record(_seat(match.id, 1), START)["can"]
    assert "claim-victory" not in after and "abort" in after and "move" in after
    reply = seat_record(_seat(match.id, 1), START)["legal_moves"][0]
    submit_move(match.id, 1, reply, 1, START)
    assert "abort" not in seat_record(_seat(match.id, 0), START)["can"]
