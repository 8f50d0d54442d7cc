"""Every route, fuzzed: arbitrary path parameters, query strings, forms and JSON bodies get an
answer below 500 (a clear 4xx page or problem+json), on a real database holding live matches,
so valid tokens and ids are tried too. Routes are read from the app's URL map, so a new route
is fuzzed without touching this file."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.accounts.admins import create_admin
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication
from pbem.core.matches.sweep import sweep
from pbem.web import create_app
from tests.conftest import START, SUPPORT_TEMPLATES, make_settings

ADMIN, PASSWORD = "boss@example.org", "a long admin password"
PLAYERS = ["ann@example.org", "ben@example.org", "cat@example.org"]
FIELDS = ["move", "move_text", "ply", "first_day", "last_day", "timezone", "email", "password",
          "ruling", "reason", "extension", "game", "players", "next", "submit_without_confirm",
          "text", "notes", "name", "muted", "chat_mail", "before"]

# No lone surrogates where the test client must percent-encode (paths, query strings, forms);
# JSON bodies carry them as \ud800 escapes, which the server must refuse cleanly.
_CHARS = st.characters(exclude_categories=["Cs"])
# Values that break naive code, values that pass the checks (so deeper code runs), and noise.
TROUBLE = ["", "-1", "²", "٣", "9" * 5000, "9223372036854775808", "\x00", "a\x00b",
           "9999-12-31", "1d+9999999d/9999999d", "9999999d", " " * 3]
# The grid tries the values that broke the server before, in every slot of every route.
GRID = ["²", "9" * 5000, "9223372036854775808", "\x00", "9999-12-31", "1d+9999999d/9999999d"]
VALID = ["0", "1", "yes", "take 1", "play 1", "2026-01-06", "2026-01-07", "Europe/Paris", "award",
         "draw", "abort", "extend", "2d", "nim", "bids", ADMIN, PASSWORD,
         "ann@example.org ben@example.org", "/admin", "//evil.example"]
_TEXT = st.one_of(st.sampled_from(TROUBLE), st.sampled_from(VALID), st.text(_CHARS, max_size=30))
_QUERY = st.one_of(st.fixed_dictionaries({}, optional={"ply": _TEXT, "next": _TEXT}),
                   st.dictionaries(st.text(max_size=5), _TEXT, max_size=2))
_FORM = st.one_of(st.fixed_dictionaries({}, optional={name: _TEXT for name in FIELDS}),
                  st.dictionaries(st.text(max_size=5), _TEXT, max_size=3))
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
    | st.sampled_from(["\x00", "\ud800", "take 1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)


@pytest.fixture
def world(db_url: str, tmp_path: Path, clock) -> dict[str, Any]:
    """A development app (every route, the dev mailbox included) with live matches, an open
    adjudication entry, mail in the outbox and a signed-in admin client."""
    settings = make_settings(db_url, tmp_path, development=True)
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,), clock=clock)
    app.config.update(TESTING=True, CSRF_ENABLED=False)
    nim = create_match("nim", PLAYERS[:2], {}, settings.secret_key, START, time_control="1h")
    bids = create_match("bids", PLAYERS, {"hand": "2"}, settings.secret_key, START)
    sweep(START + timedelta(hours=2), timedelta(days=1))
    create_admin(ADMIN, PASSWORD, START)
    admin = app.test_client()
    signed_in = admin.post("/admin/login", data={"email": ADMIN, "password": PASSWORD})
    assert signed_in.status_code == 303
    return {
        "app": app, "anonymous": app.test_client(), "admin": admin,
        "match_id": [nim.match.id, bids.match.id],
        "entry_id": [entry.id for entry in Adjudication.select()],
        "message_id": [message.id for message in OutboxMessage.select()],
        "token": [*nim.tokens, *bids.tokens],
        "slug": ["nim", "bids", "NIM", "mimic-taking"],
    }


def _routes(app: Flask) -> list[tuple[str, str]]:
    found = {(rule.rule, method) for rule in app.url_map.iter_rules()
             if rule.endpoint != "static"
             for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert len(found) >= 20, "the URL map was not read"
    return sorted(found)


def _value(data: st.DataObject, world: dict[str, Any], converter: str, name: str) -> str:
    known = world.get(name, [])
    if converter == "int":
        number = data.draw(st.sampled_from(known) if known and data.draw(st.booleans())
                           else st.integers(0, 2**70), label=name)
        return str(number)
    text = data.draw(st.sampled_from(known) if known and data.draw(st.booleans())
                     else st.text(_CHARS, min_size=1, max_size=60), label=name)
    return quote(text, safe="")


def test_every_route_answers_arbitrary_input_without_a_server_error(
        world: dict[str, Any]) -> None:
    # One world per backend, fuzzed route by route (a fresh world per route would cost more
    # than the fuzzing itself).
    for rule, method in _routes(world["app"]):
        _fuzz_route(world, rule, method)


def _fuzz_route(world: dict[str, Any], rule: str, method: str) -> None:
    # A share of the profile's examples per route keeps the whole map fast to fuzz.
    @settings(max_examples=max(settings().max_examples // 4, 10))
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        _fuzz_once(world, rule, method, data)

    fuzz()


def test_every_route_refuses_each_troublesome_value(world: dict[str, Any]) -> None:
    """The grid behind the fuzzing: each troublesome value in every slot of every route at
    once, with the path either valid (so the query and body are read) or troublesome."""
    for rule, method in _routes(world["app"]):
        for value in GRID:
            for bad_path in (False, True) if "<" in rule else (False,):
                path = re.sub(r"<(?:(\w+):)?(\w+)>",
                              lambda m, bad=bad_path, v=value: _grid_value(world, m, bad, v),
                              rule)
                query = {"ply": value, "next": value}
                body: dict[str, Any] = {}
                if method == "POST":
                    body = {"data": {name: value for name in FIELDS}}
                _ask(world["admin" if not rule.startswith("/admin/log") else "anonymous"],
                     method, path, query, body)
                if method == "POST":
                    _ask(world["anonymous"], method, path, query,
                         {"json": {"move": value, "ply": value}})


def _grid_value(world: dict[str, Any], found: re.Match[str], bad: bool, value: str) -> str:
    if not bad:
        return quote(str(world.get(found.group(2), ["x"])[0]), safe="")
    if found.group(1) == "int":
        return value if value.isascii() and value.isdigit() else "9223372036854775808"
    return quote(value, safe="") or "%20"


def _ask(client: FlaskClient, method: str, path: str, query: dict, body: dict) -> None:
    with client.open(path, method=method, query_string=query, **body) as response:
        assert response.status_code < 500, (method, path, query, body, response.data[:500])
        if path.startswith("/api/") and response.status_code >= 400:
            assert response.mimetype == "application/problem+json"


def _fuzz_once(world: dict[str, Any], rule: str, method: str, data: st.DataObject) -> None:
    path = re.sub(r"<(?:(\w+):)?(\w+)>",
                  lambda m: _value(data, world, m.group(1) or "string", m.group(2)), rule)
    query = data.draw(_QUERY, label="query")
    client: FlaskClient = world["admin" if data.draw(st.booleans(), label="as admin")
                               and not rule.startswith("/admin/log") else "anonymous"]
    body: dict[str, Any] = {}
    if method == "POST":
        if data.draw(st.booleans(), label="json"):
            body["json"] = data.draw(
                st.fixed_dictionaries({"move": _TEXT | _JSON, "ply": st.integers() | _JSON})
                | _JSON, label="json body")
        else:
            body["data"] = data.draw(_FORM, label="form")
    _ask(client, method, path, query, body)


KNOWN_TROUBLE = [
    ("GET", "/matches/9223372036854775808", {}),
    ("GET", "/api/matches/9223372036854775808", {}),
    ("GET", "/matches/{match}?ply=%C2%B2", {}),
    ("GET", "/api/matches/{match}?ply=%C2%B2", {}),
    ("GET", "/matches/{match}?ply=" + "9" * 5000, {}),
    ("POST", "/play/{token}", {"data": {"move": "take 1", "ply": "²"}}),
    ("POST", "/play/{token}", {"data": {"move": "take 1", "ply": "9" * 5000}}),
    ("POST", "/play/{token}", {"data": {"move": "take\x001", "ply": "0"}}),
    ("POST", "/api/play/{token}", {"json": {"move": "take \ud800", "ply": 0}}),
    ("POST", "/play/{token}/vacation", {"data": {"first_day": "2026-01-06",
                                                 "last_day": "9999-12-31"}}),
    ("POST", "/play/{token}/timezone", {"data": {"timezone": "Europe/\x00Paris"}}),
    ("POST", "/admin/login", {"data": {"email": "boss\x00@example.org", "password": "x"}}),
    ("POST", "/admin/adjudications/{entry}", {"data": {"ruling": "award", "reason": "a\x00"}}),
    ("POST", "/admin/adjudications/{entry}", {"data": {"ruling": "extend", "reason": "r",
                                                       "extension": "9999999d"}}),
    ("POST", "/dev/mail/new-match", {"data": {"game": "nim", "players": "a\x00@x.org b@x.org"}}),
]


def test_the_inputs_that_used_to_be_server_errors(world: dict[str, Any]) -> None:
    entries = Adjudication.select().where(Adjudication.status == "open").count()
    for method, path, body in KNOWN_TROUBLE:
        path = path.format(match=world["match_id"][0], token=world["token"][0],
                           entry=world["entry_id"][0])
        with world["admin"].open(path, method=method, **body) as response:
            status = response.status_code
            assert 400 <= status < 500 or status == 303, (path, body, response.data)
            if status == 303:
                # Admin forms answer by redirecting back with the message shown there.
                shown = world["admin"].get(response.location).get_data(as_text=True)
                assert "at most 365 days" in shown, (path, body)
    assert Adjudication.select().where(Adjudication.status == "open").count() == entries


def test_a_nul_is_refused_with_a_clear_page(world: dict[str, Any]) -> None:
    page = world["anonymous"].get("/matches?x=%00")
    assert page.status_code == 400 and b"cannot be used here" in page.data
    api = world["anonymous"].post(f"/api/play/{world['token'][0]}", json={"move": "\x00"})
    assert api.status_code == 400 and api.mimetype == "application/problem+json"
    assert "query string" in page.get_data(as_text=True) and "JSON body" in api.json["detail"]
    deep = "[" * 30_000 + "]" * 30_000
    nested = world["anonymous"].post(f"/api/play/{world['token'][0]}", data=deep,
                                     content_type="application/json")
    assert nested.status_code == 400 and "nested too deeply" in nested.json["detail"]
