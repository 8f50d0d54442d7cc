"""Every board is usable on a 320 px screen (WCAG 2.2, 2.5.8): nothing scrolls the page
sideways, and no target (a square, a card, a button, a field) is smaller than 24 x 24 CSS
pixels. A board too wide for the screen (Move In Synch at 19 x 19) keeps its squares large and
scrolls inside its frame, keyboard included, with its rank numbers kept in sight; it passes
axe there too. Measured in Chromium, on the seat to move's page, with the page's script on."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page

from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match, current_state, get_match, rules_for
from pbem.games import GAMES as REGISTERED
from pbem.games.boards import grid
from tests.conftest import START
from tests.support.playing import add_salts
from tests.web.test_accessibility import violations

pytestmark = pytest.mark.browser
EMAILS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]
TABLES = [(game.slug, min(game.player_counts), {}) for game in REGISTERED] + [
    ("move-in-synch", 2, {"size": 19}), ("move-in-synch", 2, {"size": 11})]
# What a finger or a pointer aims at on a play page.
TARGETS = ("[data-click], button, input:not([type=hidden]), select, textarea, summary, "
           "a.button, .board-scroll")
SMALL = """sel => [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length)
    .map(e => [e.outerHTML.slice(0, 80), e.getBoundingClientRect()])
    .filter(([, r]) => r.width < 24 || r.height < 24)
    .map(([html, r]) => `${html} is ${r.width.toFixed(1)} x ${r.height.toFixed(1)}`)"""


def _seat_page(base: str, settings, game: str, players: int, options: dict) -> str:
    with database.connection_context():
        created = create_match(game, EMAILS[:players], options, settings.secret_key, START)
        add_salts(created.match.id, START)  # a board with cards, after the Fair deal's salts
        state = current_state(get_match(created.match.id))
        seat = sorted(rules_for(created.match).to_move(state))[0]
    return f"{base}/play/{created.tokens[seat]}"


@pytest.mark.parametrize(("game", "players", "options"), TABLES,
                         ids=[f"{g}-{o.get('size', '')}" for g, _p, o in TABLES])
def test_every_board_is_usable_at_320_px(server, browser: Browser, game: str, players: int,
                                         options: dict) -> None:
    base, settings = server
    context = browser.new_context(viewport={"width": 320, "height": 700})
    page = context.new_page()
    page.goto(_seat_page(base, settings, game, players, options))
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    assert page.locator("[data-click]").count() > 0, "the seat to move has targets"
    small = page.evaluate(SMALL, TARGETS)
    assert small == [], "\n".join(small)
    if options.get("size", 0) >= grid.WIDE_FROM:
        _scrolls_with_its_ranks_in_sight(page, grid.FILES[options["size"] - 1])
    context.close()


def _scrolls_with_its_ranks_in_sight(page: Page, last_file: str) -> None:
    frame = page.locator(".board-scroll")
    strip = page.locator(".rank-strip")
    assert frame.evaluate("e => e.scrollWidth > e.clientWidth")
    frame.focus()
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    assert frame.evaluate("e => e.scrollLeft") > 0, "the keyboard scrolls the board"
    frame.evaluate("e => e.scrollLeft = e.scrollWidth")
    box, held = frame.bounding_box(), strip.bounding_box()
    assert box and held and abs(held["x"] - box["x"]) < 1 and held["width"] > 10
    # The last file's squares are on screen now, inside the frame.
    last = page.locator(f"[data-click='{last_file}1']").bounding_box()
    assert last and box["x"] <= last["x"] and last["x"] + last["width"] <= box["x"] + box[
        "width"] + 1


def test_the_wide_board_passes_axe_at_320_px(server, browser: Browser) -> None:
    base, settings = server
    context = browser.new_context(bypass_csp=True, viewport={"width": 320, "height": 700})
    page = context.new_page()
    page.goto(_seat_page(base, settings, "move-in-synch", 2, {"size": 19}))
    assert violations(page) == []
    context.close()


def test_a_wide_board_is_still_one_picture_for_the_archive(settings, client) -> None:
    created = create_match("move-in-synch", EMAILS[:2], {"size": 19}, settings.secret_key,
                           START)
    picture = client.get(f"/matches/{created.match.id}/board.svg")
    assert picture.status_code == 200 and picture.mimetype == "image/svg+xml"
    text = picture.get_data(as_text=True)
    assert text.count("<svg") == 1 and 'class="board' in text and "rank-strip" not in text
