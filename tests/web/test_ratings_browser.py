"""Ratings in a real Chromium, at phone and desktop widths: a game's leaderboard, a player's
page with the rating-history chart (SVG drawn by the server, no script), and a seek asking for
a rating range, seen by a player inside it. Screenshots go to $PBEM_SHOTS (default: the
test's temporary folder)."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from werkzeug.serving import make_server

from pbem.clock import utcnow
from pbem.core.accounts import sessions
from pbem.core.accounts.models import Player
from pbem.core.accounts.sessions import SessionPolicy
from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.lobby.seeks import create_seek
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Resign
from pbem.core.ratings.models import Rating
from pbem.web import create_app
from tests.conftest import SUPPORT_TEMPLATES, free_port, make_settings
from tests.web.test_browser import watch_console
from tests.web.test_browser_players import shoot

pytestmark = pytest.mark.browser
RANGE_TEXT = "for ratings 900\u20131400"  # an en dash, as the page writes it
NAMES = ["Ada", "Boris", "Chen", "Dagny", "Emeka", "Farah", "Gus", "Hiro", "Ines", "Jules",
         "Kofi", "Lena"]
# Stronger players win more often, so the board has a shape.
STRENGTH = {name: 1.0 + index * 0.35 for index, name in enumerate(reversed(NAMES))}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, object]]:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'ratings.sqlite3'}"
    settings = make_settings(url, tmp_path, base_url=f"http://127.0.0.1:{port}",
                             development=True)
    bind_database(url)
    with database.connection_context():
        migrate()
        _fill(settings)
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    httpd = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", settings
    httpd.shutdown()


def _fill(settings) -> None:
    rng = random.Random(27)
    start = utcnow() - timedelta(days=120)
    for name in NAMES:
        Player.update(name=name).where(
            Player.id == Player.for_email(f"{name.lower()}@example.org", start).id).execute()
    for number in range(220):
        at = start + timedelta(hours=12 * number)
        a, b = rng.sample(NAMES, 2)
        match = create_match("eximo", [f"{a.lower()}@example.org", f"{b.lower()}@example.org"],
                             {}, settings.secret_key, at, rated=True).match
        a_wins = rng.random() < STRENGTH[a] / (STRENGTH[a] + STRENGTH[b])
        apply_change(match.id, Resign(seat=1 if a_wins else 0), at)
    ada = Player.get(Player.name == "Ada")
    create_seek(settings, ada, "eximo", {}, "3d", 2, utcnow(), rated=True,
                rating_min=900, rating_max=1400)


def test_leaderboard_player_chart_and_ranged_seek(browser: Browser, site, tmp_path) -> None:
    base, settings = site
    with database.connection_context():
        board = list(Rating.select().order_by(Rating.display.desc()))
        inside = next(r for r in board if 900 <= r.display <= 1400 and r.player.name != "Ada")
        outside = next(r for r in board if not 900 <= r.display <= 1400
                       and r.player.name != "Ada")
        cookies = {}
        for row in (inside, outside):
            cookies[row.player.name] = sessions.start(
                settings.secret_key, "player", utcnow(), SessionPolicy.from_days(30, 90),
                player=row.player)
    for width in (390, 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        problems = watch_console(page)
        page.goto(f"{base}/ratings/eximo")
        expect(page.get_by_role("heading", name="Eximo: leaderboard")).to_be_visible()
        expect(page.locator("table.board tbody tr")).to_have_count(len(NAMES))
        shoot(page, "ratings-leaderboard", tmp_path)

        page.goto(f"{base}/players/{board[0].player.name}?vs={board[1].player.name}")
        chart = page.locator("svg.rating-chart")
        expect(chart).to_be_visible()
        assert chart.bounding_box()["width"] <= width
        expect(page.locator("table.versus")).to_be_visible()
        shoot(page, "ratings-player", tmp_path)

        context.add_cookies([{"name": "pbem_player", "value": cookies[inside.player.name],
                              "url": base}])
        page.goto(f"{base}/seeks")
        expect(page.get_by_text(RANGE_TEXT)).to_be_visible()
        shoot(page, "ratings-seek", tmp_path)
        context.clear_cookies()
        context.add_cookies([{"name": "pbem_player", "value": cookies[outside.player.name],
                              "url": base}])
        page.goto(f"{base}/seeks")
        expect(page.get_by_text(RANGE_TEXT)).to_have_count(0)
        assert problems == []
        context.close()
