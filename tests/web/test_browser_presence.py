"""Presence in a real Chromium: Ann plays the computer with her play page open (its live
updates polling), so the computer's replies mail her nothing; once she has closed the page and
been away `notify_away_seconds`, exactly one "your turn" mail goes, however many replies came
while she watched."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.presence import seen
from pbem.web import create_app
from pbem.worker import Worker
from tests.conftest import SUPPORT_TEMPLATES, Clock, SMTPRecorder, free_port, make_settings
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser
ANN = "ann@example.org"
AWAY = 300


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@pytest.fixture
def site(tmp_path: Path, smtp: SMTPRecorder) -> Iterator[tuple[str, Worker, Clock]]:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'presence.sqlite3'}"
    settings = make_settings(url, tmp_path, base_url=f"http://127.0.0.1:{port}",
                             smtp_host=smtp.host, smtp_port=smtp.port, development=True,
                             page_poll_seconds=1, notify_away_seconds=AWAY)
    bind_database(url)
    with database.connection_context():
        migrate()
    seen.forget_written()
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    httpd = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    clock = Clock(_now())
    worker = Worker(settings, clock=clock, extra_template_dirs=(SUPPORT_TEMPLATES,))
    yield f"http://127.0.0.1:{port}", worker, clock
    httpd.shutdown()


def _turn_mails(smtp: SMTPRecorder) -> int:
    """Turn mails Ann received (every mail of a match has its thread's subject: the outbox
    says which were turn mails, the SMTP server that they arrived)."""
    with database.connection_context():
        sent = (OutboxMessage.select().where(OutboxMessage.template == "your_turn",
                                             OutboxMessage.status == "sent").count())
    assert len(smtp.to(ANN)) == sent + 1  # and her welcome
    return sent


def _move(page: Page, ply: int) -> None:
    page.get_by_label("Your move").select_option(index=1)
    page.get_by_role("button", name="Make move").click()
    expect(page.locator(".flash").first).to_contain_text("was made")
    expect(page.locator("[data-poll-url]")).to_have_count(1)  # waiting: the page polls


def test_no_turn_mail_while_the_page_is_open_then_exactly_one(
        browser: Browser, site, smtp: SMTPRecorder) -> None:
    base, worker, clock = site
    with database.connection_context():
        created = create_match("nim", [ANN], {"pile": 30}, worker.settings.secret_key,
                               _now(), computers={1: 1})
        clock.now = _now()
        worker.run_once()
    first = _turn_mails(smtp)
    assert first == 1  # the match's first turn, before she ever looked
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/play/{created.tokens[0]}")
    for ply in (0, 2, 4):
        _move(page, ply)
        with page.expect_request(lambda request: request.url.endswith("/ply")):
            pass  # the live updates asked, as the seat: she is looking
        clock.now = _now()
        with database.connection_context():
            assert worker.computer_moves().moved == 1
            worker.run_once()
        # The page sees the reply by itself (its poll) and offers her turn again.
        expect(page.locator("body")).to_contain_text("Your turn", timeout=10_000)
        assert _turn_mails(smtp) == first  # no mail: she watched the reply arrive
    context.close()  # she leaves

    clock.now = _now() + timedelta(seconds=AWAY - 30)
    with database.connection_context():
        worker.run_once()
    assert _turn_mails(smtp) == first  # not yet away long enough
    clock.now = _now() + timedelta(seconds=AWAY + 20)
    with database.connection_context():
        worker.run_once()
        worker.run_once()
        latest = Match.get().ply
        mail = (OutboxMessage.select().where(OutboxMessage.template == "your_turn")
                .order_by(OutboxMessage.id.desc()).first())
    assert _turn_mails(smtp) == first + 1  # exactly one, for all three replies
    assert mail.ply == latest == 6
    assert problems == []
