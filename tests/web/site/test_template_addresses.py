"""Templates' `url_for` remembers the addresses it built: each must be the one Flask builds, for
whatever mount point, endpoint and arguments, however many were built before."""

from __future__ import annotations

import pytest
from flask import url_for

import pbem.web


@pytest.mark.parametrize("mount", ["", "/pbem"])
def test_every_address_is_the_one_flask_builds(app, mount: str) -> None:
    remembered = app.jinja_env.globals["url_for"]
    calls = [("static", {"filename": "pbem.css"}), ("games.index", {}),
             ("matches.show", {"match_id": 7}), ("matches.show", {"match_id": "7"}),
             ("matches.show", {"match_id": 7, "ply": 3}),
             ("matches.show", {"match_id": 7, "ply": True}),
             ("matches.show", {"match_id": 7, "ply": 1}),
             ("matches.show", {"match_id": 7, "_anchor": "chat"}),
             ("play.show", {"token": "a b/c"}), ("matches.index", {"game": "nim", "page": 2}),
             ("matches.index", {"page": 2, "game": "nim"})]
    for _ in range(2):  # built, then remembered
        with app.test_request_context("/", base_url=f"http://localhost{mount}/"):
            for endpoint, values in calls:
                assert remembered(endpoint, **values) == url_for(endpoint, **values)
                assert remembered(endpoint, **values).startswith(mount + "/")


def test_the_oldest_addresses_make_room(app, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pbem.web, "_RECENT_ADDRESSES", 3)
    remembered = pbem.web._remembering_url_for()
    with app.test_request_context("/"):
        for _ in range(2):
            for match_id in range(10):
                assert remembered("matches.show", match_id=match_id) == f"/matches/{match_id}"
