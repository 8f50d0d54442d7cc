"""A primary and a standby named in one URL: both of libpq's forms of a host list are read (the
form libpq documents first, `postgresql://u@a:p1,b:p2/db`, stopped `pbem init` with "Port could
not be cast to integer value"), the first host that takes writes is used, and a connection
that refused a write as read-only is not lent again, so the next one finds the primary.
(The whole failover, with a real standby promoted under load, is `bench/failover.py`; its
short run is `tests/test_failover_bench.py`.)"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from pbem.core.db.backups import _conninfo
from pbem.core.db.connection import bind_database, database, one_host_form
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Move
from tests.conftest import START

ON_POSTGRES = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
PAIR = ["ann@example.org", "ben@example.org"]


@pytest.mark.parametrize(("given", "read"), [
    ("postgresql://u@a:5432,b:5433/db?target_session_attrs=read-write",
     "postgresql://u@/db?target_session_attrs=read-write&host=a,b&port=5432,5433"),
    ("postgresql+pool://u:p%40ss@a,b:6000/db",
     "postgresql+pool://u:p%40ss@/db?host=a,b&port=5432,6000"),
    ("postgresql://[::1]:5432,[fd00::2]/db", "postgresql:///db?host=::1,fd00::2&port=5432,5432"),
    ("postgres://a,b/db", "postgres:///db?host=a,b"),
    # One host, the query form and other databases are left as they are.
    ("postgresql://u@a:5432/db", "postgresql://u@a:5432/db"),
    ("postgresql:///db?host=a,b&port=1,2&target_session_attrs=read-write",
     "postgresql:///db?host=a,b&port=1,2&target_session_attrs=read-write"),
    ("mysql://root@a:3306/db", "mysql://root@a:3306/db"),
    ("sqlite:///pbem.sqlite3", "sqlite:///pbem.sqlite3"),
])
def test_a_host_list_is_read_in_either_form(given: str, read: str) -> None:
    assert one_host_form(given) == read


def test_a_backup_and_a_restore_go_to_the_primary_of_a_host_list() -> None:
    info = _conninfo("postgresql://u@a:5432,b:5433/db?target_session_attrs=read-write")
    assert info == ("dbname='db' user='u' host='a,b' port='5432,5433' "
                    "target_session_attrs='read-write'")


def _with_a_dead_host_first(db_url: str, query_form: bool) -> str:
    """The test database's URL with a host that answers nothing listed before it."""
    parts = urlsplit(db_url)
    user, _at, live = parts.netloc.rpartition("@")
    host, _colon, port = live.partition(":")
    attrs = "target_session_attrs=read-write"
    query = "&".join(part for part in (parts.query, attrs) if part)
    if query_form:
        return (f"{parts.scheme}://{user}@{parts.path}?{query}&host=127.0.0.1,{host}"
                f"&port=1,{port or 5432}")
    return f"{parts.scheme}://{user}@127.0.0.1:1,{live}{parts.path}?{query}"


@ON_POSTGRES
@pytest.mark.parametrize("query_form", [False, True], ids=["host-list", "query"])
@pytest.mark.parametrize("pool", [False, True], ids=["plain", "pool"])
def test_either_form_connects_to_the_host_that_takes_writes(db_url: str, query_form: bool,
                                                            pool: bool) -> None:
    url = _with_a_dead_host_first(db_url, query_form)
    url = url.replace("postgresql+pool:", "postgresql:")
    if pool:
        url = url.replace("postgresql:", "postgresql+pool:", 1)
    database.close()
    bind_database(url)
    try:
        database.connect(reuse_if_open=True)
        created = create_match("mimic", PAIR, {}, "key", START)  # a write: the primary
        assert created.match.id
        port = database.execute_sql("SELECT inet_server_port()").fetchone()[0]
        assert port == (urlsplit(db_url).port or 5432)
    finally:
        database.close()
        bind_database(db_url)


@ON_POSTGRES
def test_a_connection_that_refused_a_write_as_read_only_is_not_lent_again(db_url, settings,
                                                                         app) -> None:
    """A pooled connection left on a server that no longer takes writes (here: its session
    made read-only) answers 503 with Retry-After once, then is closed for good; the next
    request's new connection takes the move. Before, the pool lent it again: 503 for ever."""
    token = create_match("mimic", PAIR, {}, settings.secret_key, START).tokens[0]
    database.close()
    bind_database(db_url + "&application_name=failover_test")  # a pool of its own, empty
    try:
        database.connect()
        database.execute_sql("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        database.close()  # back to the pool: its only connection
        client = app.test_client()
        refused = client.post(f"/api/play/{token}", json={"move": "b2-a1", "ply": 0})
        assert refused.status_code == 503 and refused.headers["Retry-After"]
        assert Move.select().count() == 0  # nothing half-written
        taken = client.post(f"/api/play/{token}", json={"move": "b2-a1", "ply": 0})
        assert taken.status_code == 200, taken.get_json()
        assert Move.select().count() == 1
    finally:
        database.close()
        bind_database(db_url)
        database.connect(reuse_if_open=True)
