"""The admin console speaks the reader's language: the login page, the adjudication queue, a
queue entry and a player's page read in German and Japanese when the browser asks for them,
with the stored words (statuses, policies) shown translated and English left as it was."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.accounts.admins import create_admin
from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication
from pbem.core.matches.sweep import sweep
from tests.conftest import ON_SQLITE, START
from tests.web.admin.test_queue import PASSWORD, csrf_from

WORDS = {
    "de": {"login": ["Admin-Anmeldung", "Passwort", "Anmelden"],
           "queue": ["Entscheidungs-Warteschlange", "E-Mails an sie", "Über Nr.",
                     "Admin entscheidet", "Abmelden"],
           "entry": ["Belege", "Säumiger Spieler", "Entscheidung treffen",
                     "die Partie für Remis erklären"],
           "player": ["E-Mail-Status", "Links neu senden", "Sitzungen beenden", "Partien"]},
    "ja": {"login": ["管理者ログイン", "パスワード", "ログイン"],
           "queue": ["裁定キュー", "このプレイヤーへのメール", "を裁定する", "管理者が裁定",
                     "ログアウト"],
           "entry": ["判断材料", "遅れているプレイヤー", "裁定を下す", "対局を引き分けとする"],
           "player": ["メールの状態", "リンクを再送", "セッションを終了", "対局"]},
}
ENGLISH = {"login": ["Admin login", "Password"],
           "queue": ["Adjudication queue", "Mail to them", "Rule on #"],
           "entry": ["Evidence", "Late player", "Make ruling", "declare the match drawn"],
           "player": ["Mail status", "Resend links", "Revoke sessions"]}


def _pages(settings, client, clock, language: str) -> dict[str, str]:
    headers = {"Accept-Language": language}
    login = client.get("/admin/login", headers=headers)
    create_admin("ref@club.org", PASSWORD, START)
    reply = client.post("/admin/login", headers=headers,
                        data={"email": "ref@club.org", "password": PASSWORD,
                              "csrf_token": csrf_from(login.data)})
    assert reply.status_code == 303
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, clock.now, time_control="45s").match
    sweep(clock.now + timedelta(minutes=1), timedelta(minutes=10))
    entry = Adjudication.get(Adjudication.match == match)
    player = Player.get(Player.email == "ann@example.org")
    return {"login": login.data.decode(),
            "queue": client.get("/admin", headers=headers).data.decode(),
            "entry": client.get(f"/admin/adjudications/{entry.id}", headers=headers).data.decode(),
            "player": client.get(f"/admin/players/{player.id}", headers=headers).data.decode()}


@ON_SQLITE
@pytest.mark.parametrize("language", ["de", "ja"])
def test_the_admin_console_reads_in_the_browsers_language(settings, client, clock,
                                                          language: str) -> None:
    pages = _pages(settings, client, clock, language)
    for name, page in pages.items():
        assert f'<html lang="{language}"' in page, name
        for word in WORDS[language][name]:
            assert word in page, (language, name, word)
        for english in ENGLISH[name]:
            assert english not in page, (language, name, english)


@ON_SQLITE
def test_the_admin_console_stays_english_by_default(settings, client, clock) -> None:
    pages = _pages(settings, client, clock, "en")
    for name, page in pages.items():
        for english in ENGLISH[name]:
            assert english in page, (name, english)


@ON_SQLITE
def test_a_refused_login_is_told_in_the_browsers_language(client) -> None:
    create_admin("ref@club.org", PASSWORD, START)
    token = csrf_from(client.get("/admin/login").data)
    wrong = client.post("/admin/login", headers={"Accept-Language": "ja"},
                        data={"email": "ref@club.org", "password": "nope", "csrf_token": token})
    assert wrong.status_code == 401
    assert "メールアドレスまたはパスワードが違います。" in wrong.data.decode()
