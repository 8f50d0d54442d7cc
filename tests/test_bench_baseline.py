"""`bench/web.py` measures pbem's posted move against a bare app's posted move that does the
same I/O, and its play page against a bare page that does. These tests hold that claim: on
every database the bare move sends as many statements as pbem's and leaves the same rows
behind, the bare page reads the same tables in the same statements, and on PostgreSQL both
wait for the server as often as pbem, so their rates are fair baselines."""

from __future__ import annotations

import importlib.util
import re
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import peewee
import playhouse.db_url
import pytest

from pbem.core.db import generation
from pbem.core.db.connection import database
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import ChangeLog, Match, Move, Position, Seat
from pbem.web import create_app
from tests.conftest import BACKENDS, START, STRONG_KEY, make_settings
from tests.core.db.test_pipeline import waits

ROOT = Path(__file__).resolve().parents[1]
SECRET = STRONG_KEY
PLAYERS = ["ann@example.org", "ben@example.org"]
FIRST = "b2-a1"  # a legal first move of seat 0 in every new mimic match


def _bench() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("bench_web", ROOT / "bench" / "web.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _listening(app: Any) -> None:
    """A first request on the app: on PostgreSQL its connection starts to listen for the
    database's generation then (once per connection, not per request)."""
    assert app.test_client().get("/games").status_code == 200


def _generation_reads() -> int:
    """The statements a request reads the database's generation with: one, but none on
    PostgreSQL, whose connections hear of it (core/db/generation.py)."""
    return 0 if isinstance(database.obj, peewee.PostgresqlDatabase) else 1


@pytest.fixture
def bare(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """The bench's bare app, on the test's database, as a module (`.app`, `.db`)."""
    (tmp_path / "bare_app.py").write_text(_bench().BARE_APP)
    monkeypatch.setenv("BARE_DATABASE_URL", db_url.replace("+pool", ""))
    monkeypatch.setenv("BARE_KEEP", "1")  # its connection kept between requests, as pbem's
    monkeypatch.syspath_prepend(str(tmp_path))
    # pbem registers its own database classes for these schemes (core/db/connection.py); the
    # bench's bare app runs in a process of its own, with peewee's.
    for scheme, stock in (("postgres", peewee.PostgresqlDatabase),
                          ("postgresql", peewee.PostgresqlDatabase),
                          ("sqlite", peewee.SqliteDatabase)):
        monkeypatch.setitem(playhouse.db_url.schemes, scheme, stock)
    sys.modules.pop("bare_app", None)
    module = importlib.import_module("bare_app")
    assert type(module.db) in (peewee.PostgresqlDatabase, peewee.SqliteDatabase,
                               peewee.MySQLDatabase)
    yield module
    if not module.db.is_closed():
        module.db.close()
    sys.modules.pop("bare_app", None)


@contextmanager
def statements(tables: bool = False, sent: list[tuple[str, Any]] | None = None
               ) -> Iterator[list[str]]:
    """The SQL statements any peewee database runs on this thread while inside (BEGIN and
    COMMIT aside): each one's verb, or with `tables` its verb and the tables it reads, in
    order. `sent` collects each statement with its values, to run again.

    Only this thread's: the test run empties a MariaDB database used by the previous test on a
    thread of its own (conftest's `_Backend`), whatever database this test is on."""
    seen: list[str] = []
    original = peewee.Database.execute_sql
    mine = threading.get_ident()

    def counted(self: peewee.Database, sql: str, params: Any = None) -> Any:
        if threading.get_ident() != mine:
            return original(self, sql, params)
        read = re.findall(r'(?:FROM|JOIN)\s+[`"]?(\w+)', sql, re.IGNORECASE) if tables else []
        seen.append(" ".join([sql.split()[0].upper(), *read]))
        if sent is not None:
            sent.append((sql, params))
        return original(self, sql, params)

    peewee.Database.execute_sql = counted  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        peewee.Database.execute_sql = original  # type: ignore[method-assign]


def test_statements_leave_out_what_other_threads_run() -> None:
    """The MariaDB emptying of a previous test once showed up in a SQLite test's list."""
    elsewhere = peewee.SqliteDatabase(":memory:")
    sent: list[tuple[str, Any]] = []
    with statements(sent=sent) as seen:
        other = threading.Thread(target=lambda: elsewhere.execute_sql("SELECT 1"))
        other.start()
        other.join()
        peewee.SqliteDatabase(":memory:").execute_sql("SELECT 2")
    assert (seen, [sql for sql, _ in sent]) == (["SELECT"], ["SELECT 2"])


def _written(match_id: int) -> dict[str, Any]:
    match = Match.get_by_id(match_id)
    seats = list(Seat.select().where(Seat.match == match_id).order_by(Seat.seat))
    return {
        "ply and version": (match.ply, match.turn, match.version),
        "moves": Move.select().where(Move.match == match_id).count(),
        "positions": Position.select().where(Position.match == match_id).count(),
        "turn mails": [(m.to_address, m.template) for m in
                       OutboxMessage.select().where(OutboxMessage.match == match_id)],
        "log rows": ChangeLog.select().where(ChangeLog.match == match_id).count(),
        "clocks running": [seat.owes_since is not None for seat in seats],
    }


def test_the_bare_move_does_what_pbems_move_does(db_url: str, tmp_path: Path,
                                                 bare: Any) -> None:
    mine, theirs = (create_match("mimic", PLAYERS, {}, SECRET, START, seed=3)
                    for _ in range(2))
    before = _written(mine.match.id)
    app = create_app(make_settings(db_url, tmp_path))
    _listening(app)
    form = {"move": FIRST, "ply": "0"}
    with statements() as pbems:
        assert app.test_client().post(f"/play/{mine.tokens[0]}", data=form).status_code == 303
    with statements() as bares:
        assert bare.app.test_client().post(f"/move/{theirs.tokens[0]}",
                                           data=form).status_code == 303
    database.connect(reuse_if_open=True)
    after = _written(mine.match.id)
    assert after != before
    assert _written(theirs.match.id) == after
    assert sorted(bares) == sorted(pbems)
    # The generation (but on PostgreSQL), the seat, three reads under the lock, seven writes
    # and the turn mail's question (mailout/waiting.py).
    assert len(pbems) == 12 + _generation_reads()


@pytest.mark.parametrize("db_url", [name for name in BACKENDS if name == "postgres"],
                         indirect=True)
def test_the_bare_move_waits_for_postgresql_as_often_as_pbems(
        db_url: str, tmp_path: Path, bare: Any) -> None:
    """The same round trips, carrying the same statements: a baseline that waited more
    often would flatter pbem's pipelined door."""
    mine, theirs = (create_match("mimic", PLAYERS, {}, SECRET, START, seed=3)
                    for _ in range(2))
    app = create_app(make_settings(db_url, tmp_path))
    _listening(app)
    form = {"move": FIRST, "ply": "0"}
    database.connect(reuse_if_open=True)
    with waits() as pbems:
        assert app.test_client().post(f"/play/{mine.tokens[0]}", data=form).status_code == 303
    bare.db.connect(reuse_if_open=True)
    with waits(bare.db) as bares:
        assert bare.app.test_client().post(f"/move/{theirs.tokens[0]}",
                                           data=form).status_code == 303
    assert (bares, pbems) == (pbems, ["SELECT", "BEGIN+SELECT+SELECT+SELECT",
                              "UPDATE+INSERT+INSERT+UPDATE+UPDATE+SELECT",
                              "INSERT+INSERT+COMMIT"])


def test_the_bare_app_writes_with_pbems_connection_settings(db_url: str, bare: Any) -> None:
    """What a write costs depends on them: SQLite's sync and foreign keys, psycopg 3 (its
    pipeline) on PostgreSQL, the character set on MariaDB."""
    if isinstance(database.obj, peewee.SqliteDatabase):
        asked = ["PRAGMA synchronous", "PRAGMA foreign_keys", "PRAGMA busy_timeout"]
    elif isinstance(database.obj, peewee.PostgresqlDatabase):
        assert isinstance(bare.db._adapter, peewee.Psycopg3Adapter)
        asked = ["SHOW synchronous_commit"]
    else:
        asked = ["SELECT @@character_set_connection"]
    assert ([bare.db.execute_sql(sql).fetchone()[0] for sql in asked]
            == [database.execute_sql(sql).fetchone()[0] for sql in asked])


def test_the_bare_move_refuses_a_stale_ply(db_url: str, bare: Any) -> None:
    created = create_match("mimic", PLAYERS, {}, SECRET, START, seed=3)
    answer = bare.app.test_client().post(f"/move/{created.tokens[0]}",
                                         data={"move": FIRST, "ply": "5"})
    assert answer.status_code == 409
    database.connect(reuse_if_open=True)
    assert Move.select().where(Move.match == created.match.id).count() == 0


def _talked_over(db_url: str) -> tuple[Any, str]:
    """A match whose page's reads all find rows, and rows they must leave out: both players
    rated, the match paired in a tournament's round, the seat's notes, and more chat than a
    page shows (31 lines read) besides a hidden line and the lines of a player the reader
    blocked. Returns the match and its first seat's link."""
    from pbem.core.conversation.models import ChatMessage, PlayerBlock
    from pbem.core.conversation.personal import save_notes
    from pbem.core.ratings.models import Rating
    from pbem.core.tournaments.models import Pairing, Tournament, TournamentRound
    created = create_match("mimic", PLAYERS, {}, SECRET, START, seed=3)
    seats = list(Seat.select().where(Seat.match == created.match.id).order_by(Seat.seat))
    reader, other = (seat.player_id for seat in seats)
    for player in (reader, other):
        Rating.create(player=player, game="mimic", mu=25.0, sigma=8.0, display=1500 + player)
    cup = Tournament.create(name="Cup", organiser=reader, game="mimic", time_control="3d",
                            on_timeout="loss", format="round_robin", min_players=2,
                            max_players=8, created_at=START)
    round_row = TournamentRound.create(tournament=cup, number=1, started_at=START)
    Pairing.create(tournament=cup, round=round_row, board=1, players=[], match=created.match.id)
    save_notes(seats[0], "open with the corner", START)
    # The reader's lines are the even ones; the other player's (odd) are blocked; one is hidden.
    for number in range(80):
        ChatMessage.create(match=created.match.id, room="players", seat=number % 2,
                           author=(reader, other)[number % 2], text=f"line {number:03d}",
                           ply=0, channel="web", created_at=START,
                           hidden_at=START if number == 78 else None)
    PlayerBlock.create(player=reader, blocked=other, created_at=START)
    return created, created.tokens[0]


def _same_rows(pbems: list[tuple[str, Any]], bares: list[tuple[str, Any]],
               bare_db: peewee.Database) -> None:
    """Each statement pair, run again, returns the same rows with the same values (compared
    as each row's values, whatever order its columns come in)."""
    def rows(db: peewee.Database, sql: str, params: Any) -> list[list[str]]:
        return [sorted(map(repr, row)) for row in db.execute_sql(sql, params).fetchall()]

    database.connect(reuse_if_open=True)
    bare_db.connect(reuse_if_open=True)
    for (pbem_sql, pbem_values), (bare_sql, bare_values) in zip(pbems, bares, strict=True):
        found = rows(database.obj, pbem_sql, pbem_values)
        assert found, pbem_sql  # every read finds something here
        assert rows(bare_db, bare_sql, bare_values) == found, bare_sql


def test_the_bare_page_reads_what_pbems_play_page_reads(db_url: str, tmp_path: Path,
                                                        bare: Any) -> None:
    """A play page read again: the same statements reading the same tables, in order, and
    finding the same rows."""
    _, token = _talked_over(db_url)
    generation.bump()  # the row, which emptying the tables between tests may have taken
    app = create_app(make_settings(db_url, tmp_path))
    client = app.test_client()
    assert client.get(f"/play/{token}").status_code == 200  # the first visit notes the time
    pbem_sent: list[tuple[str, Any]] = []
    bare_sent: list[tuple[str, Any]] = []
    with statements(tables=True, sent=pbem_sent) as pbems:
        page = client.get(f"/play/{token}")
    assert page.status_code == 200 and b"line 076" in page.data
    # Not a blocked player's line, nor a hidden one, nor one older than a page reads.
    assert not [line for line in (b"line 077", b"line 078", b"line 014") if line in page.data]
    with statements(tables=True, sent=bare_sent) as bares:
        answer = bare.app.test_client().get(f"/page/{token}")
    assert answer.status_code == 200
    assert answer.json == {"seat": 0, "seats": 2, "notes": True, "ratings": 2,
                           "tournament": True, "chat": 31}
    assert bares == pbems == ["SELECT database_generation"] * _generation_reads() + [
        "SELECT seat match player seat",
        "SELECT chat_mute seat conditional_tree seat_note",
        "SELECT rating",
        "SELECT pairing tournament tournament_round",
        "SELECT chat_message player player_block"]
    _same_rows(pbem_sent, bare_sent, bare.db)


@pytest.mark.parametrize("db_url", [name for name in BACKENDS if name == "postgres"],
                         indirect=True)
def test_the_bare_page_waits_for_postgresql_as_often_as_pbems(
        db_url: str, tmp_path: Path, bare: Any) -> None:
    _, token = _talked_over(db_url)
    client = create_app(make_settings(db_url, tmp_path)).test_client()
    assert client.get(f"/play/{token}").status_code == 200
    database.connect(reuse_if_open=True)
    with waits() as pbems:
        assert client.get(f"/play/{token}").status_code == 200
    bare.db.connect(reuse_if_open=True)
    with waits(bare.db) as bares:
        assert bare.app.test_client().get(f"/page/{token}").status_code == 200
    assert (bares, pbems) == (pbems, ["SELECT", "SELECT+SELECT+SELECT+SELECT"])


def test_the_bare_page_answers_404_for_an_unknown_link(db_url: str, bare: Any) -> None:
    assert bare.app.test_client().get("/page/no-such-link").status_code == 404


# A first read after a move: the page read again's statements with the visit noted and the
# match version's own reads (draw offers, the latest page of moves, the rulings shown).
# The seat's presence noted (core/presence), its visit noted, the version's three reads.
# The version's reads, then the takeback state's (a tournament's match stops at the pairing).
FIRST_READ = ["INSERT", "UPDATE", "SELECT draw_offer", "SELECT move", "SELECT adjudication",
              "SELECT change_log", "SELECT pairing"]
PAGE_READS = ["SELECT chat_mute seat conditional_tree seat_note", "SELECT rating",
              "SELECT pairing tournament tournament_round",
              "SELECT chat_message player player_block"]


def test_the_bare_first_page_reads_what_pbems_first_read_reads(db_url: str, tmp_path: Path,
                                                               bare: Any) -> None:
    """The first read of a match version (the opponent's page after a move): the same
    statements on the same tables, in order, each finding the same rows."""
    _, token = _talked_over(db_url)
    generation.bump()
    client = create_app(make_settings(db_url, tmp_path)).test_client()
    _listening(client.application)
    pbem_sent: list[tuple[str, Any]] = []
    bare_sent: list[tuple[str, Any]] = []
    with statements(tables=True, sent=pbem_sent) as pbems:
        assert client.get(f"/play/{token}").status_code == 200
    with statements(tables=True, sent=bare_sent) as bares:
        answer = bare.app.test_client().get(f"/page/{token}/first")
    assert answer.status_code == 200 and answer.json["chat"] == 31
    # Only on PostgreSQL are the page's reads sent ahead, before the visit is noted.
    in_order = (PAGE_READS + FIRST_READ
                if isinstance(database.obj, peewee.PostgresqlDatabase) else FIRST_READ + PAGE_READS)
    assert bares == pbems == ["SELECT database_generation"] * _generation_reads() + [
        "SELECT seat match player seat", *in_order]
    _same_reads(pbem_sent, bare_sent, bare.db)


def _same_reads(pbems: list[tuple[str, Any]], bares: list[tuple[str, Any]],
                bare_db: peewee.Database) -> None:
    """The reads of a first read find the same rows (the version's reads may find none)."""
    database.connect(reuse_if_open=True)
    bare_db.connect(reuse_if_open=True)
    for (pbem_sql, pbem_values), (bare_sql, bare_values) in zip(pbems, bares, strict=True):
        if pbem_sql.startswith("SELECT"):
            found = [sorted(map(repr, row))
                     for row in database.obj.execute_sql(pbem_sql, pbem_values).fetchall()]
            assert [sorted(map(repr, row)) for row in
                    bare_db.execute_sql(bare_sql, bare_values).fetchall()] == found, bare_sql


def test_the_bare_first_api_read_reads_what_pbems_does(db_url: str, tmp_path: Path,
                                                       bare: Any) -> None:
    _, token = _talked_over(db_url)
    generation.bump()
    client = create_app(make_settings(db_url, tmp_path)).test_client()
    _listening(client.application)
    pbem_sent: list[tuple[str, Any]] = []
    bare_sent: list[tuple[str, Any]] = []
    with statements(tables=True, sent=pbem_sent) as pbems:
        assert client.get(f"/api/play/{token}").status_code == 200
    with statements(tables=True, sent=bare_sent) as bares:
        assert bare.app.test_client().get(f"/api/{token}/first").status_code == 200
    assert bares == pbems == ["SELECT database_generation"] * _generation_reads() + [
        "SELECT seat match player seat", "INSERT", *FIRST_READ[2:]]
    _same_reads(pbem_sent, bare_sent, bare.db)
