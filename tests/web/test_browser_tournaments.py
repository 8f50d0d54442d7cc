"""Tournament pages in a real browser at phone (390 px) and desktop (1280 px) widths: the list,
the organiser's form, a round robin with its crosstable, a Swiss round's pairings and a
knockout's SVG bracket; nothing overflows a phone's width but the tables' own scrollers, and
the console stays clean. The screenshots go to /work/shots/tournaments when that exists."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.matches import lifecycle
from pbem.core.matches.models import Match, MatchStatus
from pbem.core.tournaments import running, service
from pbem.core.tournaments.models import Pairing, Tournament
from pbem.core.tournaments.service import Organising
from tests.conftest import START
from tests.support.players import last_mail, link_in
from tests.web.test_accessibility import violations
from tests.web.test_browser import watch_console
from tests.web.test_browser_players import site  # noqa: F401 (a fixture, below by name)

pytestmark = pytest.mark.browser
SHOTS = Path("/work/shots/tournaments")
NAMES = ["Ada", "Boris", "Chen", "Dagny", "Emeka", "Fatima", "Gus", "Hiroko"]


def _players(count: int) -> list[Player]:
    found = []
    for name in NAMES[:count]:
        player = Player.for_email(f"{name.lower()}@example.org", START)
        Player.update(name=name).where(Player.id == player.id).execute()
        found.append(Player.get_by_id(player.id))
    return found


def _finish(tournament_id: int, rng: random.Random) -> None:
    live = (Match.select(Match.id).join(Pairing, on=(Pairing.match == Match.id))
            .where(Pairing.tournament == tournament_id, Match.status == MatchStatus.ACTIVE))
    for row in live:
        lifecycle.resign(row.id, rng.choice((0, 1)), START)


def _make(fmt: str, count: int, key: str, rounds_to_play: int, **spec: object) -> int:
    players = _players(count)
    tournament = service.create_tournament(players[0], {
        "name": f"Winter {fmt.replace('-', ' ')}", "game": "mimic", "format": fmt,
        "min_players": 2, "max_players": 16, **spec}, START)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), key, START)
    rng = random.Random(count)
    for _ in range(rounds_to_play):
        _finish(tournament.id, rng)
        running.advance(key, START)
    return tournament.id


def _shoot(browser: Browser, url: str, name: str) -> None:
    for width in (390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        problems = watch_console(page)
        page.goto(url)
        expect(page.locator("h1")).to_be_visible()
        # The page never scrolls sideways; wide tables scroll inside their own box.
        overflow = page.evaluate("document.documentElement.scrollWidth")
        assert overflow <= width, f"{name} at {width}px is {overflow}px wide"
        if SHOTS.exists():
            page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
        assert problems == [], problems
        context.close()
        # axe-core's WCAG 2 A and AA rules (injected, so this context lets scripts in).
        checking = browser.new_context(bypass_csp=True, viewport={"width": width,
                                                                  "height": 900})
        page = checking.new_page()
        page.goto(url)
        assert violations(page) == [], (name, width)
        checking.close()


def test_tournament_pages_at_phone_and_desktop_widths(browser: Browser, server) -> None:
    base, settings = server
    with database.connection_context():
        robin = _make("round-robin", 5, settings.secret_key, 1)
        swiss = _make("swiss", 8, settings.secret_key, 2, rounds=4)
        knockout = _make("knockout", 6, settings.secret_key, 2)
        match_id = Pairing.select().where(Pairing.tournament == swiss,
                                          Pairing.match.is_null(False)).first().match_id
        assert Tournament.get_by_id(robin).status == "finished"
    _shoot(browser, f"{base}/tournaments", "list")
    _shoot(browser, f"{base}/tournaments/{robin}", "round-robin")
    _shoot(browser, f"{base}/tournaments/{swiss}", "swiss")
    _shoot(browser, f"{base}/tournaments/{knockout}", "knockout")
    page = browser.new_page()
    page.goto(f"{base}/tournaments/{robin}")
    expect(page.locator("table.crosstable")).to_be_visible()
    expect(page.locator("h2", has_text="Final standings")).to_be_visible()
    page.goto(f"{base}/tournaments/{knockout}")
    expect(page.locator("svg.bracket rect")).to_have_count(7)  # 4 + 2 + 1 ties
    page.goto(f"{base}/matches/{match_id}")
    page.get_by_role("link", name="Winter swiss").click()
    expect(page.locator("h1")).to_have_text("Winter swiss")
    page.close()


def test_an_organiser_fills_in_the_form_in_a_browser(browser: Browser, request, smtp) -> None:
    base, worker = request.getfixturevalue("site")  # a server that mails over SMTP
    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        problems = watch_console(page)
        page.goto(f"{base}/signin?next=/tournaments/new")
        page.get_by_label("Your email address").fill("ann@example.org")
        page.get_by_role("button", name="Email me a sign-in link").click()
        with database.connection_context():
            worker.run_once()
        page.goto(base + link_in(last_mail(smtp, "ann@example.org", "sign-in"), "/signin/"))
        page.get_by_role("button", name="Sign in").click()
        page.goto(f"{base}/tournaments/new")
        page.get_by_label("Name", exact=True).fill(f"Autumn cup {width}")
        page.locator("#game").select_option("mimic")
        page.locator("#format").select_option("swiss")
        if SHOTS.exists():
            page.screenshot(path=str(SHOTS / f"new-{width}.png"), full_page=True)
        wide = page.evaluate("""[...document.querySelectorAll('main *')]
            .filter(e => e.getBoundingClientRect().right > window.innerWidth)
            .map(e => e.tagName + '#' + e.id + '.' + e.className)""")
        assert page.evaluate("document.documentElement.scrollWidth") <= width, wide
        page.get_by_role("button", name="Create tournament").click()
        expect(page.locator("h1")).to_have_text(f"Autumn cup {width}")
        page.get_by_role("button", name="Join").click()
        expect(page.locator(".flash")).to_contain_text("You are in")
        assert problems == [], problems
        context.close()
