"""API tokens carry scopes (read, play, account) and never open an HTML page.

Before, any token could do everything its player can, including reading every seat link (a key
to each seat) from `GET /api/me` and opening `/me` and the other pages: a read-only dashboard's
token could play. Each refusal is a 403 problem+json that names the scope, and changes nothing.
"""

from __future__ import annotations

import re

import pytest

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import ApiToken, Player
from pbem.core.lobby.models import Challenge
from pbem.core.matches.creation import create_match
from tests.conftest import START
from tests.support.players import post_form, sign_in

ANN, BEN = "ann@example.org", "ben@example.org"
CHALLENGE = {"game": "nim", "opponents": [BEN]}


@pytest.fixture
def bearer(settings):
    def make(*scopes: str) -> dict[str, str]:
        _, token = api_tokens.create(settings.secret_key, Player.for_email(ANN, START),
                                     "+".join(scopes), START, scopes=scopes)
        return {"Authorization": f"Bearer {token}"}
    return make


def _refused(reply, scope: str) -> None:
    assert reply.status_code == 403, reply.data
    assert reply.mimetype == "application/problem+json"
    assert f"'{scope}' scope" in reply.get_json()["detail"]


def test_a_read_token_reads_but_sees_no_seat_link_and_cannot_act(client, bearer,
                                                                  settings) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, START)
    read = bearer("read")
    me = client.get("/api/me", headers=read)
    assert me.status_code == 200
    [match] = me.get_json()["matches"]
    assert "link" not in match and "token" not in match
    assert not any(token in me.get_data(as_text=True) for token in created.tokens)
    _refused(client.post("/api/challenges", json=CHALLENGE, headers=read), "play")
    _refused(client.put("/api/me/settings", json={"mail_pref": "off"}, headers=read), "account")
    assert Challenge.select().count() == 0
    assert Player.get(Player.email == ANN).mail_pref != "off"
    assert client.get("/api/seeks", headers=read).status_code == 200


def test_a_play_token_sees_its_seat_links_and_plays_but_keeps_out_of_settings(
        client, bearer, settings) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, START)
    play = bearer("read", "play")
    [match] = client.get("/api/me", headers=play).get_json()["matches"]
    assert match["token"] == created.tokens[0]
    assert client.post("/api/challenges", json=CHALLENGE, headers=play).status_code == 201
    _refused(client.put("/api/me/settings", json={"mail_pref": "off"}, headers=play), "account")


def test_an_account_token_changes_settings_only(client, bearer) -> None:
    account = bearer("account")
    assert client.put("/api/me/settings", json={"mail_pref": "off"},
                      headers=account).status_code == 200
    assert Player.get(Player.email == ANN).mail_pref == "off"
    _refused(client.get("/api/me", headers=account), "read")
    _refused(client.post("/api/challenges", json=CHALLENGE, headers=account), "play")


def test_a_token_never_opens_an_html_page(client, bearer, settings) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, START)
    every = bearer("read", "play", "account")
    for path in ("/me", "/me/settings", "/challenges/new"):
        page = client.get(path, headers=every)
        assert page.status_code in (302, 303), (path, page.status_code)
        assert "/signin" in page.headers["Location"]
        assert not any(token.encode() in page.data for token in created.tokens)


def test_the_settings_page_makes_a_token_with_the_scopes_ticked(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    made = post_form(client, "/me/tokens", page="/me/settings", name="dashboard",
                     scope=["read", "account"])
    assert made.status_code == 201
    assert ApiToken.get().scopes == "read account"
    assert re.search(rb"<td>dashboard</td><td>read, account</td>",
                     client.get("/me/settings").data)
    none = post_form(client, "/me/tokens", page="/me/settings", name="nothing")
    assert none.status_code == 400 and b"Choose what the token may do" in none.data
    odd = post_form(client, "/me/tokens", page="/me/settings", name="odd", scope="admin")
    assert odd.status_code == 400 and b"Unknown token scope(s): admin" in odd.data
    assert ApiToken.select().count() == 1
