"""An automated accessibility check (axe-core, WCAG 2 A and AA rules) of every game's play page,
with the click-to-move buttons in place, and of its public replay page, on a phone screen and a
desktop one. axe-core comes with the `axe-playwright-python` test dependency (a PyPI package
that ships `axe.min.js`); the test injects it into the page, so that one context bypasses the
CSP for the injected script."""

from __future__ import annotations

import random
from importlib.resources import files

import pytest
from playwright.sync_api import Browser, Page

from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match, current_state, get_match, rules_for
from pbem.core.matches.play import submit_move
from pbem.games import GAMES as REGISTERED
from tests.conftest import START

pytestmark = pytest.mark.browser
AXE = files("axe_playwright_python") / "axe.min.js"
EMAILS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]
# Every registered game, at its smallest table (read from the registry, never listed here).
GAMES = {game.slug: min(game.player_counts) for game in REGISTERED}


def violations(page: Page) -> list[str]:
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {runOnly: ["wcag2a", "wcag2aa", "wcag21a",
                                                          "wcag21aa"]});
        return result.violations.map(v => v.id + ": " + v.help + " at " +
            v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", "));
    }""")
    return list(found)


@pytest.mark.parametrize("width", [390, 1280])
def test_every_game_page_passes_axe(server, browser: Browser, width: int) -> None:
    base, settings = server
    pages = []
    with database.connection_context():
        for game, players in GAMES.items():
            created = create_match(game, EMAILS[:players], {}, settings.secret_key, START)
            rng = random.Random(5)
            for ply in range(5):  # a few moves, so last-move marks and move lists show
                match = get_match(created.match.id)
                rules, state = rules_for(match), current_state(match)
                seat = sorted(rules.to_move(state))[0]
                move = rng.choice(list(rules.legal_moves(state, seat)))
                submit_move(match.id, seat, rules.format_move(state, move), ply, START)
            state = current_state(get_match(created.match.id))
            seat = sorted(rules_for(created.match).to_move(state))[0]
            pages += [f"{base}/play/{created.tokens[seat]}", f"{base}/matches/{created.match.id}",
                      f"{base}/matches/{created.match.id}?ply=2"]
    context = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
    page = context.new_page()
    problems = {}
    for url in pages:
        page.goto(url)
        page.wait_for_load_state("load")
        found = violations(page)
        # axe let white-on-white replay links through once (a later `a.button` rule gave
        # them white text): their words must show in their own colours.
        for link in page.query_selector_all("nav.replay a.button"):
            ink, paper = link.evaluate(
                "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]")
            if ink == paper:
                found.append(f"replay link {link.inner_text()!r} is drawn {ink} on {paper}")
        if found:
            problems[url.replace(base, "")] = found
    context.close()
    assert problems == {}, problems
