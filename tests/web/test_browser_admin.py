"""The admin console in Chromium: on a phone-width screen an admin signs in, opens the oldest
queue entry, previews a ruling (nothing changes) and makes it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from werkzeug.serving import make_server

from pbem.core.accounts.admins import create_admin
from pbem.core.admin.audit import AuditFilter, search
from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.matches.sweep import sweep
from pbem.web import create_app
from tests.conftest import START, free_port, make_settings
from tests.web.test_browser import browser, watch_console  # noqa: F401 (fixture)

pytestmark = pytest.mark.browser
PASSWORD = "correct horse battery"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, object]]:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'admin.sqlite3'}"
    # Development: the admin's session cookie is not `Secure`, so it works over plain http.
    settings = make_settings(url, tmp_path, base_url=f"http://127.0.0.1:{port}",
                             development=True)
    bind_database(url)
    with database.connection_context():
        migrate()
    httpd = make_server("127.0.0.1", port, create_app(settings), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", settings
    httpd.shutdown()


def test_an_admin_rules_a_timeout_from_the_queue_on_a_phone(browser: Browser,  # noqa: F811
                                                            server) -> None:
    base, settings = server
    with database.connection_context():
        create_admin("ref@club.org", PASSWORD, START)
        match = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                             settings.secret_key, START, time_control="45s").match
        sweep(START + timedelta(minutes=1), timedelta(minutes=10))
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/admin")
    page.get_by_label("Email").fill("ref@club.org")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Adjudication queue")).to_be_visible()
    card = page.locator("li.card").first
    expect(card).to_contain_text("ann")
    expect(card).to_contain_text("never opened their page")
    card.get_by_role("link", name="Rule on #1").click()
    page.get_by_label("award the match to the other player(s)").check()
    page.get_by_label("Reason (sent to every player)").fill("Ann did not move in time")
    page.get_by_role("button", name="Preview").click()
    preview = page.locator("section.preview")
    expect(preview).to_contain_text("The match would be finished")
    expect(preview).to_contain_text("result to ben")
    with database.connection_context():
        assert Match.get_by_id(match.id).status == "active"
    make = page.get_by_role("button", name="Make ruling")
    box = make.bounding_box()
    assert box["x"] + box["width"] <= 390, "the button fits the phone screen"
    make.click()
    expect(page.locator(".flash")).to_contain_text(f"Ruling made on match {match.id}")
    expect(page.get_by_text("Nothing to rule on.")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the queue scrolls sideways ({width}px)"
    # Nor does any table scroll sideways inside the page: on a phone a row is a card.
    for path in (f"/admin/matches/{match.id}", "/admin/audit", "/admin/matches", "/dev/mail"):
        page.goto(base + path)
        wide = page.evaluate("""[...document.querySelectorAll('table')]
            .filter(t => t.scrollWidth > t.clientWidth + 1).length""")
        assert wide == 0 and page.evaluate("document.documentElement.scrollWidth") <= 390, path
    with database.connection_context():
        assert Match.get_by_id(match.id).result["winners"] == [1]
        (ruled,) = search(AuditFilter(action="ruling:award"))
        assert ruled.actor == "ref@club.org" and ruled.reason == "Ann did not move in time"
    assert problems == []
    context.close()
