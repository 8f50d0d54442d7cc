"""Talking at the board in a real Chromium, on a phone and a desktop: the players write under
the board and keep notes, a signed-in watcher talks in the spectators' room, an admin hides a
reported message, and the development mailbox shows a turn mail quoting the chat. The strict
CSP holds and no console error appears. With PBEM_SHOTS set, the screens are saved there."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Response, expect
from werkzeug.serving import make_server

from pbem.core.accounts import sessions
from pbem.core.accounts.admins import create_admin
from pbem.core.accounts.models import Player, SessionKind
from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.web import create_app
from tests.conftest import SUPPORT_TEMPLATES, free_port, make_settings
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser
ANN, BEN, CAROL = "ann@example.org", "ben@example.org", "carol@example.org"
PASSWORD = "correct horse battery"
XSS = '<img src=x onerror=alert(1)>'


@contextmanager
def _serve(tmp_path: Path, **overrides: object) -> Iterator[tuple[str, object]]:
    port = free_port()
    url = f"sqlite:///{tmp_path / 'talk.sqlite3'}"
    settings = make_settings(url, tmp_path, base_url=f"http://127.0.0.1:{port}",
                             development=True, **overrides)
    bind_database(url)
    with database.connection_context():
        migrate()
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,))
    httpd = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", settings
    httpd.shutdown()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, object]]:
    with _serve(tmp_path) as served:
        yield served


@pytest.fixture
def quick_site(tmp_path: Path) -> Iterator[tuple[str, object]]:
    """The site with waiting pages asking every second, not every ten: a test that waits for
    the page's own polls waits seconds, not the production interval twice over."""
    with _serve(tmp_path, page_poll_seconds=1) as served:
        yield served


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def shoot(page: Page, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("PBEM_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    width = page.viewport_size["width"] if page.viewport_size else 0
    page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", [390, 1280])
def test_players_talk_watchers_talk_and_an_admin_hides_a_report(
        browser: Browser, site, tmp_path: Path, width: int) -> None:
    base, settings = site
    with database.connection_context():
        created = create_match("mimic", [ANN, BEN], {}, settings.secret_key, _now())
        for email, name in ((ANN, "Ann"), (BEN, "Ben"), (CAROL, "Carol")):
            Player.update(name=name).where(Player.email == email).execute() or \
                Player.create(email=email, name=name, created_at=_now())
        carol = Player.get(Player.email == CAROL)
        carol_session = sessions.start(settings.secret_key, SessionKind.PLAYER, _now(),
                                       sessions.SessionPolicy.from_days(30, 90), player=carol)
        create_admin("ref@club.org", PASSWORD, _now(), role="moderator")
    ann_link, ben_link = (f"{base}/play/{token}" for token in created.tokens)
    viewport = {"width": width, "height": 900}
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    problems = watch_console(page)

    # Ben greets; Ann moves, answers and keeps a note.
    page.goto(ben_link)
    page.get_by_label("Your message").fill("Hello Ann! Good luck.\nI'll be slow on Sunday.")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".flash")).to_contain_text("Message posted.")
    page.goto(ann_link)
    page.get_by_label("Your move").select_option("e2-e3")
    page.get_by_role("button", name="Make move").click()
    page.get_by_label("Your message").fill(f"Thanks Ben, you too. {XSS}")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#chat .chat-list")).to_contain_text("Hello Ann! Good luck.")
    expect(page.locator("#chat .chat-list")).to_contain_text(XSS)  # shown as text
    assert page.locator("#chat img").count() == 0
    page.locator("#notes-text").fill("Plan: keep the centre; Ben answers fast on weekdays.")
    page.get_by_role("button", name="Save notes").click()
    expect(page.locator(".flash")).to_contain_text("Notes saved")
    shoot(page, "play-chat-notes", tmp_path)

    # Ben replies and moves: Ann's turn mail quotes him.
    page.goto(ben_link)
    expect(page.locator("#notes-text")).to_have_value("")  # Ann's notes are hers
    page.get_by_label("Your message").fill("Interesting opening…")
    page.get_by_role("button", name="Send").click()
    reply = page.locator("#move option").last.get_attribute("value")
    page.get_by_label("Your move").select_option(reply)
    page.get_by_role("button", name="Make move").click()
    # Ann reports Ben's message from her page (no script: the details element opens).
    page.goto(ann_link)
    message = page.locator(".chat-message", has_text="Interesting opening")
    message.locator("summary").click()
    message.get_by_label("Why?").fill("spoiler")
    message.get_by_role("button", name="Report to the admins").click()
    expect(page.locator(".flash")).to_contain_text("reported")

    # Carol watches, signed in, and talks in the spectators' room.
    host = base.split("//", 1)[1].split(":")[0]
    context.add_cookies([{"name": "pbem_player", "value": carol_session, "domain": host,
                          "path": "/"}])
    page.goto(f"{base}/matches/{created.match.id}")
    page.get_by_label("Your message").fill("Bold first move by Ann!")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#chat .chat-list")).to_contain_text("Bold first move by Ann!")
    expect(page.locator("body")).not_to_contain_text("Hello Ann! Good luck.")
    shoot(page, "spectator-chat", tmp_path)

    # The turn mail to Ann, as the development mailbox renders it.
    with database.connection_context():
        turn = (OutboxMessage.select().where(OutboxMessage.to_address == ANN,
                                             OutboxMessage.template == "your_turn")
                .order_by(OutboxMessage.id.desc()).first())
    page.goto(f"{base}/dev/mail/{turn.id}/html")
    expect(page.locator("body")).to_contain_text("Interesting opening…")
    shoot(page, "your-turn-mail-quoting-chat", tmp_path)

    # The moderator opens the report and hides the message.
    admin = browser.new_context(viewport=viewport).new_page()
    admin_problems = watch_console(admin)
    admin.goto(f"{base}/admin/login")
    admin.get_by_label("Email").fill("ref@club.org")
    admin.get_by_label("Password").fill(PASSWORD)
    admin.get_by_role("button", name="Log in").click()
    admin.goto(f"{base}/admin/reports")
    admin.get_by_role("link", name="Open").first.click()
    expect(admin.locator(".chat-message.reported")).to_contain_text("Interesting opening")
    shoot(admin, "admin-report", tmp_path)
    admin.get_by_label("Hide the message: reason").fill("spoiler for the watchers")
    admin.get_by_role("button", name="Hide the message").click()
    expect(admin.locator(".flash")).to_contain_text("hidden")
    page.goto(ann_link)
    expect(page.locator("#chat")).not_to_contain_text("Interesting opening")
    assert problems == [] and admin_problems == [], problems + admin_problems
    context.close()


def test_a_draft_in_the_chat_box_survives_the_pages_own_refresh(
        browser: Browser, quick_site) -> None:
    from pbem.core.matches.play import submit_move

    base, settings = quick_site
    with database.connection_context():
        created = create_match("mimic", [ANN, BEN], {}, settings.secret_key, _now())
    page = browser.new_page(viewport={"width": 390, "height": 900})
    problems = watch_console(page)
    page.goto(f"{base}/play/{created.tokens[1]}")  # Ben waits for Ann
    expect(page.locator("[data-poll-seconds]")).to_have_attribute("data-poll-seconds", "1")
    page.get_by_label("Your message").fill("half a thought")
    page.locator("h1").click()  # the box loses the focus, the draft stays
    # Polls answered 200 (a new tag: Ann has moved). The page asks again only once it has
    # decided about the answer before, so after the second one the first was declined.
    news: list[str] = []

    def heard(response: Response) -> None:
        # The seat's own poll (/play/<token>/ply: it also says Ben is looking).
        if response.url.endswith(f"/play/{created.tokens[1]}/ply") and response.ok \
                and response.status == 200:
            news.append(response.url)

    page.on("response", heard)
    with database.connection_context():
        submit_move(created.match.id, 0, "e2-e3", 0, _now())
    for _ in range(150):
        if len(news) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(news) >= 2, "the page swapped itself under the draft, or stopped asking"
    expect(page.get_by_label("Your message")).to_have_value("half a thought")
    expect(page.locator("p.status")).not_to_contain_text("Your turn")  # not swapped yet
    page.get_by_label("Your message").fill("")  # no draft: the next poll brings the turn
    page.locator("h1").click()
    expect(page.locator("p.status")).to_contain_text("Your turn", timeout=15_000)
    assert problems == [], problems
