"""Public pages: games and rules, match history with replay, headers, the dev mailbox."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from pbem.games import REGISTRY
from tests.conftest import START, SUPPORT_TEMPLATES, make_settings
from tests.support.playing import play_randomly

PAIR = ["ann@example.org", "ben@example.org"]


def test_every_game_has_a_rules_page_listed_on_the_games_page(client) -> None:
    listing = client.get("/games")
    assert listing.status_code == 200
    for slug, rules in REGISTRY.items():
        assert f'href="/games/{slug}"'.encode() in listing.data
        page = client.get(f"/games/{slug}")
        assert page.status_code == 200, slug
        assert rules.title.encode() in page.data
        for option in rules.options:
            assert f"<code>{option.name}</code>".encode() in page.data
    assert client.get("/games/no-such-game").status_code == 404
    # A visitor is shown how to start playing, not only the operator's shell command.
    assert b'href="/challenges/new"' in listing.data and b'href="/seeks"' in listing.data
    # The quickest start of all, with nobody to ask: the computer, from the start page.
    start = client.get("/").get_data(as_text=True)
    assert 'href="/computer"' in start and "play the computer" in start
    assert client.get("/computer").status_code in (200, 302)


def test_the_public_page_replays_the_match_move_by_move(settings, client) -> None:
    match = create_match("nim", PAIR, {}, settings.secret_key, START).match
    for ply, text in enumerate(["take 3", "take 2"]):
        submit_move(match.id, ply % 2, text, ply, START)
    latest = client.get(f"/matches/{match.id}")
    assert b"after move 2 of 2" in latest.data and b"Pile: 4" in latest.data
    assert b"ann@example.org" not in latest.data and b"ann" in latest.data
    start = client.get(f"/matches/{match.id}?ply=0")
    assert b"after move 0 of 2" in start.data and b"Pile: 9" in start.data
    assert b"Pile: 6" in client.get(f"/matches/{match.id}?ply=1").data
    assert client.get(f"/matches/{match.id}?ply=3").status_code == 404
    assert client.get(f"/matches/{match.id}?ply=-1").status_code == 400
    assert client.get("/matches/12345").status_code == 404
    assert f'href="/matches/{match.id}"'.encode() in client.get("/matches").data


def test_history_never_shows_a_hidden_card_to_spectators(settings, client) -> None:
    match = create_match("bids", [*PAIR, "cy@example.org"], {}, settings.secret_key, START,
                         seed=2).match
    hand = match.state["hands"][0]
    submit_move(match.id, 0, f"play {hand[0]}", 0, START)
    page = client.get(f"/matches/{match.id}").data.decode()
    assert "(hidden until revealed)" in page
    assert f"play {hand[0]}" not in page and "Your hand" not in page


def test_pages_carry_security_headers_and_no_third_party_assets(settings, client) -> None:
    token = create_match("nim", PAIR, {}, settings.secret_key, START).tokens[0]
    for url in ("/", "/games", f"/play/{token}", "/matches/1", "/api/matches/1"):
        response = client.get(url)
        assert response.headers["Referrer-Policy"] == "same-origin"
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
        assert response.headers["X-Frame-Options"] == "DENY"
        assert all(len(response.headers.getlist(name)) == 1
                   for name in ("Content-Security-Policy", "Referrer-Policy", "Vary"))
        # Each page's words follow the browser's languages and the language switch's cookie.
        vary = {part.strip() for part in response.headers["Vary"].split(",")}
        assert {"Accept-Language", "Cookie"} <= vary
        # Absolute links to the site itself (link previews need them) are not third-party.
        own = response.data.replace(settings.base_url.encode() + b"/", b"/")
        assert b"http://" not in own.replace(b"http://www.w3.org/2000/svg", b"")


def test_the_dev_mailbox_exists_only_in_development(settings, client, tmp_path: Path,
                                                     db_url: str, worker) -> None:
    from pbem.web import create_app

    assert client.get("/dev/mail").status_code == 404
    dev = create_app(make_settings(db_url, tmp_path, development=True),
                     extra_template_dirs=(SUPPORT_TEMPLATES,)).test_client()
    create_match("nim", PAIR, {}, settings.secret_key, START)
    listing = dev.get("/dev/mail")
    assert listing.status_code == 200 and listing.data.count(b"ann@example.org") == 2
    assert b">05 Jan 12:00:00 UTC</td>" in listing.data  # when written, with its zone
    assert listing.data.count(b"(written when sent)") == 3
    # Once sent, each is listed under its subject, the match's (which the record keeps no
    # copy of: see Composer.recorded_subject).
    assert worker.send_outbox().sent == 3
    listing = dev.get("/dev/mail")
    assert listing.data.count(b"Nim (test game), match #1</a>") == 3
    assert b"(written when sent)" not in listing.data
    # The game last started stays chosen for the next one.
    started = dev.post("/dev/mail/new-match", data={"game": "nim", "players": " ".join(PAIR)})
    assert started.status_code == 303 and started.headers["Location"].endswith("?game=nim")
    assert '<option value="nim" selected>' in dev.get("/dev/mail?game=nim").data.decode()
    mail = dev.get("/dev/mail/1").data.decode()
    assert '<a href="http://pbem.test/play/' in mail
    html = dev.get("/dev/mail/1/html")
    assert html.status_code == 200 and "script-src" not in html.headers["Content-Security-Policy"]
    assert len(html.headers.getlist("Content-Security-Policy")) == 1  # its own, kept


@pytest.mark.parametrize("path", ["/play/abc", "/nowhere", "/matches/abc"])
def test_unknown_pages_are_friendly_404s(client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404 and b"Back to the start page" in response.data


def test_a_finished_matchs_move_list_speaks_to_every_reader_alike(settings, client) -> None:
    # Mimic Taking's secret last-card choices are shown to everyone once the match is over,
    # so their sentences name the player ("Player 2 chose to…"), never "You chose".
    trio = [*PAIR, "cy@example.org"]
    match = create_match("mimic-taking", trio, {}, settings.secret_key, START, seed=5).match
    match = play_randomly(match.id, 5, START)
    assert match.status == "finished"
    page = client.get(f"/matches/{match.id}").data.decode()
    assert "chose to" in page and "You chose" not in page and "You kept" not in page


def test_the_first_tab_stop_skips_to_what_the_page_is_for(settings, client) -> None:
    """Keyboard and screen-reader users get past the site's links at once: to the board on a
    seat's page, to the content elsewhere."""
    import re

    created = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                           settings.secret_key, START)
    for path, target, words in ((f"/play/{created.tokens[0]}", "board", "Skip to the board"),
                                ("/games", "main", "Skip to the content"),
                                (f"/matches/{created.match.id}", "main", "Skip to the content")):
        page = client.get(path).get_data(as_text=True)
        body = page[page.index("<body"):]
        first = re.search(r"<a [^>]*>[^<]*</a>", body)
        assert first and f'href="#{target}"' in first.group(0) and words in first.group(0)
        assert f'id="{target}"' in page


def test_the_frozen_forest_board_has_a_key(settings, client) -> None:
    """Trees, unvisited squares, Yuki and Mina are told apart in words beside the board."""
    created = create_match("frozen-forest", ["ann@example.org", "ben@example.org"], {},
                           settings.secret_key, START)
    for path in (f"/play/{created.tokens[0]}", f"/matches/{created.match.id}"):
        page = client.get(path).get_data(as_text=True)
        key = page[page.index('<ul class="legend"'):]
        key = key[:key.index("</ul>")]
        for words in ("Yuki", "Mina", "a tree", "an unvisited square"):
            assert words in key, (path, words)


def test_the_public_page_lists_what_happened_besides_the_moves(settings, client) -> None:
    from pbem.core.matches import lifecycle
    from pbem.core.matches.history import MOVE_KINDS, public_changes, public_events
    from pbem.core.matches.play import submit_move

    created = create_match("mimic", ["ann@example.org", "ben@example.org"], {},
                           settings.secret_key, START)
    submit_move(created.match.id, 0, "b2-b3", 0, START)
    lifecycle.draw_yes(created.match.id, 0, START)
    submit_move(created.match.id, 1, "c9-c8", 1, START)
    lifecycle.resign(created.match.id, 1, START)
    # The database leaves out the moves (they have their own list), and only them.
    assert public_events(created.match.id) == [
        row for row in public_changes(created.match.id) if row["kind"] not in MOVE_KINDS]
    page = client.get(f"/matches/{created.match.id}").get_data(as_text=True)
    history = page[page.index("Besides the moves"):]
    history = history[:history.index("</section>")]
    assert "Blue · draw offered or accepted" in history and "Red · resigned" in history
    assert "· move" not in history and "match started" in history
    assert "@" not in history


def test_the_dev_mailbox_pages_filters_and_shows_reply_addresses(settings, tmp_path: Path,
                                                                 db_url: str) -> None:
    from pbem.core.mailout.models import OutboxMessage
    from pbem.mail.addresses import reply_address_for
    from pbem.web import create_app

    dev = create_app(make_settings(db_url, tmp_path, development=True),
                     extra_template_dirs=(SUPPORT_TEMPLATES,)).test_client()
    first = create_match("nim", PAIR, {}, settings.secret_key, START).match
    OutboxMessage.insert_many([
        {"to_address": f"crowd{n}@example.org", "template": "account_mail", "params": {},
         "next_attempt_at": START, "created_at": START} for n in range(150)]).execute()
    second = create_match("nim", ["cy@example.org", "ann@example.org"], {},
                          settings.secret_key, START).match
    listing = dev.get("/dev/mail").get_data(as_text=True)
    # A page at a time, newest first, with the way to the older ones.
    assert listing.count('data-label="#"') == 100 and "cy@example.org" in listing
    older = re.search(r'<a rel="next" href="([^"]+)"', listing)
    assert older and "crowd0@" not in listing
    rest = dev.get(older.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert "crowd0@example.org" in rest and "ben@example.org" in rest
    # A seat's mail shows the address a reply goes to; a mail to no seat has none.
    mine = dev.get("/dev/mail?to=ANN@").get_data(as_text=True)
    anns = list(OutboxMessage.select().where(OutboxMessage.to_address == PAIR[0]))
    assert mine.count('data-label="#"') == len(anns) >= 2 and "crowd" not in mine
    seats = [m for m in anns if m.seat is not None]
    assert seats and mine.count("<code>") == len(seats)
    assert all(f"<code>{address}</code>" in mine for address in
               {reply_address_for(dev.application.config["PBEM_SETTINGS"], m.match_id, m.seat)
                for m in seats})
    only = dev.get(f"/dev/mail?match={second.id}").get_data(as_text=True)
    assert "cy@example.org" in only and "ben@example.org" not in only
    both = dev.get(f"/dev/mail?match={first.id}&to=ben").get_data(as_text=True)
    assert both.count('data-label="#"') == 1
    assert "No mail matches" in dev.get("/dev/mail?to=nobody").get_data(as_text=True)
    bad = dev.get("/dev/mail?match=twelve")
    assert bad.status_code == 400 and "not a match number" in bad.get_data(as_text=True)
