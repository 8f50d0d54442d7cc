"""The players' routes fuzzed as a signed-in player (cookie) and as an API client (Bearer):
arbitrary ids, forms and JSON bodies get an answer below 500, and problem+json under /api/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.core.accounts import api_tokens, sessions
from pbem.core.accounts.models import Player, SessionKind
from pbem.core.lobby import challenges
from pbem.core.lobby.challenges import ChallengeRequest
from pbem.core.matches.creation import create_match
from pbem.web import create_app
from tests.conftest import START, SUPPORT_TEMPLATES, make_settings

PREFIXES = ("/api/me", "/api/challenges", "/api/seeks", "/api/matches/<int:match_id>/rematch",
            "/me", "/challenges", "/seeks", "/invites", "/signin",
            "/matches/<int:match_id>/rematch")
_TEXT = st.one_of(st.text(st.characters(exclude_categories=["Cs"]), max_size=20),
                  st.sampled_from(["", "nim", "bids", "ben@example.org", "2d", "3", "-1",
                                   "9" * 400, "pile=2", "pile=x", "as-listed", "random",
                                   "forfeit", "x@", "=?utf-8?q?a?=@b.org", "Europe/Paris"]))
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8)
_BODY = st.fixed_dictionaries({}, optional={
    "game": st.sampled_from(["nim", "bids", "mimic"]) | _JSON,
    "opponents": st.lists(st.sampled_from(["ben@example.org", "cy@example.org"]) | _TEXT,
                          max_size=3) | _JSON,
    "options": st.dictionaries(st.sampled_from(["pile", "hand"]) | _TEXT, _JSON, max_size=2),
    "clock": _TEXT, "on_timeout": _TEXT, "seat_order": _TEXT, "players": _JSON,
}) | _JSON
FIELDS = ["game", "opponents", "options", "clock", "on_timeout", "seat_order", "players",
          "name", "timezone", "email", "next"]


@pytest.fixture
def world(db_url: str, tmp_path: Path, clock) -> dict[str, Any]:
    settings_ = make_settings(db_url, tmp_path)
    app = create_app(settings_, extra_template_dirs=(SUPPORT_TEMPLATES,), clock=clock)
    app.config.update(TESTING=True, CSRF_ENABLED=False)
    ann = Player.for_email("ann@example.org", START)
    ben = Player.for_email("ben@example.org", START)
    match = create_match("nim", [ann.email, ben.email], {"pile": 1}, settings_.secret_key,
                         START).match
    challenge = challenges.create_challenge(settings_, ben, ChallengeRequest("nim", [ann.email]),
                                            START)
    browser = app.test_client()
    policy = sessions.SessionPolicy.from_days(14, 90)
    browser.set_cookie("pbem_player", sessions.start(settings_.secret_key, SessionKind.PLAYER,
                                                     START, policy, player=ann))
    _, token = api_tokens.create(settings_.secret_key, ann, "fuzz", START,
                                 scopes=("read", "play", "account"))
    return {"app": app, "browser": browser, "bearer": {"Authorization": f"Bearer {token}"},
            "match_id": match.id, "challenge_id": challenge.id, "seek_id": 1, "token_id": 1,
            "session_id": 1, "seat": 0}


def _routes(app) -> list[tuple[str, str]]:
    return sorted({(rule.rule, method) for rule in app.url_map.iter_rules()
                   if rule.rule.startswith(PREFIXES)
                   for method in rule.methods - {"HEAD", "OPTIONS"}})


def test_player_routes_never_answer_a_server_error(world: dict[str, Any]) -> None:
    routes = _routes(world["app"])
    assert len(routes) >= 25, routes
    for rule, method in routes:
        _fuzz(world, rule, method)


def _fuzz(world: dict[str, Any], rule: str, method: str) -> None:
    @settings(max_examples=8)
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        def value(match: re.Match[str]) -> str:
            known = world.get(match.group(2))
            if match.group(1) == "int":
                return str(data.draw(st.sampled_from([known or 1, 0, 2**31 - 1])))
            return data.draw(st.sampled_from(["x", "pbem_x", "A" * 43, "%00", "a.b"]))

        path = re.sub(r"<(?:(\w+):)?(\w+)>", value, rule)
        kwargs: dict[str, Any] = {}
        if path.startswith("/api/"):
            kwargs["headers"] = world["bearer"]
            if method == "POST":
                kwargs["json"] = data.draw(_BODY)
        elif method == "POST":
            kwargs["data"] = data.draw(st.dictionaries(st.sampled_from(FIELDS), _TEXT,
                                                       max_size=6))
        with world["browser"].open(path, method=method, **kwargs) as response:
            assert response.status_code < 500, (method, path, kwargs, response.data[:400])
            if path.startswith("/api/") and response.status_code >= 400:
                assert response.mimetype == "application/problem+json"

    fuzz()
