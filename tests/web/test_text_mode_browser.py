"""Text mode in a real browser, with the keyboard alone: for every game a whole match (short
options where the game has them), each seat reaching the Text mode button by Tab from the top
of its page, reading the position by commands and typing each move, every answer read from
the live region. Then an aria snapshot of each game's text view, and axe on the text mode page
in English, German and Japanese."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match, current_state, get_match, rules_for
from tests.conftest import START
from tests.web.test_accessibility import violations
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser
EMAILS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]
MATCHES = [("mimic", 2, {}), ("eximo", 2, {}), ("frozen-forest", 2, {"forest_size": 8}),
           ("move-in-synch", 2, {"size": 4}), ("mimic-taking", 3, {})]
MOST_PLIES = 400


def _to_move(match_id: int) -> int | None:
    with database.connection_context():
        match = get_match(match_id)
        if match.status != "active":
            return None
        return sorted(rules_for(match).to_move(current_state(match)))[0]


def _ask(page: Page, line: str) -> str:
    command = page.locator("#text-line")
    command.fill(line)
    region = page.locator("#text-mode")
    before = region.inner_text()
    command.press("Enter")
    # Checked at every frame, not at Playwright's retry steps (100 ms and up): a whole match
    # is hundreds of these.
    page.wait_for_function("before => document.querySelector('#text-mode').innerText !== before",
                           arg=before, polling="raf", timeout=10_000)
    return region.inner_text()


def _turn_text_mode_on(page: Page) -> None:
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.textContent")
    assert focused == "Text mode"
    page.keyboard.press("Enter")
    expect(page.locator("#text-line")).to_be_focused()


def _choices(match_id: int, seat: int) -> tuple[list[str], list[str]]:
    """The seat's legal moves in notation, and those among them that end the match at once
    (chosen when there are any, so random matches stay short)."""
    with database.connection_context():
        match = get_match(match_id)
        rules, state = rules_for(match), current_state(match)
        legal = list(rules.legal_moves(state, seat))
        ending = [move for move in legal
                  if rules.outcome(rules.apply_move(state, seat, move).state) is not None]
        return ([rules.format_move(state, move) for move in legal],
                [rules.format_move(state, move) for move in ending])


@pytest.mark.parametrize(("game", "players", "options"), MATCHES, ids=[m[0] for m in MATCHES])
def test_a_whole_match_in_text_mode_by_keyboard(server, browser: Browser, game: str,
                                               players: int, options: dict) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match(game, EMAILS[:players], options, settings.secret_key, START,
                               seed=11)
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    problems = watch_console(page)
    switched: set[int] = set()
    rng = random.Random(5)
    for ply in range(MOST_PLIES):
        seat = _to_move(created.match.id)
        if seat is None:
            break
        page.goto(f"{base}/play/{created.tokens[seat]}", wait_until="domcontentloaded")
        if seat not in switched:
            _turn_text_mode_on(page)
            switched.add(seat)
        legal, ending = _choices(created.match.id, seat)
        # Each seat's first turn and every few plies after, the seat hears its legal moves
        # (the rest of the time the test knows them: each command is a round trip).
        if len(switched) > ply or ply % 7 == 0:
            heard = re.search(r"legal moves?: (.+)\.$", _ask(page, "moves"))
            assert heard, "the seat to move hears its legal moves"
            assert sorted(heard.group(1).split(", ")) == sorted(legal)
        move = rng.choice(ending or legal)
        assert f"Your move {move} was made." in _ask(page, move)
    else:
        pytest.fail(f"{game} did not end in {MOST_PLIES} moves")
    assert "Match over." in page.locator("#text-last").inner_text() or _to_move(
        created.match.id) is None
    assert problems == []
    context.close()


def test_reading_commands_answer_in_the_live_region(server, browser: Browser) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", EMAILS[:2], {}, settings.secret_key, START, seed=3)
    page = browser.new_context(viewport={"width": 320, "height": 700}).new_page()
    page.goto(f"{base}/play/{created.tokens[0]}")
    _turn_text_mode_on(page)
    assert "Row 2: b2 B, c2 B" in _ask(page, "row 2")
    assert "b9: R." in _ask(page, "square b9")
    assert "Not played:" in _ask(page, "b2-b9")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    # The command line takes the moves: no move form, no click controls under it.
    expect(page.locator("#move-form")).to_have_count(0)
    expect(page.locator("#pbem-clicks")).to_have_count(0)
    # The other player's chat message, arriving while the page stays, is said in the region.
    said = page.request.post(f"{base}/api/play/{created.tokens[1]}/chat",
                             data={"text": "Good luck!"})
    assert said.status == 201
    expect(page.locator("#text-mode")).to_contain_text("Good luck!", timeout=15_000)
    assert "Chat, " in page.locator("#text-mode").inner_text()


@pytest.mark.parametrize(("game", "players"), [(m[0], m[1]) for m in MATCHES])
def test_the_text_view_of_each_game(server, browser: Browser, game: str, players: int) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match(game, EMAILS[:players], {}, settings.secret_key, START, seed=3)
        seat = sorted(rules_for(created.match).to_move(current_state(created.match)))[0]
    page = browser.new_page()
    page.goto(f"{base}/play/{created.tokens[seat]}")
    _turn_text_mode_on(page)
    snapshot = page.locator("section.text-mode").aria_snapshot()
    assert '- heading "Text mode" [level=2]' in snapshot
    assert '- status' in snapshot and "Text mode is on" in snapshot
    assert '- textbox "Command or move"' in snapshot
    assert '- button "Send"' in snapshot
    assert "- code: help" in snapshot and "- code: moves" in snapshot
    if game == "mimic-taking":
        assert "- code: hand" in snapshot and "- code: row" not in snapshot
    else:
        assert "- code: row" in snapshot and "- code: square" in snapshot


@pytest.mark.parametrize("code", ["en", "de", "ja"])
def test_text_mode_passes_axe_in_every_language(server, browser: Browser, code: str) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("mimic-taking", EMAILS[:3], {}, settings.secret_key, START)
        seat = sorted(rules_for(created.match).to_move(current_state(created.match)))[0]
    context = browser.new_context(bypass_csp=True, viewport={"width": 390, "height": 900})
    context.add_cookies([{"name": "pbem_lang", "value": code, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/play/{created.tokens[seat]}")
    page.locator("form.text-toggle button").press("Enter")
    page.locator("#text-line").fill("hand")
    page.locator("#text-line").press("Enter")
    expect(page.locator("#text-mode")).to_contain_text("hand:")
    assert page.locator("html").get_attribute("lang") == code
    assert violations(page) == []
    context.close()


def _mimic_at_320(server, browser: Browser, code: str) -> tuple[Any, Any, Page, list[str]]:
    """A new Mimic match, and a phone-wide page in `code`'s language (with axe allowed in),
    its console watched."""
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", EMAILS[:2], {}, settings.secret_key, START, seed=3)
    context = browser.new_context(bypass_csp=True, viewport={"width": 320, "height": 800})
    context.add_cookies([{"name": "pbem_lang", "value": code, "url": base}])
    page = context.new_page()
    return created, context, page, watch_console(page)


@pytest.mark.parametrize("code", ["en", "de", "ja"])
def test_the_match_page_text_view_by_keyboard(server, browser: Browser, code: str) -> None:
    """A spectator on the public match page: the toggle first after the skip link, the
    position read by commands in the live region, a move refused as no command; axe clean."""
    base = server[0]
    created, context, page, problems = _mimic_at_320(server, browser, code)
    page.goto(f"{base}/matches/{created.match.id}")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('form').className") == "text-toggle"
    page.keyboard.press("Enter")
    expect(page.locator("#text-line")).to_be_focused()
    expect(page.locator("svg.board")).to_have_count(0)
    assert "b2 B, c2 B" in _ask(page, "row 2")
    assert "b2-b3" in _ask(page, "b2-b3")
    with database.connection_context():
        assert get_match(created.match.id).ply == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    assert page.locator("html").get_attribute("lang") == code
    assert violations(page) == []
    assert problems == []
    context.close()


@pytest.mark.parametrize("code", ["en", "de", "ja"])
def test_typed_moves_play_the_analysis_line(server, browser: Browser, code: str) -> None:
    """In text mode, the analysis board takes typed moves as its clicks: the line is said in
    its live region; a refused move is read out and taken off the line again."""
    base = server[0]
    created, context, page, problems = _mimic_at_320(server, browser, code)
    page.goto(f"{base}/play/{created.tokens[0]}")
    page.locator("form.text-toggle button").press("Enter")
    mine = page.request.get(f"{base}/api/play/{created.tokens[0]}").json()["legal_moves"][0]
    _ask(page, mine)  # now the opponent is to move: the analysis board plays their answer
    page.reload()
    page.locator("#analysis-open").press("Enter")
    expect(page.locator("#analysis-line")).not_to_be_empty()
    theirs = page.request.get(f"{base}/api/play/{created.tokens[1]}").json()["legal_moves"][0]
    page.locator("#analysis-move").fill(theirs)
    page.locator("#analysis-move").press("Enter")
    expect(page.locator("#analysis-line")).to_contain_text(theirs)
    page.locator("#analysis-move").fill("z9-z9")
    page.locator("#analysis-move").press("Enter")
    expect(page.locator("#analysis-error")).not_to_be_empty()
    expect(page.locator("#analysis-line")).not_to_contain_text("z9-z9")
    with database.connection_context():
        assert get_match(created.match.id).ply == 1
    assert violations(page) == []
    # The refused line's 422 is the browser's note of the refusal read out above.
    assert [p for p in problems if "422" not in p] == []
    context.close()


def test_the_analysis_board_in_text_mode_reads_its_line(server, browser: Browser) -> None:
    """In text mode the analysis board draws no picture: its line's position is text, and
    text mode's commands typed in its box read the position after a move typed there."""
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", EMAILS[:2], {}, settings.secret_key, START, seed=3)
    page = browser.new_context(viewport={"width": 390, "height": 800}).new_page()
    problems = watch_console(page)
    page.goto(f"{base}/play/{created.tokens[1]}")  # Red waits: the line starts with Blue
    _turn_text_mode_on(page)
    page.locator("#analysis-open").press("Enter")
    analysis = page.locator("#analysis")
    expect(analysis.locator("#analysis-status")).to_contain_text("Blue to move: type a move")
    expect(analysis.locator("svg, #analysis-board")).to_have_count(0)
    expect(analysis.locator("#analysis-text")).to_contain_text("B = Blue")
    box, said = page.locator("#analysis-move"), page.locator("#analysis-said")
    page.keyboard.press("Tab")  # from the open button to the line's box
    expect(box).to_be_focused()
    page.keyboard.type("b2-b3")
    page.keyboard.press("Enter")
    expect(page.locator("#analysis-line")).to_contain_text("b2-b3")
    page.keyboard.type("square b3")
    page.keyboard.press("Enter")
    expect(said).to_have_text("square b3: b3: B.")
    assert said.get_attribute("role") == "status"
    page.keyboard.type("moves")
    page.keyboard.press("Enter")
    expect(said).to_contain_text("c9-c8")
    expect(box).to_be_focused()
    with database.connection_context():
        assert get_match(created.match.id).ply == 0, "nothing is played"
    assert problems == []
