"""The players' story in a real Chromium, mail over real SMTP on loopback: Ann signs in by
the emailed link, challenges Ben, Ben accepts from his invitation on a phone (which signs him
in), and Ann makes the first move from her home page. Screenshots of every new page at phone
and desktop widths go to $PBEM_SHOTS (default: the test's temporary folder)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from pbem.web import create_app
from pbem.worker import Worker
from tests.conftest import START, SUPPORT_TEMPLATES, SMTPRecorder, free_port, make_settings
from tests.support.players import last_mail, link_in
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser
ANN, BEN = "ann@example.org", "ben@example.org"


@pytest.fixture
def site(tmp_path: Path, smtp: SMTPRecorder) -> Iterator[tuple[str, Worker]]:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'players.sqlite3'}"
    # Development mode: the cookies are not Secure, as the server speaks plain http.
    settings = make_settings(url, tmp_path, base_url=f"http://127.0.0.1:{port}",
                             smtp_host=smtp.host, smtp_port=smtp.port, development=True)
    bind_database(url)
    with database.connection_context():
        migrate()
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    httpd = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", Worker(settings)
    httpd.shutdown()


def deliver(worker: Worker) -> None:
    with database.connection_context():
        worker.run_once()


def shoot(page: Page, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("PBEM_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"] if page.viewport_size else 0
    page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)


def test_sign_in_challenge_accept_and_first_move(browser: Browser, site, smtp,
                                                 tmp_path) -> None:
    base, worker = site
    ann_context = browser.new_context(viewport={"width": 1280, "height": 900})
    ann = ann_context.new_page()
    problems = watch_console(ann)

    ann.goto(f"{base}/me")
    expect(ann).to_have_url(f"{base}/signin?next=/me")
    ann.get_by_label("Your email address").fill(ANN)
    shoot(ann, "signin", tmp_path)
    ann.get_by_role("button", name="Email me a sign-in link").click()
    expect(ann.get_by_role("status")).to_contain_text("a sign-in link is on its way")
    deliver(worker)
    ann.goto(base + link_in(last_mail(smtp, ANN, "sign-in"), "/signin/"))
    shoot(ann, "signin-confirm", tmp_path)
    ann.get_by_role("button", name="Sign in").click()
    expect(ann.locator("h1")).to_have_text("Your games")

    ann.get_by_role("link", name="Challenge someone").first.click()
    ann.get_by_label("Game").select_option("mimic")
    ann.get_by_label("Opponents' email addresses").fill(BEN)
    ann.get_by_label("Clock", exact=True).fill("2d")
    ann.get_by_label("Seats", exact=True).select_option("as-listed")
    shoot(ann, "challenge-new", tmp_path)
    ann.get_by_role("button", name="Send challenge").click()
    expect(ann.locator(".challenge-status")).to_have_text("pending")
    shoot(ann, "challenge-show", tmp_path)

    deliver(worker)
    ben_context = browser.new_context(viewport={"width": 390, "height": 844})
    ben = ben_context.new_page()
    ben_problems = watch_console(ben)
    ben.goto(base + link_in(last_mail(smtp, BEN, "challenges you"), "/invites/"))
    expect(ben.locator("h1")).to_contain_text("You are invited to Mimic")
    shoot(ben, "invite", tmp_path)
    ben.get_by_role("button", name="Accept").click()
    expect(ben.locator(".flash")).to_contain_text("has started")
    expect(ben.locator("ul.matches")).to_contain_text("waiting for ann")
    # "Replace my link" is a side action, set as small as the "public page" link beside it.
    sizes = [ben.locator("ul.matches li").first.get_by_role(role, name=name).evaluate(
        "e => getComputedStyle(e).fontSize")
        for role, name in (("link", "public page"), ("button", "Replace my link"))]
    assert sizes[0] == sizes[1], sizes
    shoot(ben, "me", tmp_path)

    deliver(worker)
    assert any("your turn" in m["Subject"].lower() or "Your turn" in m.get_body(
        ("plain",)).get_content() for m in smtp.to(ANN))
    ann.goto(f"{base}/me")
    expect(ann.locator("ul.matches li.your-turn")).to_contain_text("Your turn")
    shoot(ann, "me", tmp_path)
    ann.locator("ul.matches li.your-turn a").first.click()
    expect(ann.locator("p.status")).to_contain_text("Your turn.")
    ann.get_by_label("Your move", exact=True).select_option("e2-e3")
    ann.get_by_role("button", name="Make move").click()
    expect(ann.locator(".flash")).to_contain_text("Your move e2-e3 was made.")

    ben.goto(f"{base}/me")
    expect(ben.locator("ul.matches li.your-turn")).to_contain_text("Your turn")
    ben.goto(f"{base}/me/settings")
    shoot(ben, "settings", tmp_path)
    ben.goto(f"{base}/seeks")
    shoot(ben, "seeks", tmp_path)
    ann.goto(f"{base}/me/settings")
    shoot(ann, "settings", tmp_path)
    ann.goto(f"{base}/seeks")
    shoot(ann, "seeks", tmp_path)

    # A finished match offers its players a rematch; Ben answers it from his home page.
    with database.connection_context():
        finished = create_match("nim", [ANN, BEN], {"pile": 1}, worker.settings.secret_key,
                                START).match
        submit_move(finished.id, 0, "take 1", 0, START)
    ann.goto(f"{base}/matches/{finished.id}")
    shoot(ann, "finished-match", tmp_path)
    ann.get_by_role("button", name="Offer a rematch").click()
    expect(ann.locator("h1")).to_contain_text("Challenge:")
    expect(ann.get_by_text(f"a rematch of match {finished.id}")).to_be_visible()
    ben.goto(f"{base}/me")
    shoot(ben, "me-challenged", tmp_path)
    ben.get_by_role("button", name="Accept").click()
    expect(ben.locator(".flash")).to_contain_text("has started")
    assert problems == [] and ben_problems == [], (problems, ben_problems)
    ann_context.close()
    ben_context.close()
