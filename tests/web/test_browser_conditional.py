"""The analysis board and conditional moves in a real browser: a waiting player plays a line
for both sides by clicking, takes a move back, stores the line, and sees it played at once
when the opponent makes the expected move; without JavaScript the same lines are typed in a
form. Screenshots of the page at 390 and 1280 px are written under /work/shots/conditional
when PBEM_SHOTS is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from pbem.core.db.connection import database
from pbem.core.matches import conditional
from pbem.core.matches.creation import create_match, get_match
from pbem.core.matches.play import submit_move
from tests.conftest import START
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser
EMAILS = ["ann@example.org", "ben@example.org"]
SHOTS = Path(os.environ.get("PBEM_SHOTS", ""))


def waiting_mimic(settings) -> tuple[int, list[str]]:
    """A Mimic match where Ann (Blue) has moved and waits for Ben (Red)."""
    with database.connection_context():
        created = create_match("mimic", EMAILS, {}, settings.secret_key, START)
        submit_move(created.match.id, 0, "b2-b3", 0, START)
    return created.match.id, created.tokens


def click(page: Page, *names: str) -> None:
    board = page.locator("#analysis")
    for name in names:
        board.get_by_role("button", name=name, exact=True).first.click()


def shoot(page: Page, name: str) -> None:
    if os.environ.get("PBEM_SHOTS"):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / name), full_page=True)


@pytest.mark.parametrize("width", [390, 1280])
def test_a_line_is_played_by_clicking_stored_and_then_played(browser: Browser, server,
                                                              width: int) -> None:
    base, settings = server
    match_id, (ann, _ben) = waiting_mimic(settings)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/play/{ann}")
    analysis = page.locator("#analysis")
    expect(analysis).to_be_visible()
    page.get_by_role("button", name="Open the analysis board").click()
    expect(page.locator("#analysis-status")).to_contain_text("Red to move")
    click(page, "c9", "c8")  # Red's move, as Ann expects it
    expect(page.locator("#analysis-line")).to_contain_text("they c9-c8")
    expect(page.locator("#analysis-status")).to_contain_text("You to move")
    click(page, "e2", "e3")
    expect(page.locator("#analysis-line")).to_contain_text("you e2-e3")
    page.get_by_role("button", name="Take back", exact=True).click()
    expect(page.locator("#analysis-line")).not_to_contain_text("e2-e3")
    expect(page.get_by_role("button", name="Store this line as a conditional move")) \
        .to_be_disabled()
    click(page, "d2", "d3")
    expect(page.locator("#analysis-line")).to_contain_text("you d2-d3")
    with database.connection_context():
        assert get_match(match_id).ply == 1, "the analysis board sends nothing"
    shoot(page, f"analysis-{width}.png")
    page.get_by_role("button", name="Store this line as a conditional move").click()
    expect(page.locator("#conditional-lines")).to_contain_text("if c9-c8 then d2-d3")
    with database.connection_context():
        assert conditional.stored(get_match(match_id), 0).lines == [["c9-c8", "d2-d3"]]
    page.get_by_role("button", name="Open the analysis board").click()
    expect(page.locator("#analysis-status")).to_contain_text("Red to move")
    shoot(page, f"stored-{width}.png")
    # Ben's move meets the line; Ann's page (it polls) shows her answer played at once.
    with database.connection_context():
        result = submit_move(match_id, 1, "c9-c8", 1, START)
    assert result.answered_with == "d2-d3"
    page.goto(f"{base}/play/{ann}")
    expect(page.locator("ol.moves")).to_contain_text("(conditional)")
    assert page.locator("body").evaluate("b => b.scrollWidth") <= width
    assert not problems, problems
    context.close()


def test_without_javascript_lines_are_typed_in_a_form(browser: Browser, server) -> None:
    base, settings = server
    match_id, (ann, ben) = waiting_mimic(settings)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390,
                                                                         "height": 900})
    page = context.new_page()
    page.goto(f"{base}/play/{ann}")
    expect(page.locator("#analysis")).to_be_hidden()
    page.get_by_label("Your lines").fill("if c9-c8 then d2-d5")
    page.get_by_role("button", name="Store conditional moves").click()
    expect(page.locator(".flash.error")).to_contain_text("not stored")
    expect(page.locator(".flash.error")).to_contain_text("d2-d5")
    expect(page.get_by_label("Your lines")).to_have_value("if c9-c8 then d2-d5")
    page.get_by_label("Your lines").fill("if c9-c8 then d2-d3\nwhen i9-i8 play h2-h3")
    page.get_by_role("button", name="Store conditional moves").click()
    expect(page.locator(".flash").first).to_contain_text("Stored 2 conditional lines")
    expect(page.locator("#conditional-lines")).to_contain_text("if i9-i8 then h2-h3")
    # Ben sees nothing of them, on his page or the public one.
    for address in (f"{base}/play/{ben}", f"{base}/matches/{match_id}"):
        page.goto(address)
        assert "d2-d3" not in page.content()
    page.goto(f"{base}/play/{ann}")
    page.get_by_role("button", name="Clear them").click()
    expect(page.locator("#conditional-none")).to_be_visible()
    context.close()


def test_the_analysis_board_is_walked_by_keyboard_and_says_what_is_on_a_square(
        browser: Browser, server) -> None:
    base, settings = server
    _match_id, (ann, _ben) = waiting_mimic(settings)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base}/play/{ann}")
    page.get_by_role("button", name="Open the analysis board").click()
    expect(page.locator("#analysis-status")).to_contain_text("Red to move")
    square = page.locator("#analysis-board [data-click='c9']")
    expect(square).to_have_attribute("aria-description", "Red checker")
    square.focus()
    # As on the board above: arrow keys walk square by square, legal or not.
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "c8"
    page.close()
