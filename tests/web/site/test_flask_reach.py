"""The session serializer writes what Flask's writes, byte for byte (tuples kept as tuples),
and its module runs only on the Flask release it was written for."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from importlib.metadata import version

import pytest
from flask.json.tag import TaggedJSONSerializer
from markupsafe import Markup

from pbem.web import flask_reach
from pbem.web.flask_reach import SessionJSON
from tests.conftest import ON_SQLITE
from tests.support.reaches import refused_at_import

VALUES = [
    {"_flashes": [("ok", "Dein Zug a1-b2 wurde gemacht."), ("error@chat", "…")],
     "csrf_token": "ab" * 20, "count": 3, "flag": True, "none": None, "ratio": 0.5},
    {"_flashes": [("ok", Markup("<b>made</b>"))]},
    {"when": b"bytes", "id": uuid.UUID(int=7), "at": datetime(2026, 1, 5, tzinfo=UTC)},
    {"looks": {" t": ["like a tag"]}, "nested": [[1, (2, 3)], {"a": (None,)}]},
    {"lone": "\ud800", 1: "a number as a key"},
    [(), [], {}, ""],
]


@ON_SQLITE
@pytest.mark.parametrize("value", VALUES)
def test_a_session_is_written_as_flask_writes_it(app, value) -> None:
    ours, flasks = SessionJSON(), TaggedJSONSerializer()
    assert ours.dumps(value) == flasks.dumps(value)
    with app.app_context():  # as a request writes it (Flask's JSON then is the app's)
        written = ours.dumps(value)
        assert written == flasks.dumps(value)
    assert flasks.loads(written) == flasks.loads(flasks.dumps(value))  # JSON's keys are text


def test_a_message_keeps_its_pair_a_tuple() -> None:
    read = SessionJSON().loads(SessionJSON().dumps({"_flashes": [("ok", "made")]}))
    assert read == {"_flashes": [("ok", "made")]} and type(read["_flashes"][0]) is tuple


def test_the_installed_flask_is_the_release_the_module_was_written_for() -> None:
    assert version("flask").split(".")[:2] == flask_reach.WRITTEN_FOR.split(".")


def test_importing_it_under_another_flask_fails_loudly() -> None:
    script = ("import importlib.metadata as m; real = m.version; "
              "m.version = lambda name: '3.2.0' if name == 'flask' else real(name); "
              "import pbem.web.flask_reach")
    refused_at_import(script, "flask", "3.1", "3.2.0")
