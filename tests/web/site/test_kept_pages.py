"""Kept pages (pbem/web/site/kept_pages.py): a play page read again with nothing of it changed
is sent as the bytes it was. They must be what a fresh render gives: a kept template reads
nothing of the request that its key does not hold, a change that moves no match version
still shows, and pages that show something of the request (a message, a signed-in player's
menu, a query) are never kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2 import nodes

from pbem.core.accounts import sessions
from pbem.core.accounts.models import Player, SessionKind
from pbem.core.mailout.chat import post_and_mail
from pbem.core.matches.creation import create_match
from pbem.core.matches.play import submit_move
from pbem.games import DESCRIPTIONS, get_rules
from pbem.paths import TEMPLATES
from pbem.web.site import fragments, kept_pages
from tests.conftest import START
from tests.support.template_reads import (
    check_filters_tests_and_addresses,
    each_addition_fails,
    names_read,
)
from tests.web.admin.test_console import sign_in as sign_in_admin

PAIR = ["ann@example.org", "ben@example.org"]
GAME_BOARDS = sorted(str(path.relative_to(TEMPLATES))
                     for path in Path(TEMPLATES).glob("games/*/board.html"))
# The boards' drawing functions (pbem.games, which the layer test keeps from the web): each
# answer follows from its arguments.
DRAWING = {"board_svg", "board_table"} | {
    name for description in DESCRIPTIONS.values() for name in description.template_globals}


def _kept_templates(env) -> list[str]:
    """Each kept template, what it extends and what it includes, however deep (a game's
    board, included by a name built from the game, stands for every game's)."""
    found, todo = [], list(kept_pages.KEPT_TEMPLATES)
    while todo:
        current = todo.pop()
        if current in found:
            continue
        found.append(current)
        tree = env.parse(env.loader.get_source(env, current)[0])
        for node in tree.find_all((nodes.Extends, nodes.Include, nodes.Import,
                                   nodes.FromImport)):
            if isinstance(node.template, nodes.Const):
                todo.append(node.template.value)
            else:
                assert "board.html" in str(node.template), f"{current}: a literal include"
                todo.extend(GAME_BOARDS)
    return found


def test_kept_templates_read_nothing_of_the_request_the_key_does_not_hold(app) -> None:
    env = app.jinja_env
    with app.test_request_context("/"):
        processed: set[str] = set()
        for processors in app.template_context_processors.values():
            for processor in processors:
                processed |= set(processor())
    impure = (set(env.globals) | processed) - fragments.PURE_GLOBALS - DRAWING - set(
        kept_pages.REQUEST_READS)
    templates = _kept_templates(env)
    assert {"play/play.html", "base.html", "_site_nav.html"} <= set(templates)
    for template in templates:
        tree = env.parse(env.loader.get_source(env, template)[0])
        read = names_read(tree)
        assert not read & impure, f"{template} reads {sorted(read & impure)}"
        # The request only through its address: `request.<attribute>` and nothing else.
        attributes = [node for node in tree.find_all(nodes.Getattr)
                      if isinstance(node.node, nodes.Name) and node.node.name == "request"]
        for node in attributes:
            assert node.attr in kept_pages.REQUEST_ATTRIBUTES, (
                f"{template} reads request.{node.attr}")
        whole = [node for node in tree.find_all(nodes.Name)
                 if node.name == "request" and node.ctx == "load"]
        assert len(whole) == len(attributes), f"{template} reads the request as a whole"
        # Whether an admin is signed in, and nothing else of them (the key holds only that).
        admins = [node for node in tree.find_all(nodes.Name)
                  if node.name == "current_admin" and node.ctx == "load"]
        asked = [node for node in tree.find_all(nodes.Test)
                 if node.name == "none" and isinstance(node.node, nodes.Call)
                 and isinstance(node.node.node, nodes.Name)
                 and node.node.node.name == "current_admin" and not node.node.args]
        assert len(admins) == len(asked), f"{template} reads more of the admin than whether"
        check_filters_tests_and_addresses(tree, template)


def test_the_static_check_catches_what_it_is_for(app, monkeypatch: pytest.MonkeyPatch) -> None:
    env = app.jinja_env
    each_addition_fails(
        env, monkeypatch, "base.html",
        ("{{ request.args }}", "{{ session.x }}", "{{ g.x }}", "{{ f(request) }}",
         "{{ request['args'] }}", "{{ current_admin().email }}", "{{ x|random }}",
         "{{ url_for('games.index', _external=true) }}", "{{ url_for('.show') }}",
         "{% if x is rendered_already %}{% endif %}"),
        lambda: test_kept_templates_read_nothing_of_the_request_the_key_does_not_hold(app))


@pytest.fixture
def nim(settings):
    return create_match("nim", PAIR, {"pile": "30"}, settings.secret_key, START)


@pytest.fixture
def kept(app) -> kept_pages.KeptPages:
    pages: kept_pages.KeptPages = app.extensions["pbem_kept_pages"]
    return pages


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The kept templates rendered (not read from the kept pages), in order."""
    made: list[str] = []
    real = kept_pages.render_template

    def counting(name: str, **context):
        made.append(name)
        return real(name, **context)
    monkeypatch.setattr(kept_pages, "render_template", counting)
    return made


def _fresh(client, kept, path: str, **options) -> bytes:
    """The page as rendered with nothing kept (no page, no fragment)."""
    kept.clear()
    client.application.jinja_env.globals["fragment"].clear()
    page = client.get(path, **options).data
    kept.clear()
    return page


def test_a_page_read_again_is_the_page_rendered_afresh(client, kept, nim, renders) -> None:
    path = f"/play/{nim.tokens[0]}"
    first = client.get(path)
    assert first.status_code == 200 and len(kept) == 1 and len(renders) == 1
    again = client.get(path)
    assert again.data == first.data and len(kept) == 1
    assert len(renders) == 1  # sent as kept, not rendered again
    assert again.headers["Cache-Control"] == "no-store"
    assert _fresh(client, kept, path) == first.data
    # Each language its own page.
    client.get(path)
    german = client.get(path, headers={"Accept-Language": "de"}).data
    assert german != first.data and len(kept) == 2
    assert client.get(path, headers={"Accept-Language": "de"}).data == german
    assert _fresh(client, kept, path, headers={"Accept-Language": "de"}) == german


def test_what_changes_without_a_move_shows_on_the_page_read_again(client, kept, nim,
                                                                   settings) -> None:
    path = f"/play/{nim.tokens[0]}"
    client.get(path)
    other = nim.match.seat_rows()[1]
    # The chat, a player's name and the reader's time zone: no match version moves.
    post_and_mail(other, "good luck", START)
    assert b"good luck" in client.get(path).data
    other.player.name = "Benedict"
    other.player.save()
    assert b"Benedict" in client.get(path).data
    ann = Player.get(Player.email == PAIR[0])
    ann.timezone = "Asia/Tokyo"
    ann.save()
    page = client.get(path).data
    assert b"Asia/Tokyo" in page and page == _fresh(client, kept, path)


def test_a_move_shows_on_the_page_read_again(client, kept, nim) -> None:
    path = f"/play/{nim.tokens[0]}"
    before = client.get(path).data
    rules = get_rules("nim")
    state = rules.load(nim.match.state)
    seat = min(rules.to_move(state))
    text = rules.format_move(state, rules.legal_moves(state, seat)[0])
    submit_move(nim.match.id, seat, text, 0, START)
    after = client.get(path).data
    assert after != before and after == _fresh(client, kept, path)


def test_a_page_showing_a_message_is_neither_kept_nor_taken_from_those_kept(client, kept,
                                                                            nim) -> None:
    path = f"/play/{nim.tokens[0]}"
    plain = client.get(path).data
    with client.session_transaction() as session:
        session["_flashes"] = [("ok", "A message for the top of the page.")]
    shown = client.get(path).data
    assert b"A message for the top of the page." in shown and len(kept) == 1
    # Shown once: the next read is the plain page again, as kept.
    assert client.get(path).data == plain


def test_a_signed_in_readers_page_is_rendered_each_time(client, kept, nim, settings) -> None:
    path = f"/play/{nim.tokens[0]}"
    assert b"Sign out" not in client.get(path).data and len(kept) == 1  # kept signed out
    ann = Player.get(Player.email == PAIR[0])
    client.set_cookie("pbem_player", sessions.start(
        settings.secret_key, SessionKind.PLAYER, START,
        sessions.SessionPolicy.from_days(14, 90), player=ann))
    page = client.get(path).data
    assert b"Sign out" in page and len(kept) == 1
    client.delete_cookie("pbem_player")
    signed_out = client.get(path).data
    assert b"Sign out" not in signed_out and len(kept) == 1


def test_an_admins_page_is_kept_apart(client, kept, nim) -> None:
    path = f"/play/{nim.tokens[0]}"
    plain = client.get(path).data
    sign_in_admin(client)
    console = client.get(path).data
    assert console != plain and b'href="/admin"' in console and len(kept) == 2
    assert console == _fresh(client, kept, path)


def test_a_page_with_a_query_is_rendered_each_time(client, kept, nim) -> None:
    client.get(f"/play/{nim.tokens[0]}?ply=0")
    client.get(f"/play/{nim.tokens[0]}?before=5")
    assert len(kept) == 0


def test_only_checked_templates_and_values_are_kept(app) -> None:
    pages = kept_pages.KeptPages()
    with app.test_request_context("/"):
        with pytest.raises(ValueError, match="KEPT_TEMPLATES"):
            pages.render("games.html", None, {})
        with pytest.raises(TypeError, match="values"):
            pages.render("play/play.html", None, {}, record=len)


def test_the_oldest_pages_make_room(client, app, settings) -> None:
    app.extensions["pbem_kept_pages"] = pages = kept_pages.KeptPages(size=2)
    tokens = [create_match("nim", PAIR, {}, settings.secret_key, START).tokens[0]
              for _ in range(3)]
    for token in tokens:
        client.get(f"/play/{token}")
    assert len(pages) == 2


def test_a_page_showing_a_csrf_token_is_not_kept(client, app, kept, nim,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A second guard beside the static check: a page whose rendering showed a CSRF token (or
    changed the session) was made for its request alone."""
    loader = app.jinja_env.loader
    original = loader.get_source

    def source(environment, template):
        text, filename, uptodate = original(environment, template)
        extra = '<i id="t">{{ csrf_token() }}</i>'
        return (text + extra if template == "base.html" else text), filename, uptodate
    monkeypatch.setattr(loader, "get_source", source)
    page = client.get(f"/play/{nim.tokens[0]}").data
    assert b'<i id="t">' in page and len(kept) == 0


def test_a_page_read_by_head_is_the_page_a_get_reads(client, kept, nim, renders) -> None:
    path = f"/play/{nim.tokens[0]}"
    assert client.head(path).status_code == 200 and len(kept) == 1
    assert client.get(path).data == _fresh(client, kept, path)


def test_a_page_larger_than_the_largest_kept_is_not_kept(client, kept, nim,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_pages, "LARGEST", 1000)
    assert len(client.get(f"/play/{nim.tokens[0]}").data) > 1000 and len(kept) == 0


def test_each_seat_of_a_hidden_card_game_sees_its_own_hand(client, app, kept,
                                                           settings) -> None:
    """The seats of one match version share everything but their path and their view: each
    page, read after the others were kept, is the one rendered afresh for that seat alone."""
    from pbem.core.db import memo

    three = create_match("mimic-taking", [*PAIR, "cat@example.org"], {}, settings.secret_key,
                         START)
    pages = [client.get(f"/play/{token}").data for token in three.tokens]
    assert len(set(pages)) == 3 and len(kept) == 3
    assert [client.get(f"/play/{token}").data for token in three.tokens] == pages
    for token, page in zip(three.tokens, pages, strict=True):
        memo.forget_all()
        assert _fresh(client, kept, f"/play/{token}") == page


def test_a_new_database_generation_renders_the_page_again(client, kept, nim, renders) -> None:
    """A page kept before a restore (a new generation) is not sent after it, even while the
    process still holds it; the generation read by the request is in the key."""
    from pbem.core.db import generation

    path = f"/play/{nim.tokens[0]}"
    first = client.get(path).data
    assert len(renders) == 1 and len(kept) == 1
    generation.bump()
    assert client.get(path).data == first  # the same rows: the same page, rendered again
    assert len(renders) == 2 and len(kept) == 2
