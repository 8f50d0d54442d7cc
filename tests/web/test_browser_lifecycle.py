"""Resign with its confirmation step, and a draw offered and accepted, in Chromium, at phone
and desktop widths, with the strict CSP in force and no console errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match
from tests.conftest import START
from tests.web.test_browser import browser, server, watch_console

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # the fixtures, shared with the other browser tests
SHOTS = Path("/tmp/shots/door")


@pytest.mark.parametrize("width", [390, 1280])
def test_resigning_asks_for_confirmation_first(browser: Browser, server, width: int) -> None:
    base, settings = server
    with database.connection_context():
        tokens = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                              settings.secret_key, START).tokens
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/play/{tokens[0]}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"play-actions-{width}.png"), full_page=True)
    page.get_by_role("button", name="Resign").click()
    expect(page.locator("h1")).to_have_text("Resign?")
    page.screenshot(path=str(SHOTS / f"confirm-resign-{width}.png"), full_page=True)
    # Changing one's mind changes nothing.
    page.get_by_role("link", name="No, back to the board").click()
    expect(page.locator("p.status")).to_contain_text("Your turn.")
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("button", name="Yes: resign").click()
    expect(page.locator(".flash")).to_contain_text("You resigned.")
    expect(page.locator("p.status")).to_contain_text("Match over.")
    expect(page.get_by_role("button", name="Resign")).to_have_count(0)
    page.screenshot(path=str(SHOTS / f"resigned-{width}.png"), full_page=True)
    assert problems == [], problems
    context.close()


def test_a_draw_is_offered_and_accepted(browser: Browser, server) -> None:
    base, settings = server
    with database.connection_context():
        tokens = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                              settings.secret_key, START).tokens
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/play/{tokens[0]}")
    page.get_by_label("Your move").select_option("e2-e3")
    page.get_by_label("offer a draw with this move").check()
    page.get_by_role("button", name="Make move").click()
    expect(page.locator(".flash")).to_contain_text("You offered a draw.")
    expect(page.locator(".notice")).to_contain_text("You offered a draw.")

    page.goto(f"{base}/play/{tokens[1]}")
    expect(page.locator(".notice")).to_contain_text("Blue offers a draw.")
    page.screenshot(path=str(SHOTS / "draw-offered-390.png"), full_page=True)
    page.get_by_role("button", name="Accept the draw").click()
    expect(page.locator("h1")).to_have_text("Accept the draw?")
    page.get_by_role("button", name="Yes: accept the draw").click()
    expect(page.locator(".flash")).to_contain_text("The match is drawn by agreement.")
    expect(page.locator("p.status")).to_contain_text("The match is drawn")
    page.screenshot(path=str(SHOTS / "drawn-390.png"), full_page=True)
    assert problems == [], problems
    context.close()
