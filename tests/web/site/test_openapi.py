"""The OpenAPI description is true to the app: every JSON route is described and every
described operation is routed, the document is OpenAPI 3.1 that schemathesis accepts, and
answers of a played match fit their schemas. (CI also runs schemathesis against a live server:
`.ci/schemathesis`.)"""

from __future__ import annotations

import re
from typing import Any

import schemathesis
from flask import Flask

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from pbem.web.site.api_description import PATHS, document
from tests.conftest import START

PAIR = ["ann@example.org", "ben@example.org"]
# JSON answered outside /api/: the downloadable record and the waiting pages' polls.
JSON_OUTSIDE_API = {"/matches/<int:match_id>/record.json", "/matches/<int:match_id>/ply",
                    "/play/<token>/ply"}
# The description itself and its page are not operations of the API.
NOT_OPERATIONS = {"/api/openapi.json", "/api/docs"}


def _routed(app: Flask) -> set[tuple[str, str]]:
    found = set()
    for rule in app.url_map.iter_rules():
        if rule.rule in NOT_OPERATIONS:
            continue
        if rule.rule.startswith("/api/") or rule.rule in JSON_OUTSIDE_API:
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}:
                found.add((method.lower(), path))
    return found


def _described() -> set[tuple[str, str]]:
    return {(method, path) for path, methods in PATHS.items() for method in methods}


def test_every_json_route_is_described(app: Flask) -> None:
    assert _routed(app) - _described() == set()


def test_every_described_operation_is_routed(app: Flask) -> None:
    assert _described() - _routed(app) == set()


def test_the_description_is_served_and_browsable(client) -> None:
    answer = client.get("/api/openapi.json")
    assert answer.status_code == 200 and answer.json["openapi"] == "3.1.0"
    page = client.get("/api/docs")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for _, path in _described():
        assert path.replace("{", "&#123;").replace("}", "&#125;") in text or path in text


def test_schemathesis_accepts_the_document() -> None:
    schema = schemathesis.openapi.from_dict(document("http://pbem.test"))
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == len(_described())


def _validate(schema: Any, method: str, path: str, response: Any) -> None:
    operation = schema[path][method.upper()]
    operation.validate_response(response)


def test_a_played_match_answers_as_described(app: Flask, client, settings) -> None:
    created = create_match("mimic", PAIR, {}, settings.secret_key, START)
    token = created.tokens[0]
    ann = Player.get(email=PAIR[0])
    _, bearer = api_tokens.create(settings.secret_key, ann, "test", START,
                                  scopes=("read", "play", "account"))
    headers = {"Authorization": f"Bearer {bearer}"}
    schema = schemathesis.openapi.from_dict(document("http://pbem.test"))
    seat = client.get(f"/api/play/{token}")
    _validate(schema, "get", "/api/play/{token}", seat)
    move = client.post(f"/api/play/{token}",
                       json={"move": seat.json["legal_moves"][0], "ply": 0})
    _validate(schema, "post", "/api/play/{token}", move)
    stale = client.post(f"/api/play/{token}",
                        json={"move": seat.json["legal_moves"][0], "ply": 0})
    assert stale.status_code == 409
    _validate(schema, "post", "/api/play/{token}", stale)
    match_id = created.match.id
    for path, url in (("/api/matches/{match_id}", f"/api/matches/{match_id}"),
                      ("/api/matches", "/api/matches"),
                      ("/matches/{match_id}/record.json", f"/matches/{match_id}/record.json"),
                      ("/matches/{match_id}/ply", f"/matches/{match_id}/ply")):
        _validate(schema, "get", path, client.get(url))
    _validate(schema, "get", "/api/me", client.get("/api/me", headers=headers))
    made = client.post("/api/challenges", headers=headers,
                       json={"game": "mimic", "opponents": ["cy@example.org"]})
    assert made.status_code == 201
    _validate(schema, "post", "/api/challenges", made)
    _validate(schema, "get", "/api/challenges/{challenge_id}",
              client.get(f"/api/challenges/{made.json['id']}", headers=headers))
    _validate(schema, "put", "/api/me/settings",
              client.put("/api/me/settings", headers=headers, json={"digest_hour": 9}))
    _validate(schema, "post", "/api/play/{token}/resign",
              client.post(f"/api/play/{token}/resign"))
