"""Playing on the board in a real browser: every game by clicking squares, pieces and cards by
their accessible names (the notation), one game by keyboard alone, the same page without
JavaScript, the replay buttons and keys, and a waiting page that shows the opponent's move by
itself. Matches are real ones made through the core services; the clicks for each move are
derived from the legal move list, as the page's script derives them."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from pbem.core.accounts.models import Player
from pbem.core.db.connection import database
from pbem.core.matches.creation import create_match, current_state, get_match, rules_for
from pbem.core.matches.play import submit_move
from pbem.web.matches.clicks import click_moves
from tests.conftest import START
from tests.support.playing import add_salts
from tests.web.test_browser import watch_console

pytestmark = pytest.mark.browser
EMAILS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]


@pytest.fixture
def phone(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport={"width": 360, "height": 780})
    yield context
    context.close()


def turn(match_id: int) -> tuple[int, list[dict[str, Any]]]:
    """The seat to move and the ways of clicking each of its legal moves, from the core."""
    with database.connection_context():
        match = get_match(match_id)
        rules = rules_for(match)
        state = current_state(match)
        seat = sorted(rules.to_move(state))[0]
        legal = [rules.format_move(state, move) for move in rules.legal_moves(state, seat)]
        return seat, click_moves(match.game, rules.view(state, seat), legal)["moves"]


def click_move(page: Page, base: str, token: str, entry: dict[str, Any]) -> None:
    page.goto(f"{base}/play/{token}")
    for name in entry["clicks"]:
        page.get_by_role("button", name=name, exact=True).first.click()
    submit = page.get_by_role("button", name=re.compile("^Submit move"))
    expect(submit).to_contain_text(entry["move"])
    submit.click()
    expect(page.locator(".flash").first).to_contain_text(f"Your move {entry['move']} was made")


@pytest.mark.parametrize(("game", "players", "plies"), [
    ("mimic", 2, 4), ("eximo", 2, 6), ("frozen-forest", 2, 4), ("move-in-synch", 2, 6),
    ("mimic-taking", 3, 5)])
def test_every_game_is_played_by_clicking_the_board(server, phone, game: str, players: int,
                                                    plies: int) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match(game, EMAILS[:players], {}, settings.secret_key, START, seed=7)
        # Salts are added in the Fair deal section, not on the board: the cards come after.
        salted = add_salts(created.match.id, START).ply
    page = phone.new_page()
    problems = watch_console(page)
    for ply in range(plies):
        seat, entries = turn(created.match.id)
        # The longest way of spelling a move exercises chains, drops and two-click moves.
        entry = max(entries, key=lambda e: (len(e["clicks"]), -entries.index(e)))
        if ply == 0:
            page.goto(f"{base}/play/{created.tokens[seat]}")
            firsts = {e["clicks"][0] for e in entries}
            # Only the legal first clicks are highlighted (choices off the board are buttons;
            # two mimic cards in a hand are two targets for one click).
            highlighted = page.locator("[data-click].legal").evaluate_all(
                "els => els.map(e => e.dataset.click)")
            assert set(highlighted) == firsts
            # The page fits a 360 px phone: nothing scrolls sideways, the board included.
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
            wrap = page.locator(".board-wrap")
            assert wrap.bounding_box()["width"] <= 360
            assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), "no sideways scroll"
        click_move(page, base, created.tokens[seat], entry)
    with database.connection_context():
        assert get_match(created.match.id).ply == salted + plies
    assert problems == [], problems


def test_an_illegal_click_is_explained_and_a_picked_checker_can_be_changed(server, phone
                                                                           ) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", EMAILS[:2], {}, settings.secret_key, START)
    page = phone.new_page()
    page.goto(f"{base}/play/{created.tokens[0]}")
    board = page.locator(".board-wrap")
    board.get_by_role("button", name="e5", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("e5 is empty.")
    expect(page.get_by_role("alert")).to_contain_text("your checkers that can move")
    board.get_by_role("button", name="e9", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("e9 holds Red's checker on top")
    # Named by its notation, described by what is on it.
    expect(board.get_by_role("button", name="b2", exact=True)).to_have_accessible_description(
        "Blue checker")
    board.get_by_role("button", name="b2", exact=True).click()
    expect(board.get_by_role("button", name="b2", exact=True)).to_have_attribute(
        "aria-pressed", "true")
    board.get_by_role("button", name="j5", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text("j5 does not continue b2")
    # Picking another movable checker starts again from it; its targets are highlighted.
    board.get_by_role("button", name="e2", exact=True).click()
    expect(page.locator("#click-status")).to_contain_text("Selected e2")
    targets = {e["clicks"][1] for e in turn(created.match.id)[1] if e["clicks"][0] == "e2"}
    legal = board.locator("[data-click].legal")
    assert sorted(legal.evaluate_all("els => els.map(e => e.dataset.click)")) == sorted(targets)
    assert page.get_by_role("button", name=re.compile("^Submit move")).is_hidden()
    board.get_by_role("button", name="e3", exact=True).click()
    expect(page.get_by_role("button", name=re.compile("^Submit move"))).to_contain_text("e2-e3")


def test_a_whole_move_by_keyboard_alone(server, browser: Browser) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("eximo", EMAILS[:2], {}, settings.secret_key, START)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base}/play/{created.tokens[0]}")
    tab_to(page, "c1")
    page.keyboard.press("Enter")
    # Arrow keys walk the board square by square: c1 up to c3, then right to e3.
    for key in ("ArrowUp", "ArrowUp", "ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "e3"
    page.keyboard.press(" ")
    tab_to(page, "Submit move c1-e3")
    page.keyboard.press("Enter")
    expect(page.locator(".flash").first).to_contain_text("Your move c1-e3 was made")
    page.close()


def press(page: Page, key: str) -> None:
    """Press a key once the page's script is listening (it runs before DOMContentLoaded)."""
    page.wait_for_load_state("domcontentloaded")
    page.keyboard.press(key)


def tab_to(page: Page, name: str) -> None:
    """Press Tab until the focused element is named `name`, as a keyboard user would."""
    for _ in range(120):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => { const e = document.activeElement;"
                                " return e.getAttribute('aria-label') || e.textContent.trim(); }")
        if re.sub(r"\s+", " ", focused) == name:
            return
    raise AssertionError(f"Tab never reached {name!r}")


def test_without_javascript_the_list_and_the_text_box_still_play(server, browser: Browser
                                                                 ) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("frozen-forest", EMAILS[:2], {}, settings.secret_key, START)
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390,
                                                                        "height": 844})
    page = context.new_page()
    page.goto(f"{base}/play/{created.tokens[0]}")
    assert page.get_by_role("button", name="a1", exact=True).count() == 0
    assert page.locator("#click-move").is_hidden()
    assert page.locator("nav.replay .keys").is_hidden()  # no script, no replay keys
    page.get_by_label("Your move").select_option("a1")
    page.get_by_label("or type it").fill("c3")
    page.get_by_role("button", name="Make move").click()
    # Both were filled: the typed move is the one made.
    expect(page.locator(".flash").first).to_contain_text("Your move c3 was made")
    context.close()


def test_a_waiting_page_shows_the_opponents_move_without_a_reload(server, phone) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", EMAILS[:2], {}, settings.secret_key, START)
    page = phone.new_page()
    problems = watch_console(page)
    page.clock.install()
    seen: list[int] = []
    page.on("response", lambda r: seen.append(r.status) if r.url.endswith("/ply") else None)
    page.goto(f"{base}/play/{created.tokens[1]}")
    expect(page.locator("p.status")).to_contain_text("Waiting for Blue")
    page.evaluate("window.stillTheSamePage = true")
    page.clock.fast_forward("00:11")
    for _ in range(50):
        if seen:
            break
        page.wait_for_timeout(100)
    assert seen == [304], "nothing changed, so the poll got 304 Not Modified"
    with database.connection_context():
        submit_move(created.match.id, 0, "e2-e3", 0, START)
    page.clock.fast_forward("00:11")
    expect(page.locator("p.status")).to_contain_text("Your turn.")
    expect(page.locator("ol.moves")).to_contain_text("e2-e3")
    expect(page).to_have_title(re.compile("^Your turn"))
    assert page.evaluate("window.stillTheSamePage") is True
    # The new board is playable at once.
    page.locator(".board-wrap").get_by_role("button", name="e5", exact=True).click()
    expect(page.locator("#click-error")).to_contain_text("e5 is empty.")
    assert problems == [], problems


def test_replay_buttons_keys_and_links_on_both_pages(server, browser: Browser) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", EMAILS[:2], {}, settings.secret_key, START)
        match_id = created.match.id
    for ply in range(3):
        seat, entries = turn(match_id)
        with database.connection_context():
            submit_move(match_id, seat, entries[0]["move"], ply, START)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    problems = watch_console(page)
    for start in (f"{base}/matches/{match_id}", f"{base}/play/{created.tokens[0]}"):
        page.goto(start)
        replay = page.get_by_role("navigation", name="Replay")
        expect(replay).to_contain_text("after move 3 of 3")
        expect(replay.locator(".keys")).to_be_visible()
        replay.get_by_role("link", name="Previous").click()
        expect(replay).to_contain_text("after move 2 of 3")
        expect(page.locator("ol.moves li[aria-current=step]")).to_have_attribute("value", "2")
        press(page, "Home")
        expect(replay).to_contain_text("after move 0 of 3")
        press(page, "ArrowRight")
        expect(replay).to_contain_text("after move 1 of 3")
        page.locator("ol.moves li").nth(2).get_by_role("link").click()
        expect(replay).to_contain_text("after move 3 of 3")
        press(page, "ArrowLeft")
        expect(replay).to_contain_text("after move 2 of 3")
        replay.get_by_role("link", name="Last").click()
        expect(replay).to_contain_text("after move 3 of 3")
    assert problems == [], problems
    page.close()


def test_a_wrong_click_after_a_complete_move_names_the_moves_that_can_start(server, phone
                                                                            ) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("frozen-forest", EMAILS[:2], {}, settings.secret_key, START,
                               seed=7)
        submit_move(created.match.id, 0, "c3", 0, START)
    seat, entries = turn(created.match.id)
    page = phone.new_page()
    page.goto(f"{base}/play/{created.tokens[seat]}")
    board = page.locator(".board-wrap")
    board.get_by_role("button", name=entries[0]["move"], exact=True).click()
    expect(page.get_by_role("button", name=re.compile("^Submit move"))).to_be_visible()
    board.get_by_role("button", name="c3", exact=True).click()  # Yuki's own square
    expect(page.get_by_role("alert")).to_contain_text(
        "c3 cannot start a move now: click a highlighted square (" + entries[0]["move"])


def test_mimic_taking_choices_off_the_board_are_buttons(server, phone) -> None:
    base, settings = server
    with database.connection_context():
        # The deal follows the match's random deal seed: play on (the salts first, then
        # the cards) until a trump winner's keep choice has come, then the last-card choice.
        created = create_match("mimic-taking", EMAILS[:3], {}, settings.secret_key, START,
                               seed=5)
    kinds_seen = set()
    page = phone.new_page()
    problems = watch_console(page)
    for ply in range(400):
        seat, entries = turn(created.match.id)
        moves = [e["move"] for e in entries]
        if moves[0].startswith("take") and "take" not in kinds_seen:
            kinds_seen.add("take")  # a trump winner's keep choice: one button per subset
            click_move(page, base, created.tokens[seat], entries[-1])
        elif moves[0] in ("add", "discard") and "take" in kinds_seen:
            kinds_seen.add("last card")
            page.goto(f"{base}/play/{created.tokens[seat]}")
            choices = page.locator("#click-choices")
            expect(choices.get_by_role("button")).to_have_text(["add", "discard"])
            choices.get_by_role("button", name="add").click()
            page.get_by_role("button", name=re.compile("^Submit move")).click()
            expect(page.locator(".flash").first).to_contain_text("Your move add was made")
            break
        else:
            with database.connection_context():
                submit_move(created.match.id, seat, moves[0], ply, START)
    assert kinds_seen == {"take", "last card"}, kinds_seen
    assert problems == [], problems


def test_a_complete_move_waits_for_submit_unless_the_player_set_it_to_go_at_once(
        server, browser: Browser) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("mimic", EMAILS[:2], {}, settings.secret_key, START, seed=7)
    match_id, token = created.match.id, created.tokens[0]

    def ply() -> int:
        with database.connection_context():
            return get_match(match_id).ply

    def ben_moves() -> None:
        seat, entries = turn(match_id)
        with database.connection_context():
            submit_move(match_id, seat, entries[0]["move"], ply(), START)

    phone = browser.new_context(viewport={"width": 360, "height": 780})
    page = phone.new_page()
    problems = watch_console(page)
    page.goto(f"{base}/play/{token}")
    box = page.get_by_label("Submit moves without confirming")
    expect(box).not_to_be_checked()
    board = page.locator(".board-wrap")
    board.get_by_role("button", name="e2", exact=True).click()
    board.get_by_role("button", name="e3", exact=True).click()
    submit = page.get_by_role("button", name=re.compile("^Submit move"))
    expect(submit).to_contain_text("e2-e3")
    page.wait_for_timeout(500)
    assert ply() == 0, "off: the clicks alone send nothing"
    submit.click()
    expect(page.locator(".flash").first).to_contain_text("Your move e2-e3 was made")
    assert ply() == 1

    ben_moves()
    page.reload()
    box.check()
    expect(page.locator("#click-setting-status")).to_contain_text("Saved")
    with database.connection_context():
        assert Player.get(Player.email == EMAILS[0]).submit_without_confirm
    assert ply() == 2, "ticking the box sends no move"
    _, entries = turn(match_id)
    for name in entries[0]["clicks"]:
        board.get_by_role("button", name=name, exact=True).first.click()
    expect(page.locator(".flash").first).to_contain_text(f"Your move {entries[0]['move']} was made")
    assert ply() == 3
    # The setting lives on the server, not in this browser.
    assert page.evaluate("window.localStorage.length") == 0
    assert problems == [], problems
    phone.close()

    # Another browser, with nothing kept from the first: the setting is Ann's, so it holds.
    ben_moves()
    desktop = browser.new_context(viewport={"width": 1280, "height": 900})
    page = desktop.new_page()
    page.goto(f"{base}/play/{token}")
    expect(page.get_by_label("Submit moves without confirming")).to_be_checked()
    _, entries = turn(match_id)
    for name in entries[0]["clicks"]:
        page.locator(".board-wrap").get_by_role("button", name=name, exact=True).first.click()
    expect(page.locator(".flash").first).to_contain_text(f"Your move {entries[0]['move']} was made")
    assert ply() == 5
    desktop.close()


def test_an_eximo_capture_chain_with_drops_in_any_order(server, phone) -> None:
    base, settings = server
    with database.connection_context():
        created = create_match("eximo", EMAILS[:2], {}, settings.secret_key, START, seed=7)
    rng = random.Random(0)  # these random moves reach a double capture with two drops
    for ply in range(5):
        with database.connection_context():
            match = get_match(created.match.id)
            rules, state = rules_for(match), current_state(match)
            seat = sorted(rules.to_move(state))[0]
            move = rng.choice(list(rules.legal_moves(state, seat)))
            submit_move(match.id, seat, rules.format_move(state, move), ply, START)
    seat, entries = turn(created.match.id)
    assert "d5xf3xh1 drop b7 f7" in {e["move"] for e in entries}
    page = phone.new_page()
    page.goto(f"{base}/play/{created.tokens[seat]}")
    # A capture is compulsory: only checkers that capture are offered.
    highlighted = page.locator("[data-click].legal").evaluate_all(
        "els => els.map(e => e.dataset.click)")
    assert set(highlighted) == {e["clicks"][0] for e in entries if "x" in e["move"]}
    expect(page.locator("#click-status")).to_contain_text("a capture is compulsory")
    board = page.locator(".board-wrap")
    for square in ("d5", "f3", "h1", "f7", "b7"):  # the drops in the other order
        board.get_by_role("button", name=square, exact=True).click()
    submit = page.get_by_role("button", name=re.compile("^Submit move"))
    expect(submit).to_contain_text("d5xf3xh1 drop b7 f7")
    submit.click()
    expect(page.locator(".flash").first).to_contain_text("Your move d5xf3xh1 drop b7 f7 was made")
