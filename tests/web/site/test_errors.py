"""The database is down: pages answer 503 with a clear page (problem+json under /api/), the
stylesheet still loads, and the worker logs one line per job and tries again next tick."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pbem.core.db.connection import bind_database
from pbem.web import create_app
from pbem.worker import Worker
from tests.conftest import MARIADB_URL, POSTGRES_URL, SUPPORT_TEMPLATES, free_port, make_settings


@pytest.fixture(params=["postgresql", "mysql"])
def down_url(request: pytest.FixtureRequest) -> str:
    """A database server on a port where nothing listens (down or unreachable)."""
    url = POSTGRES_URL if request.param == "postgresql" else MARIADB_URL
    host = url.split("@", 1)[1].split("/", 1)[0]
    return url.replace(host, f"127.0.0.1:{free_port()}")


@pytest.fixture
def down_app(down_url: str, tmp_path: Path):
    app = create_app(make_settings(down_url, tmp_path),
                     extra_template_dirs=(SUPPORT_TEMPLATES,))
    yield app
    bind_database("sqlite:///:memory:")


def test_pages_answer_503_with_a_clear_page_and_static_files_still_load(
        down_app, caplog: pytest.LogCaptureFixture) -> None:
    client = down_app.test_client()
    with caplog.at_level(logging.ERROR):
        for path in ("/", "/matches", "/matches/1", "/play/some-token", "/admin/login"):
            page = client.get(path)
            assert page.status_code == 503, path
            assert page.headers["Retry-After"] == "60"
            text = page.get_data(as_text=True)
            assert "cannot reach its database" in text and "Nothing was changed" in text
            assert 'href="/static/pbem.css?v=' in text
        posted = client.post("/play/some-token", data={"move": "take 1", "ply": "0"})
        assert posted.status_code == 503
    api = client.get("/api/matches/1")
    assert api.status_code == 503 and api.mimetype == "application/problem+json"
    assert "cannot reach its database" in api.json["detail"]
    with client.get("/static/pbem.css") as css:
        assert css.status_code == 200 and css.mimetype == "text/css"
    logged = [r for r in caplog.records if r.name == "pbem.web.site.errors"]
    assert logged and all(r.exc_info is None for r in logged), "one line each, no traceback"
    assert "database unavailable on GET /matches" in caplog.text


def test_the_worker_logs_one_line_and_tries_again_next_tick(
        down_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings = make_settings(down_url, tmp_path)
    bind_database(down_url)
    worker = Worker(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    try:
        with caplog.at_level(logging.ERROR, logger="pbem.worker"):
            for _tick in range(2):
                report = worker.run_once()
                assert not any(vars(report["deadlines"]).values())
                assert not any(vars(report["outbox"]).values())
    finally:
        bind_database("sqlite:///:memory:")
    lines = [r.getMessage() for r in caplog.records if r.name == "pbem.worker"]
    assert all(r.exc_info is None for r in caplog.records if r.name == "pbem.worker")
    # One line per job per tick, in the order the jobs ran, and nothing more.
    jobs = ["deadlines", "computer", "tournaments", "leagues", "accounts", "digests",
            "admin digest", "waiting turns", "push", "outbox", "storage"]
    assert [line.split(":", 1)[0] for line in lines] == jobs * 2, lines
    assert all("the database is unavailable" in line and "trying again on the next tick"
               in line for line in lines)


def test_healthz_answers_503_json_when_the_database_is_down(down_app) -> None:
    reply = down_app.test_client().get("/healthz")
    assert reply.status_code == 503 and reply.mimetype == "application/json"
    body = reply.get_json()
    assert body["status"] == "unhealthy" and body["database"] is False
    assert body["problems"][0].startswith("database unreachable")
