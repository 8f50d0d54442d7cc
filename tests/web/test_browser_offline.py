"""The installable app in a real Chromium: the play page installs the service worker, the
browser goes offline, Ann makes her move (the worker keeps it and shows the offline page), the
browser comes back online, and the move is made exactly once; the same move sent again with
its key is answered "already made". Also: an address opened offline shows the offline page,
and the manifest is served."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Move
from pbem.web import create_app
from tests.conftest import SUPPORT_TEMPLATES, free_port, make_settings
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser
ANN, BEN = "ann@example.org", "ben@example.org"


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, str]]:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'offline.sqlite3'}"
    settings = make_settings(url, tmp_path, base_url=f"http://127.0.0.1:{port}",
                             development=True)
    bind_database(url)
    with database.connection_context():
        migrate()
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    httpd = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", settings.secret_key
    httpd.shutdown()


def _controlled(page: Page) -> None:
    """Wait until the service worker controls the page (installed, activated, claimed).
    Polled from here: the page's strict CSP refuses the eval `wait_for_function` uses."""
    for _ in range(150):
        if page.evaluate("() => navigator.serviceWorker.controller !== null"):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the service worker never took control of the page")


def test_a_move_made_offline_is_sent_once_when_back_online(browser: Browser, site) -> None:
    base, secret = site
    with database.connection_context():
        created = create_match("nim", [ANN, BEN], {"pile": 9}, secret, _now())
    link = f"{base}/play/{created.tokens[0]}"
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(link)
    _controlled(page)
    manifest = page.request.get(f"{base}/manifest.webmanifest").json()
    assert manifest["start_url"] == "/me" and manifest["display"] == "standalone"

    key = page.input_value("#move-form [name=idempotency_key]")
    assert key
    context.set_offline(True)
    page.get_by_label("Your move").select_option(index=1)
    page.get_by_role("button", name="Make move").click()
    expect(page.locator("#offline-kept")).to_contain_text("Your move is kept on this device")
    with database.connection_context():
        assert Move.select().count() == 0  # nothing reached the server

    context.set_offline(False)  # the page hears "online" and asks the worker to send

    expect(page.locator(".moves, ol.moves").first).to_contain_text("take", timeout=15_000)
    with database.connection_context():
        made = list(Move.select())
    assert len(made) == 1 and made[0].seat == 0

    # The same move sent again with its key (a second flush, or a copy that had reached the
    # server before the connection dropped): answered "already made", made once.
    again = page.request.post(link, form={"move_text": "take 1", "ply": "0",
                                          "idempotency_key": key}, max_redirects=0)
    assert again.status == 303
    with database.connection_context():
        assert Move.select().count() == 1
    context.close()
    assert [problem for problem in problems if "net::ERR_INTERNET_DISCONNECTED" not in problem
            and "Failed to fetch" not in problem] == []


def test_an_address_opened_offline_shows_the_offline_page(browser: Browser, site) -> None:
    base, _secret = site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{base}/games/nim")
    _controlled(page)
    context.set_offline(True)
    page.goto(f"{base}/archive")
    expect(page.locator("h1")).to_have_text("You are offline")
    context.close()
