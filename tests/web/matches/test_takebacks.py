"""Takebacks on the web: the play page's buttons (a partial) and the API's
`POST /api/play/<token>/takeback[/accept|/decline]`, refusals as problem+json or on the page."""

from __future__ import annotations

import re

from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from tests.conftest import START

EMAILS = ["ann@example.org", "ben@example.org"]


def _nim(settings, rated: bool = False):  # type: ignore[no-untyped-def]
    created = create_match("nim", EMAILS, {"pile": "9"}, settings.secret_key, START,
                           rated=rated)
    return created.match.id, created.tokens


def test_the_page_asks_and_the_other_page_accepts(settings, client) -> None:
    match_id, (ann, ben) = _nim(settings)
    page = client.get(f"/play/{ann}").get_data(as_text=True)
    assert "Take back my last move" not in page, "nothing to take back yet"
    assert client.post(f"/api/play/{ann}", json={"move": "take 2", "ply": 0}).status_code == 200
    page = client.get(f"/play/{ann}").get_data(as_text=True)
    assert f'action="/play/{ann}/takeback"' in page
    asked = client.post(f"/play/{ann}/takeback")
    assert asked.status_code == 303
    other = client.get(f"/play/{ben}").get_data(as_text=True)
    assert "asks to take back their last move" in other
    assert f'action="/play/{ben}/takeback/accept"' in other
    assert f'action="/play/{ben}/takeback/decline"' in other
    assert client.post(f"/play/{ben}/takeback/accept").status_code == 303
    assert Match.get_by_id(match_id).ply == 0
    again = client.post(f"/play/{ben}/takeback/accept")
    assert again.status_code == 409
    assert "There is no takeback request to answer." in again.get_data(as_text=True)


def test_the_api_asks_declines_and_refuses_as_problem_json(settings, client) -> None:
    _match_id, (ann, ben) = _nim(settings)
    client.post(f"/api/play/{ann}", json={"move": "take 1", "ply": 0})
    record = client.get(f"/api/play/{ann}").get_json()
    assert record["takeback"] == {"request": True, "refused": None, "answer": False,
                                  "standing": None}
    asked = client.post(f"/api/play/{ann}/takeback")
    assert asked.status_code == 200 and "asked to take back" in asked.get_json()["done"]
    assert client.get(f"/api/play/{ben}").get_json()["takeback"]["standing"] == {
        "seat": 0, "ply": 1, "accepted_by": []}
    declined = client.post(f"/api/play/{ben}/takeback/decline")
    assert declined.status_code == 200 and declined.get_json()["takeback"]["standing"] is None
    refused = client.post(f"/api/play/{ann}/takeback")
    assert refused.status_code == 409
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert "You may ask again after 1 more move" in refused.get_json()["detail"]
    assert client.post("/api/play/not-a-token/takeback").status_code == 404


def test_a_rated_match_refuses_with_its_reason(settings, client) -> None:
    _match_id, (ann, _ben) = _nim(settings, rated=True)
    client.post(f"/api/play/{ann}", json={"move": "take 1", "ply": 0})
    record = client.get(f"/api/play/{ann}").get_json()
    assert record["takeback"]["request"] is False
    assert "rated" in record["takeback"]["refused"]
    assert "Take back my last move" not in client.get(f"/play/{ann}").get_data(as_text=True)
    assert client.post(f"/play/{ann}/takeback").status_code == 409


def test_the_openapi_describes_the_three_endpoints(client) -> None:
    paths = client.get("/api/openapi.json").get_json()["paths"]
    for path in ("takeback", "takeback/accept", "takeback/decline"):
        answers = paths[f"/api/play/{{token}}/{path}"]["post"]["responses"]
        assert "409" in answers and "404" in answers


def test_the_settings_page_keeps_the_takeback_preference(settings, client, worker,
                                                         smtp) -> None:
    from pbem.core.accounts.models import Player
    from tests.support.players import post_form, sign_in
    _nim(settings)
    sign_in(client, EMAILS[0], worker, smtp)
    page = client.get("/me/settings").get_data(as_text=True)
    assert 'name="takebacks"' in page and '<option value="casual" selected>' in page
    saved = post_form(client, "/me/settings", takebacks="never", name="", timezone="",
                      language="")
    assert saved.status_code == 303
    assert Player.get(Player.email == EMAILS[0]).takebacks == "never"
    refused = post_form(client, "/me/settings", takebacks="often")
    assert refused.status_code == 422 and "not a takeback choice" in refused.get_data(
        as_text=True)


def _form_fields(page: str) -> dict[str, str]:
    """The move form's hidden fields, as a browser would send them."""
    form = re.search(r'<form class="move-form".*?</form>', page, re.S)
    assert form is not None, "no move form on the page"
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))


def test_a_page_loaded_before_a_takeback_is_stale_when_the_ply_is_the_same_again(
        settings, client) -> None:
    match_id, (ann, ben) = _nim(settings)
    assert client.post(f"/api/play/{ann}", json={"move": "take 2", "ply": 0}).status_code == 200
    old = _form_fields(client.get(f"/play/{ben}").get_data(as_text=True))
    assert old == {"ply": "1", "takebacks": "0"}
    assert client.post(f"/api/play/{ann}/takeback").status_code == 200
    assert client.post(f"/api/play/{ben}/takeback/accept").status_code == 200
    # Ann moves anew: the match is at ply 1 again, in another position (pile 8, not 7).
    assert client.post(f"/api/play/{ann}", json={"move": "take 1", "ply": 0}).status_code == 200
    assert Match.get_by_id(match_id).ply == 1
    stale = client.post(f"/play/{ben}", data={**old, "move": "take 3"})
    assert stale.status_code == 409
    assert "a move was taken back" in stale.get_data(as_text=True)
    assert Match.get_by_id(match_id).ply == 1, "the stale form changed nothing"
    # The same by the API, with the record's count; a fresh page's form is taken.
    record = client.get(f"/api/play/{ben}").get_json()
    assert record["takebacks"] == 1
    refused = client.post(f"/api/play/{ben}", json={"move": "take 3", "ply": 1, "takebacks": 0})
    assert refused.status_code == 409
    assert refused.headers["Content-Type"] == "application/problem+json"
    fresh = _form_fields(client.get(f"/play/{ben}").get_data(as_text=True))
    assert fresh == {"ply": "1", "takebacks": "1"}
    assert client.post(f"/play/{ben}", data={**fresh, "move": "take 3"}).status_code == 303
    assert Match.get_by_id(match_id).ply == 2
