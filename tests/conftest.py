"""Shared fixtures: real databases, a real SMTP server on loopback, the app and a worker.

Database tests run on every backend in PBEM_TEST_BACKENDS (default "sqlite,postgres"). Each
PostgreSQL run gets its own schema and each MariaDB run its own two databases (used in turn),
so parallel runs never collide. An unreachable server fails the run with a message saying how
to point the tests at one (or how to choose backends explicitly); nothing is skipped silently.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import peewee
import pytest
from aiosmtpd.controller import Controller
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from jinja2.bccache import Bucket, BytecodeCache
from playhouse.pool import PooledDatabase

from pbem.config import Settings, load_settings
from pbem.core import settlers
from pbem.core.db.connection import bind_database, database
from pbem.core.db.memo import forget_all
from pbem.core.db.migrations import migrate
from pbem.core.presence.seen import forget_written
from pbem.core.schema import ALL_MODELS
from pbem.games import REGISTRY
from tests.support.games import TEST_GAMES

SUPPORT_TEMPLATES = str(Path(__file__).parent / "support" / "templates")
POSTGRES_URL = os.environ.get("PBEM_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
MARIADB_URL = os.environ.get("PBEM_TEST_MARIADB_URL", "mysql://root@127.0.0.1:3306/test")
# Tables whose rows others point at come last, so deleting in this order breaks no foreign key.
EMPTYING_ORDER = tuple(reversed(peewee.sort_models(list(ALL_MODELS))))
BACKENDS = [name.strip() for name in
            os.environ.get("PBEM_TEST_BACKENDS", "sqlite,postgres").split(",") if name.strip()]
START = datetime(2026, 1, 5, 12, 0, 0)
# For tests of what a page or mail says (words, translations, captions): the database under
# them changes none of it, so they run on SQLite alone. Races, locking, migrations, queries and
# transactions stay on every backend.
ON_SQLITE = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)

# Fuzz tests stay quick on a shared two-core machine; PBEM_FUZZ=thorough runs many more cases.
hypothesis_settings.register_profile(
    "default", max_examples=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
hypothesis_settings.register_profile(
    "thorough", max_examples=2000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
hypothesis_settings.load_profile(os.environ.get("PBEM_FUZZ", "default"))
# Outside development pbem refuses weak keys; this one is as strong as a real one must be.
STRONG_KEY = "npCGVmO7dqn3XR98eeFN_f4PfB7CGI-swbLp61S-z6c"


# --- apps ------------------------------------------------------------------------------------

class _SharedBytecode(BytecodeCache):
    """Compiled templates kept in memory for every environment of one kind in this run."""

    def __init__(self) -> None:
        self.codes: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.codes.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.codes[bucket.key] = bucket.bytecode_to_string()


def _share_compiled_templates() -> None:
    """Each app's Jinja environment, and each mail composer's, compiled every template it drew
    afresh: the same templates in every test, a fifth of a web test's time. Environments of a
    kind share one in-memory bytecode cache instead (Jinja's own mechanism: keyed by the
    template's name and file, checked against its source, so an edited template is compiled
    again). Pages and mails keep separate caches: their environments compile differently
    (escaping, trailing newlines), while every app is made by `create_app` and every mail
    environment by `mail_environment`."""
    from flask import Flask

    from pbem.mail import compose

    Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": _SharedBytecode()}
    mail_codes = _SharedBytecode()
    make = compose.mail_environment

    def mail_environment(extra_template_dirs: tuple[str, ...] = ()) -> Any:
        env = make(extra_template_dirs)
        env.bytecode_cache = mail_codes
        return env

    compose.mail_environment = mail_environment


_share_compiled_templates()


# --- databases -------------------------------------------------------------------------------

class _Backend:
    """A per-run private area on one database server, created once, emptied between tests.

    MariaDB gets two databases, used in turn: the one a test has just used is emptied on a
    thread of its own while the next test runs on the other. Emptying there means a TRUNCATE
    per table used (the only way back to id 1 that is not slower still), 20-30 ms each, most of
    a MariaDB test's setup when done in line.
    """

    def __init__(self, name: str, tmp_root: Path) -> None:
        self.name = name
        self.tag = f"pbem_test_{os.getpid()}_{secrets.token_hex(3)}"
        self.tmp_root = tmp_root
        self.url = ""
        self.migrated = False
        # MariaDB: the two databases taken in turn, and the emptying under way of each.
        self.turns: list[tuple[str, str]] = []
        self.turn = 0
        self.emptying: dict[int, threading.Thread] = {}
        self.failures: dict[int, BaseException] = {}

    def setup(self) -> None:
        if self.name == "postgres":
            admin = _admin(POSTGRES_URL, "PostgreSQL")
            admin.execute_sql(f'CREATE SCHEMA "{self.tag}"')
            admin.close()
            # Pooled, as production runs it: a new PostgreSQL connection (a server process
            # forked) cost most of a web test's requests when opened for each one.
            pooled = POSTGRES_URL.replace("postgresql://", "postgresql+pool://", 1)
            self.url = f"{pooled}?options=-c%20search_path%3D{self.tag}"
        elif self.name == "mariadb":
            admin = _admin(MARIADB_URL, "MariaDB")
            for tag in (f"{self.tag}_a", f"{self.tag}_b"):
                admin.execute_sql(f"CREATE DATABASE `{tag}` CHARACTER SET utf8mb4")
                # Pooled, as production runs it: a new MariaDB connection costs tens of
                # milliseconds, and most web tests' time went into opening one per request.
                pooled = MARIADB_URL.replace("mysql://", "mysql+pool://", 1)
                url = pooled.rsplit("/", 1)[0] + f"/{tag}"
                if "?" not in url and urlparse(url).hostname in ("127.0.0.1", "localhost"):
                    # Over loopback without TLS: PyMySQL otherwise builds a TLS context for
                    # every new connection (30-80 ms, more than the rest of a test's setup) to
                    # offer TLS to a server that may well have it off; each test opens afresh.
                    url += "?ssl_disabled=true"
                self.turns.append((tag, url))
            admin.close()
        elif self.name != "sqlite":
            raise pytest.UsageError(f"unknown backend {self.name!r} in PBEM_TEST_BACKENDS")

    def fresh_url(self, tmp_path: Path) -> str:
        if self.name == "sqlite":
            # A copy of one migrated file: migrating a new file for every test took 70 ms.
            path = tmp_path / "pbem.sqlite3"
            shutil.copyfile(self._sqlite_template(), path)
            return f"sqlite:///{path}"
        if self.name == "mariadb":
            self.turn ^= 1
            self._wait_for(self.turn)
            self.url = self.turns[self.turn][1]
        return self.url

    def _sqlite_template(self) -> Path:
        template = self.tmp_root / "migrated.sqlite3"
        if not template.exists():
            bind_database(f"sqlite:///{template}")
            database.connect(reuse_if_open=True)
            migrate()
            # Everything into the main file (WAL mode), so a copy of it alone is complete.
            database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            database.close()
        return template

    def ready(self, migrated_now: list[str]) -> None:
        """The database is migrated: make sure it is empty before the test starts."""
        if self.name == "sqlite":
            return
        if self.name == "postgres":
            if self.migrated:
                self._empty(database.obj)
        elif migrated_now:
            # A migration just ran (a fresh database, or one a migration test took back): it
            # may have written rows the emptying on the side never saw.
            self._empty(database.obj)
        self.migrated = True

    def used(self) -> None:
        """The test is over: MariaDB empties the database it used while the next one runs."""
        if self.name != "mariadb":
            return
        turn = self.turn
        url = self.turns[turn][1].replace("mysql+pool://", "mysql://", 1)

        def empty() -> None:
            from pbem.core.db.connection import open_database

            try:
                db = open_database(url)
                db.connect()
                try:
                    self._empty(db)
                finally:
                    db.close()
            except BaseException as error:  # raised in the test that next takes this database
                self.failures[turn] = error

        thread = threading.Thread(target=empty, name=f"empty-{self.turns[turn][0]}")
        self.emptying[turn] = thread
        thread.start()

    def _wait_for(self, turn: int) -> None:
        thread = self.emptying.pop(turn, None)
        if thread is not None:
            thread.join()
        failure = self.failures.pop(turn, None)
        if failure is not None:
            raise failure

    def _empty(self, db: peewee.Database) -> None:
        """Remove every row (and reset ids) left by the previous test."""
        # Only the tables the last test used: emptying a table costs milliseconds however empty
        # it is, and with every table emptied this was the largest share of the suite's time.
        # One query finds the tables holding rows; ids are reset everywhere.
        tables = [model._meta.table_name for model in EMPTYING_ORDER]
        quote = '"' if self.name == "postgres" else "`"
        if self.name == "mariadb":
            # A test may have dropped tables (the migration tests): the next test's migration
            # makes them again, empty.
            present = {row[0] for row in db.execute_sql(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = DATABASE()").fetchall()}
            tables = [table for table in tables if table in present]
            if not tables:
                return
        probe = " UNION ALL ".join(
            f"SELECT '{table}' WHERE EXISTS (SELECT 1 FROM {quote}{table}{quote})"
            for table in tables)
        used = {row[0] for row in db.execute_sql(probe).fetchall()}
        if self.name == "postgres":
            # DELETE, children first, not TRUNCATE: a TRUNCATE makes new files for each table
            # and its indexes and took 0.2-0.5 s a test; a few deleted rows take milliseconds.
            with db.atomic():
                for table in tables:
                    if table in used:
                        db.execute_sql(f'DELETE FROM "{table}"')
            # Sequences advanced by rows deleted within the test start again at 1 too.
            db.execute_sql("SELECT " + ", ".join(
                f"setval(pg_get_serial_sequence('{table}', 'id'), 1, false)"
                for table in tables))
        else:
            advanced = [row[0] for row in db.execute_sql(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                "DATABASE() AND auto_increment > 1").fetchall()]
            db.execute_sql("SET FOREIGN_KEY_CHECKS = 0")
            for table in sorted(used | (set(advanced) & set(tables))):
                db.execute_sql(f"TRUNCATE TABLE `{table}`")
            db.execute_sql("SET FOREIGN_KEY_CHECKS = 1")

    def teardown(self) -> None:
        if self.name == "postgres":
            admin = _admin(POSTGRES_URL, "PostgreSQL")
            admin.execute_sql(f'DROP SCHEMA "{self.tag}" CASCADE')
            admin.close()
        elif self.name == "mariadb":
            for thread in self.emptying.values():
                thread.join()
            admin = _admin(MARIADB_URL, "MariaDB")
            for tag, _url in self.turns:
                admin.execute_sql(f"DROP DATABASE `{tag}`")
            admin.close()


def _admin(url: str, label: str) -> peewee.Database:
    from pbem.core.db.connection import open_database

    db = open_database(url)
    try:
        db.connect()
    except peewee.OperationalError as error:
        pytest.fail(f"{label} is not reachable at {url} ({error}). Start it, point "
                    f"PBEM_TEST_{label.upper()}_URL at one, or choose backends with "
                    f"PBEM_TEST_BACKENDS=sqlite.", pytrace=False)
    return db


@pytest.fixture(scope="session")
def backends(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, _Backend]]:
    made = {}
    try:
        for name in BACKENDS:
            backend = _Backend(name, tmp_path_factory.mktemp(name))
            backend.setup()
            made[name] = backend
        yield made
    finally:
        if not database.is_closed():
            database.close()
        for backend in made.values():
            backend.teardown()


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, backends: dict[str, _Backend],
           tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database on each backend, bound to the models and connected."""
    backend = backends[request.param]
    url = backend.fresh_url(tmp_path)
    bind_database(url)
    settlers.install()  # as every start-up does (the web app, the worker, the command line)
    # The same URL may hold another test's rows under the same ids (MariaDB's TRUNCATE
    # starts them again): nothing derived per match version may carry over, nor which seats'
    # presence this process wrote lately (core/presence/seen.py).
    forget_all()
    forget_written()
    database.connect(reuse_if_open=True)
    backend.ready(migrate())
    yield url
    if not database.is_closed():
        database.close()
    if isinstance(database.obj, PooledDatabase):
        # Connections threads of the test took and never handed back (a thread that ended
        # without closing): closed now, or they pile up to the server's connection limit.
        database.obj.close_all()
    backend.used()


# --- games -----------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def test_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """The platform's own tests play the small test-only games (tests/support/games.py)."""
    for slug, rules in TEST_GAMES.items():
        monkeypatch.setitem(REGISTRY, slug, rules)


# --- passwords -------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def cheap_password_hashing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Admin passwords hashed with scrypt at N=2**10 rather than 2**15: the same code and format,
    but a login costs milliseconds, not a quarter of a second (the login tests make hundreds).
    A test marked `production_password_hashing` keeps the real strength."""
    if request.node.get_closest_marker("production_password_hashing") is None:
        from pbem.core.accounts import admins

        monkeypatch.setattr(admins, "PASSWORD_METHOD", "scrypt:1024:8:1")


# --- mail ------------------------------------------------------------------------------------

@dataclass
class SMTPRecorder:
    """What the loopback SMTP server received; `answer` makes it refuse with a given reply."""

    host: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    answer: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    # The client end (host, port) of each connection a message came over.
    connections: list[tuple[str, int]] = field(default_factory=list)
    # The envelope sender (MAIL FROM) of each message in `messages`, in the same order.
    senders: list[str] = field(default_factory=list)
    # Addresses refused at RCPT with a permanent error, as a mailbox that does not exist.
    refuse: set[str] = field(default_factory=set)
    # A message to one of these addresses is refused after its DATA with the reply given.
    refuse_data: dict[str, str] = field(default_factory=dict)
    # The MAIL commands (counted from 1 over the server's life) answered by closing the
    # connection: a server that drops an idle or worn-out connection.
    drop_at_mail: set[int] = field(default_factory=set)
    mails_seen: int = 0
    # The messages (counted from 1) whose DATA is answered by closing the connection: the
    # client never hears whether the server took them.
    drop_at_data: set[int] = field(default_factory=set)
    data_seen: int = 0

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        self.mails_seen += 1
        if self.mails_seen in self.drop_at_mail:
            server.transport.close()
            return "421 4.4.2 closing"  # never reaches the client: the connection is gone
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        if address in self.refuse:
            return "550 5.1.1 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.data_seen += 1
        if self.data_seen in self.drop_at_data:
            server.transport.close()
            return "421 4.4.2 closing"  # never reaches the client
        with self.lock:
            self.connections.append(tuple(session.peer[:2]))
        if self.answer:
            return self.answer
        for address in envelope.rcpt_tos:
            if address in self.refuse_data:
                return self.refuse_data[address]
        parsed = message_from_bytes(envelope.original_content or envelope.content,
                                    policy=policy.default)
        with self.lock:
            self.messages.append(parsed)  # type: ignore[arg-type]
            self.senders.append(envelope.mail_from)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp() -> Iterator[SMTPRecorder]:
    # aiosmtpd cannot take port=0 (its readiness probe would connect to port 0): pick one.
    recorder = SMTPRecorder("127.0.0.1", free_port())
    controller = Controller(recorder, hostname=recorder.host, port=recorder.port)
    controller.start()
    yield recorder
    controller.stop()


# --- app and worker --------------------------------------------------------------------------

def make_settings(db_url: str, tmp_path: Path, **overrides: Any) -> Settings:
    # Turn mails go at once unless a test asks for presence (tests/web/test_browser_presence.py):
    # the other tests look at a page and then expect the mail of the move that follows.
    values = {"database_url": db_url, "instance_path": str(tmp_path / "instance"),
              "secret_key": STRONG_KEY, "base_url": "http://pbem.test",
              "mail_from": "pbem <pbem@pbem.test>", "notify_away_seconds": 0, **overrides}
    return load_settings(values, environ={})


@pytest.fixture
def settings(db_url: str, tmp_path: Path, smtp: SMTPRecorder) -> Settings:
    return make_settings(db_url, tmp_path, smtp_host=smtp.host, smtp_port=smtp.port)


class Clock:
    """An injected clock for the worker: tests move time, nothing sleeps."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def worker(settings: Settings, clock: Clock):
    from pbem.worker import Worker

    return Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))


@pytest.fixture
def app(settings: Settings, clock: Clock):
    from pbem.web import create_app

    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,), clock=clock)
    app.config["TESTING"] = True
    # The app binds the database itself; tests share that binding and its connection.
    database.connect(reuse_if_open=True)
    return app


@pytest.fixture
def client(app):
    return app.test_client()
