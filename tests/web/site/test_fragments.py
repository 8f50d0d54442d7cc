"""Fragments (pbem/web/site/fragments.py) are page parts rendered once for their inputs. Their
HTML must be what a fresh render gives: every fragment template reads nothing of the request
but its inputs, equal inputs of other types are not mistaken, and a page read again after
something it shows changed shows the change."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jinja2 import nodes
from markupsafe import Markup

from pbem.core.mailout.chat import post_and_mail
from pbem.core.matches.creation import create_match
from pbem.paths import TEMPLATES
from pbem.web.site import fragments
from tests.conftest import START
from tests.support.template_reads import (
    check_filters_tests_and_addresses,
    each_addition_fails,
    names_read,
)

PAIR = ["ann@example.org", "ben@example.org"]


def _fragment_names() -> set[str]:
    """Every template a page renders as a fragment (its name is always a literal)."""
    names: set[str] = set()
    for path in Path(TEMPLATES).rglob("*.html"):
        source = path.read_text()
        calls = re.findall(r"fragment\(\s*([^,)]*)", source)
        for call in calls:
            assert re.fullmatch(r'"[^"]+"', call), f"{path}: a fragment's name must be literal"
            names.add(call.strip('"'))
    return names


def _with_includes(env, name: str) -> list[str]:
    """The template and every template it includes, however deep."""
    found, todo = [], [name]
    while todo:
        current = todo.pop()
        if current in found:
            continue
        found.append(current)
        tree = env.parse(env.loader.get_source(env, current)[0])
        assert not list(tree.find_all((nodes.Extends, nodes.Import, nodes.FromImport))), (
            f"{current}: a fragment imports or extends nothing")
        for include in tree.find_all(nodes.Include):
            assert isinstance(include.template, nodes.Const), f"{current}: a literal include"
            todo.append(include.template.value)
    return found


def test_fragments_read_nothing_of_the_request_but_their_inputs(app) -> None:
    env = app.jinja_env
    names = _fragment_names()
    assert {"play/_head.html", "play/_talk.html", "matches/_clocks.html"} <= names
    # What a page may see beyond a fragment's inputs: the environment's globals, and what
    # Flask's and pbem's context processors add (the signed-in player, the CSRF token…).
    with app.test_request_context("/"):
        processed: set[str] = set()
        for processors in app.template_context_processors.values():
            for processor in processors:
                processed |= set(processor())
    impure = (set(env.globals) | processed) - fragments.PURE_GLOBALS
    for name in names:
        for template in _with_includes(env, name):
            tree = env.parse(env.loader.get_source(env, template)[0])
            read = names_read(tree)
            assert not read & impure, f"{template} reads {sorted(read & impure)}"
            check_filters_tests_and_addresses(tree, template)


def test_the_static_check_catches_what_it_is_for(app, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each kind of impure read, added to a fragment, fails the check above."""
    each_addition_fails(
        app.jinja_env, monkeypatch, "play/_foot.html",
        ("{{ request.path }}", "{{ x|random }}", "{{ url_for('.show') }}",
         "{{ url_for('games.index', _external=true) }}", "{{ csrf_token() }}",
         "{{ url_for('games.index', **{'_external': true}) }}",
         "{% if current_player is defined %}x{% endif %}"),
        lambda: test_fragments_read_nothing_of_the_request_but_their_inputs(app))


def test_inputs_equal_but_of_other_types_are_not_mistaken(app) -> None:
    fragment = fragments.Fragments()
    with app.test_request_context("/"):
        shown = [fragment("fragments/echo.html", value=value)
                 for value in (1, True, 1.0, "1", "<b>", Markup("<b>"), (1,), [1])]
        again = [fragment("fragments/echo.html", value=value)
                 for value in (1, True, 1.0, "1", "<b>", Markup("<b>"), (1,), [1])]
    assert shown == again
    assert shown[:6] == ["1|int", "True|bool", "1.0|float", "1|str", "&lt;b&gt;|str",
                         "<b>|Markup"]
    assert len(fragment) == 8


def test_a_fragment_missing_an_input_fails_loudly(app) -> None:
    fragment = fragments.Fragments()
    with app.test_request_context("/"), pytest.raises(Exception, match="value"):
        fragment("fragments/echo.html")


def test_the_oldest_fragments_make_room(app) -> None:
    fragment = fragments.Fragments(size=3)
    with app.test_request_context("/"):
        for _ in range(2):
            for value in range(10):
                assert fragment("fragments/echo.html", value=value) == f"{value}|int"
    assert len(fragment) == 3


@pytest.fixture
def nim(settings):
    return create_match("nim", PAIR, {"pile": "30"}, settings.secret_key, START)


def test_a_page_read_again_shows_what_changed_in_its_fragments(client, app, nim) -> None:
    token = nim.tokens[0]
    first = client.get(f"/play/{token}").data
    assert client.get(f"/play/{token}").data == first
    # The chat (no change of match version) and a player's name (none either).
    seat = nim.match.seat_rows()[1]
    post_and_mail(seat, "good luck", START)
    assert b"good luck" in client.get(f"/play/{token}").data
    seat.player.name = "Benedict"
    seat.player.save()
    assert b"Benedict" in client.get(f"/play/{token}").data
    # Each language its own, and the page as rendered with nothing kept.
    german = client.get(f"/play/{token}", headers={"Accept-Language": "de"}).data
    app.jinja_env.globals["fragment"].clear()
    app.extensions["pbem_kept_pages"].clear()  # (and the whole page: see test_kept_pages.py)
    assert client.get(f"/play/{token}", headers={"Accept-Language": "de"}).data == german


def test_each_language_and_time_zone_gets_its_own(app) -> None:
    from datetime import datetime

    from pbem import i18n

    fragment = fragments.Fragments()
    at = datetime(2026, 7, 1, 12, 0)
    with app.test_request_context("/"):
        seen = []
        for code, zone in (("en", None), ("en", "Asia/Tokyo"), ("de", None), ("en", None)):
            with i18n.language(code, zone):
                seen.append(str(fragment("fragments/when.html", at=at)))
    assert seen == ["2026-07-01 12:00 UTC Games", "2026-07-01 21:00 JST Games",
                    seen[2], seen[0]]
    assert "Spiele" in seen[2] and len(fragment) == 3


def test_each_mount_point_gets_its_own_addresses(app) -> None:
    fragment = fragments.Fragments()
    shown = []
    for mount in ("", "/pbem", ""):
        with app.test_request_context("/", base_url=f"http://localhost{mount}/"):
            shown.append(str(fragment("fragments/link.html", match=7)))
    assert shown == ["/matches/7", "/pbem/matches/7", "/matches/7"] and len(fragment) == 2


def test_a_function_is_refused_as_an_input(app) -> None:
    fragment = fragments.Fragments()
    with app.test_request_context("/"), pytest.raises(TypeError, match="values"):
        fragment("fragments/echo.html", value=len)


def test_only_a_page_read_keeps_a_fragment_and_never_a_large_one(app) -> None:
    fragment = fragments.Fragments()
    with app.test_request_context("/", method="POST"):
        fragment("fragments/echo.html", value="typed")
    with app.test_request_context("/"):
        fragment("fragments/echo.html", value="x" * (fragments.LARGEST + 1))
    assert len(fragment) == 0
    with app.test_request_context("/"):
        fragment("fragments/echo.html", value="read")
    assert len(fragment) == 1


def test_a_fragment_used_again_is_kept_over_newer_ones(app) -> None:
    fragment = fragments.Fragments(size=3)
    with app.test_request_context("/"):
        fragment("fragments/echo.html", value="hot")
    for value in range(10):
        with app.test_request_context("/"):
            fragment("fragments/echo.html", value=value)
        with app.test_request_context("/", method="POST"):  # finds it, would keep nothing
            fragment("fragments/echo.html", value="hot")
    assert len(fragment) == 3 and "hot|str" in fragment._made.values()
