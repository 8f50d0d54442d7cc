"""The accounts' pages read in German and Japanese: signing in, the player's home and settings,
mail preferences, a player's public page, a leaderboard and the error pages, with none of
their English sentences left (the catalogs' words; notation, names and addresses stay)."""

from __future__ import annotations

import html as html_lib
import re
from datetime import timedelta

import pytest

from pbem.core.accounts.models import Player
from pbem.core.db.connection import bind_database
from pbem.core.mailout import links
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Resign
from pbem.web import create_app
from tests.conftest import (
    ON_SQLITE,
    POSTGRES_URL,
    START,
    SUPPORT_TEMPLATES,
    free_port,
    make_settings,
)
from tests.support.players import sign_in

ANN, BEN = "ann@example.org", "ben@example.org"

# Per page: sentences the English page shows, which must be gone in German and Japanese, and
# what each language's page says instead.
SIGN_IN = ("No password: we email you a link", "Your email address", "Email me a sign-in link")
HOME = ("Your games", "Signed in as", "Challenge someone", "Challenges for you",
        "Your turn", "public page", "Replace my link", "You won")
SETTINGS = ("Display name", "Time zone for deadlines", "Players you blocked",
            "Your page in the archive", "Signed-in browsers", "API tokens", "Make a token",
            "read my matches, challenges and seeks")
MAIL = ("Which emails do you want?", "Every event, as it happens", "Send the daily digest at",
        "Subscribe to this address", "Replace the calendar link", "Counted in a daily digest")
PLAYER = ("finished matches", "Head-to-head against", "By game", "In play",
          "Recent results", "rated games", "on the leaderboard")
BOARD = ("leaderboard", "Players with at least", "How ratings are computed", "Rank", "Rating")
MISSING = ("Not found", "There is nothing at this address.", "Back to the start page")

SAID = {
    "de": {"signin": "Anmeldelink per E-Mail schicken", "home": "Deine Partien",
           "turn": "Du bist am Zug", "settings": "Anzeigename",
           "mail": "Welche E-Mails möchtest du bekommen?", "player": "Direkter Vergleich mit",
           "board": "Rangliste", "missing": "Unter dieser Adresse gibt es nichts."},
    "ja": {"signin": "ログイン用リンクをメールで受け取る", "home": "あなたの対局",
           "turn": "あなたの手番", "settings": "表示名", "mail": "どのメールを受け取りますか",
           "player": "直接対決の相手", "board": "ランキング",
           "missing": "このアドレスには何もありません。"},
}


def _text(page: bytes) -> str:
    """What a reader sees: the body's text and its attributes a person reads, tags dropped."""
    body = page.decode().split("<main", 1)[1].split("</main>", 1)[0]
    said = re.findall(r'(?:title|placeholder|alt|aria-label|data-label)="([^"]*)"', body)
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", body)
    return html_lib.unescape(" ".join([text, *said]))


def _english_left(page: bytes, sentences: tuple[str, ...]) -> list[str]:
    text = _text(page)
    return [s for s in sentences if re.search(rf"(?<![\w/.-]){re.escape(s)}(?![\w/.-])", text)]


def _speak(client, code: str) -> None:
    client.set_cookie("pbem_lang", code)


@ON_SQLITE
@pytest.mark.parametrize("code", ["de", "ja"])
def test_signing_in_home_and_settings_speak_the_language(code, client, worker, smtp, settings,
                                                         clock) -> None:
    create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now, time_control="2d")
    over = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now).match
    apply_change(over.id, Resign(seat=1), clock.now)
    _speak(client, code)
    form = client.get("/signin")
    assert SAID[code]["signin"] in form.data.decode()
    assert _english_left(form.data, SIGN_IN) == []
    sign_in(client, ANN, worker, smtp)
    Player.update(language=code).where(Player.email == ANN).execute()
    home = client.get("/me")
    assert f'<html lang="{code}">' in home.data.decode()
    assert SAID[code]["home"] in home.data.decode() and SAID[code]["turn"] in home.data.decode()
    assert _english_left(home.data, HOME) == []
    page = client.get("/me/settings")
    assert SAID[code]["settings"] in page.data.decode()
    assert _english_left(page.data, SETTINGS) == []


@ON_SQLITE
@pytest.mark.parametrize("code", ["de", "ja"])
def test_mail_preferences_speak_the_language(code, client, settings) -> None:
    player = Player.for_email(ANN, START)
    _speak(client, code)
    page = client.get(f"/mail/preferences/"
                      f"{links.preferences_token(settings.secret_key, player.id)}")
    assert page.status_code == 200
    assert SAID[code]["mail"] in page.data.decode()
    assert _english_left(page.data, MAIL) == []


@ON_SQLITE
@pytest.mark.parametrize("code", ["de", "ja"])
def test_a_player_page_and_the_leaderboard_speak_the_language(code, app, client) -> None:
    for n in range(12):
        match = create_match("nim", [ANN, BEN], {}, "test-secret-key",
                             START + timedelta(minutes=n), rated=True).match
        apply_change(match.id, Resign(seat=1), START + timedelta(minutes=n))
    Player.update(name="Ann").where(Player.email == ANN).execute()
    _speak(client, code)
    player = client.get("/players/Ann?vs=ben", headers={"Accept-Language": "en"})
    assert player.status_code == 200
    assert SAID[code]["player"] in player.data.decode()
    assert _english_left(player.data, PLAYER) == []
    board = client.get("/ratings/nim")
    assert SAID[code]["board"] in board.data.decode()
    assert _english_left(board.data, BOARD) == []


@ON_SQLITE
@pytest.mark.parametrize("code", ["de", "ja"])
def test_a_missing_page_speaks_the_browser_language(code, client) -> None:
    page = client.get("/no/such/page", headers={"Accept-Language": code})
    assert page.status_code == 404
    assert SAID[code]["missing"] in page.data.decode()
    assert _english_left(page.data, MISSING) == []


def test_the_database_down_page_speaks_the_browser_language(tmp_path) -> None:
    # Nothing listens on this port: every page is the 503 page, said before any player is read.
    host = POSTGRES_URL.split("@", 1)[1].split("/", 1)[0]
    down = POSTGRES_URL.replace(host, f"127.0.0.1:{free_port()}")
    app = create_app(make_settings(down, tmp_path), extra_template_dirs=(SUPPORT_TEMPLATES,))
    try:
        page = app.test_client().get("/matches", headers={"Accept-Language": "ja"})
        assert page.status_code == 503 and '<html lang="ja">' in page.data.decode()
        assert "データベースに接続できません" in page.data.decode()
        assert "cannot reach its database" not in page.data.decode()
    finally:
        bind_database("sqlite:///:memory:")


@ON_SQLITE
def test_english_pages_keep_their_words(client) -> None:
    page = client.get("/no/such/page")
    assert page.status_code == 404 and _english_left(page.data, MISSING) == list(MISSING)
    assert _english_left(client.get("/signin").data, SIGN_IN) == list(SIGN_IN)
