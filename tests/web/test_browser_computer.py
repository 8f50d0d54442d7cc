"""Playing the computer in a real Chromium: Ann signs in, starts a match against the computer
from the "Play the computer" form, clicks her move on the board, the worker's computer job
answers, and her page shows the computer's move and her turn again. The form and the match
page are shot at 390 and 1280 px (PBEM_SHOTS names a folder to keep them)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect

from pbem.core.db.connection import database
from pbem.core.matches.models import Match, Move
from tests.support.players import last_mail, link_in
from tests.web.test_board_clicks import turn
from tests.web.test_browser import watch_console
from tests.web.test_browser_players import deliver, shoot, site  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser
ANN = "ann@example.org"


@pytest.mark.parametrize("width", [390, 1280])
def test_a_move_clicked_on_the_board_is_answered_by_the_computer(
        browser: Browser, site, smtp, tmp_path, width: int) -> None:  # noqa: F811
    base, worker = site
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/me")
    page.get_by_label("Your email address").fill(ANN)
    page.get_by_role("button", name="Email me a sign-in link").click()
    deliver(worker)
    page.goto(base + link_in(last_mail(smtp, ANN, "sign-in"), "/signin/"))
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("h1")).to_have_text("Your games")
    shoot(page, "computer-me", tmp_path)

    page.goto(f"{base}/computer")
    page.get_by_label("Game", exact=True).select_option("mimic")
    page.get_by_label("Level").select_option("1")
    page.get_by_label("Your seat").select_option("0")
    shoot(page, "computer-form", tmp_path)
    page.get_by_role("button", name="Play the computer").click()
    expect(page.locator(".flash").first).to_contain_text("against the computer has started")
    expect(page.locator("body")).to_contain_text("Computer (level 1)")
    token = page.url.rsplit("/play/", 1)[1].split("?")[0]

    with database.connection_context():
        match_id = Match.select(Match.id).scalar()
    for ply in (0, 2):
        seat, entries = turn(match_id)
        assert seat == 0
        entry = entries[0]
        for name in entry["clicks"]:
            page.get_by_role("button", name=name, exact=True).first.click()
        page.get_by_role("button", name="Submit move").click()
        expect(page.locator(".flash").first).to_contain_text(
            f"Your move {entry['move']} was made")
        with database.connection_context():
            assert worker.computer_moves().moved == 1
            answer = Move.get(Move.match == match_id, Move.ply == ply + 2)
        page.goto(f"{base}/play/{token}")
        moves = page.locator("ol.moves, .moves")
        expect(moves.first).to_contain_text(answer.text)
        expect(page.locator("body")).to_contain_text("Your turn")
    shoot(page, "computer-match", tmp_path)
    page.goto(f"{base}/games/mimic")
    expect(page.locator("#play-computer")).to_contain_text("Play the computer")
    shoot(page, "computer-rules-page", tmp_path)
    assert problems == []
    context.close()
