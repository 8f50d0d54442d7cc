"""The archive and a player page in Chromium: the filter form works, nothing scrolls sideways
on a phone, board images load under the strict CSP, and axe-core finds no WCAG A/AA problem."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match
from tests.conftest import START
from tests.support.playing import play_randomly
from tests.web.test_accessibility import violations
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [390, 1280])
def test_the_archive_and_a_player_page_in_a_browser(server, browser: Browser,
                                                     width: int) -> None:
    base, settings = server
    with database.connection_context():
        emails = ["ann@example.org", "ben@example.org"]
        finished = create_match("mimic", emails, {}, settings.secret_key, START, seed=10).match
        play_randomly(finished.id, 10, START)
        live = create_match("eximo", emails[::-1], {}, settings.secret_key, START, seed=3).match
        play_randomly(live.id, 3, START, max_plies=6)
        Player.update(name="Annika Lindqvist").where(Player.email == emails[0]).execute()
    context = browser.new_context(bypass_csp=False, viewport={"width": width, "height": 900})
    page = context.new_page()
    problems = watch_console(page)

    page.goto(f"{base}/matches")
    expect(page.locator("table.archive tbody tr")).to_have_count(2)
    page.select_option("select[name=game]", "eximo")
    page.click("form.filters button")
    expect(page).to_have_url(f"{base}/matches?game=eximo&player=&status=&result=")
    expect(page.locator("table.archive tbody tr")).to_have_count(1)
    page.get_by_role("link", name="Annika Lindqvist").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Annika Lindqvist")
    board = page.locator("ul.live-boards img")
    expect(board).to_have_count(1)
    board.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=board.element_handle(), timeout=10_000)
    assert "@example.org" not in page.content()
    for path in ("/matches", "/players/Annika%20Lindqvist"):
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.scrollWidth") <= width, path
    assert problems == []
    context.close()

    # axe injects its script, so only this context bypasses the CSP.
    checking = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
    page = checking.new_page()
    found = {}
    for path in ("/matches", "/matches?player=Annika%20Lindqvist",
                 "/players/Annika%20Lindqvist"):
        page.goto(base + path)
        page.wait_for_load_state("load")
        if problems := violations(page):
            found[path] = problems
    checking.close()
    assert found == {}
