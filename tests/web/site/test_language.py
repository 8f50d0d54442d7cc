"""Which language a page speaks: the player's setting, else the switch's cookie, else the
browser's Accept-Language, else English; the switch on every page; mail in the recipient's."""

from __future__ import annotations

import re

from pbem.core.accounts.models import Player
from tests.support.players import csrf_from, sign_in


def _lang(html: bytes) -> str:
    return re.search(rb'<html lang="([a-z]+)"', html).group(1).decode()


def test_english_without_any_choice(client) -> None:
    assert _lang(client.get("/games").data) == "en"


def test_the_browser_chooses_when_nobody_else_did(client) -> None:
    assert _lang(client.get("/games", headers={"Accept-Language": "de-DE,de;q=0.9"}).data) == "de"
    assert _lang(client.get("/games", headers={"Accept-Language": "fr, ja;q=0.5"}).data) == "ja"
    assert _lang(client.get("/games", headers={"Accept-Language": "fr"}).data) == "en"


def test_the_switch_is_on_every_page_and_comes_back_to_it(client) -> None:
    page = client.get("/matches?game=mimic")
    assert b'action="/language"' in page.data and b'value="ja"' in page.data
    switched = client.post("/language", data={"language": "ja", "next": "/matches?game=mimic"})
    assert switched.status_code == 303
    assert switched.headers["Location"] == "/matches?game=mimic"
    assert "pbem_lang=ja" in switched.headers["Set-Cookie"]
    # The cookie outranks the browser's own preference.
    assert _lang(client.get("/games", headers={"Accept-Language": "de"}).data) == "ja"


def test_the_switch_never_sends_a_browser_elsewhere_or_takes_an_unknown_language(client) -> None:
    answer = client.post("/language", data={"language": "xx", "next": "//evil.example/"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    assert "Set-Cookie" not in answer.headers


def test_a_signed_in_players_choice_is_kept_and_outranks_the_browser(client, worker,
                                                                      smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    client.post("/language", data={"language": "de", "next": "/me"})
    assert Player.get(Player.email == "ann@example.org").language == "de"
    client.delete_cookie("pbem_lang")
    assert _lang(client.get("/me", headers={"Accept-Language": "ja"}).data) == "de"


def test_the_settings_form_sets_the_language(client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    token = csrf_from(client.get("/me/settings").data)
    saved = client.post("/me/settings", data={"csrf_token": token, "name": "", "timezone": "",
                                              "language": "ja"})
    assert saved.status_code == 303
    assert Player.get(Player.email == "ann@example.org").language == "ja"
    assert b'<option value="ja" lang="ja" selected' in client.get("/me/settings").data
    refused = client.post("/me/settings", data={"csrf_token": token, "name": "",
                                                "timezone": "", "language": "xx"})
    assert refused.status_code == 422


def test_the_api_sets_the_language(client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    ann = Player.get(Player.email == "ann@example.org")
    from pbem.core.accounts import api_tokens
    _row, token = api_tokens.create(client.application.config["PBEM_SETTINGS"].secret_key, ann,
                                    "t", ann.created_at, scopes=["read", "play", "account"])
    auth = {"Authorization": f"Bearer {token}"}
    answer = client.put("/api/me/settings", json={"language": "de"}, headers=auth)
    assert answer.status_code == 200 and answer.json["language"] == "de"
    assert client.put("/api/me/settings", json={"language": "xx"},
                      headers=auth).status_code == 422
    assert client.put("/api/me/settings", json={"language": 3}, headers=auth).status_code == 400
