"""The play page in a real browser (Debian's Chromium through Playwright): a player opens the
emailed link, sees the board, picks a move and submits it, on a phone-sized screen, with the
strict CSP in force and no console errors."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from werkzeug.serving import make_server

from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.matches.creation import create_match
from pbem.web import create_app
from tests.conftest import START, free_port, make_settings
from tests.support.playing import play_randomly

pytestmark = pytest.mark.browser
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is needed for the browser tests: apt-get install chromium",
                    pytrace=False)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, object]]:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'browser.sqlite3'}"
    settings = make_settings(url, tmp_path, base_url=f"http://127.0.0.1:{port}")
    bind_database(url)
    with database.connection_context():
        migrate()
    app = create_app(settings)
    httpd = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", settings
    httpd.shutdown()


def watch_console(page: Page) -> list[str]:
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    # A script's error says on which page, and where in which script, it was thrown.
    page.on("pageerror", lambda error: problems.append(
        f"{error} on {page.url}\n{error.stack}"))
    return problems


def test_a_player_makes_a_move_from_the_emailed_link_on_a_phone(browser: Browser,
                                                                server, tmp_path) -> None:
    base, settings = server
    with database.connection_context():
        tokens = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                              settings.secret_key, START).tokens
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/play/{tokens[0]}")
    expect(page.locator("p.status")).to_contain_text("Your turn.")
    board = page.locator("svg.board")
    expect(board).to_be_visible()
    assert board.bounding_box()["width"] <= 390, "the board fits a phone screen"
    page.get_by_label("Your move").select_option("e2-e3")
    page.get_by_role("button", name="Make move").click()
    expect(page.locator(".flash")).to_contain_text("Your move e2-e3 was made.")
    expect(page.locator("p.status")).to_contain_text("Waiting for Red")
    expect(page.locator("ol.moves")).to_contain_text("e2-e3")
    page.screenshot(path=str(tmp_path / "after-move.png"), full_page=True)

    # The opponent's link shows their turn; a typed move in their own style works too.
    page.goto(f"{base}/play/{tokens[1]}")
    expect(page.locator("p.status")).to_contain_text("Your turn.")
    expect(page.locator("ol.moves")).to_contain_text("mimicked")
    listed = page.locator("#move option").last.get_attribute("value")
    page.get_by_label("or type it").fill(listed.upper().replace("-", " \u2013 "))
    page.get_by_role("button", name="Make move").click()
    expect(page.locator(".flash")).to_contain_text(f"Your move {listed} was made.")

    # A refused move is explained on the page, and the typed text is kept.
    page.goto(f"{base}/play/{tokens[0]}")
    page.get_by_label("or type it").fill("a1-a2")
    page.get_by_role("button", name="Make move").click()
    expect(page.get_by_role("alert")).to_contain_text(re.compile("a1"))
    expect(page.get_by_label("or type it")).to_have_value("a1-a2")
    # Chromium logs the refused move's 422 answer itself; nothing else may appear.
    assert [p for p in problems if "status of 422" not in p] == [], problems
    context.close()


def test_the_public_page_replays_a_match_by_clicking_through(browser: Browser, server) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                               settings.secret_key, START)
        from pbem.core.matches.creation import current_state, get_match, rules_for
        from pbem.core.matches.play import submit_move

        submit_move(created.match.id, 0, "e2-e3", 0, START)
        match = get_match(created.match.id)
        state = current_state(match)
        reply = rules_for(match).format_move(state, rules_for(match).legal_moves(state, 1)[0])
        submit_move(created.match.id, 1, reply, 1, START)
    page = browser.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/matches/{created.match.id}")
    expect(page.locator("nav.replay")).to_contain_text("after move 2 of 2")
    page.get_by_role("link", name="Previous").click()
    expect(page.locator("nav.replay")).to_contain_text("after move 1 of 2")
    page.get_by_role("link", name="First").click()
    expect(page.locator("nav.replay")).to_contain_text("after move 0 of 2")
    assert problems == [], problems
    page.close()


def test_on_a_phone_the_replay_buttons_share_one_row_and_times_never_break(
        browser: Browser, server) -> None:
    base, settings = server
    with database.connection_context():
        match = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                             settings.secret_key, START, seed=3).match
        play_randomly(match.id, 3, START, max_plies=6)
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    for query in ("?ply=3", ""):  # every button a link; then Next and Last disabled
        page.goto(f"{base}/matches/{match.id}{query}")
        boxes = [b.bounding_box() for b in page.locator("nav.replay .button").all()]
        assert len(boxes) == 4
        # An admin-console rule once stretched the enabled links to fill their row.
        assert len({round(b["y"]) for b in boxes}) == 1, boxes
        assert len({round(b["height"]) for b in boxes}) == 1, boxes
        assert max(b["width"] for b in boxes) < 390 / 3, boxes
        # A move's time stays on one line ("2026-" then "01-05" read as two dates).
        lines = page.locator("ol.moves time").evaluate_all(
            "els => els.map(e => e.getClientRects().length)")
        assert lines and set(lines) == {1}, lines
    context.close()


def test_on_a_phone_a_rules_pages_options_read_one_block_each(browser: Browser, server) -> None:
    base, _ = server
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(f"{base}/games/move-in-synch")
    # Four columns at 390 px left "What it does" a word wide, a column of single words.
    widths = page.locator("table.options td").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().width)")
    assert widths and min(widths) > 300, widths
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
