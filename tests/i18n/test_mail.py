"""Mail speaks its reader's language: a German or Japanese player's turn mail, sign-in mail
and the answer to a reply that is no move are written in their language, and the reply
commands the help lists stay the English words a reply must use. Needs the compiled catalogs
(`pbem/translations/*/LC_MESSAGES/messages.mo`)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.accounts.models import Player
from pbem.core.mailout.accounts import request_sign_in_link
from pbem.mail.inbound import handle
from tests.conftest import ON_SQLITE, START, make_settings
from tests.mail.inbound_support import ALICE, as_sent, latest, reply, start

WORDS = {
    "de": {"turn_subject": "Nim (test game), Partie #",
           "turn": "Du bist am Zug",
           "private": "Dein Link ist privat", "sign_in_subject": "Dein Anmeldelink für pbem",
           "sign_in": "Öffne diesen Link innerhalb von", "help": "Um per E-Mail zu spielen",
           "resign": "resign: die Partie aufgeben"},
    "ja": {"turn_subject": "Nim (test game)、対局 #", "turn": "あなたの手番です",
           "private": "あなたのリンクは非公開です", "sign_in_subject": "pbem のログイン用リンク",
           "sign_in": "分以内にこのリンクを開いて", "help": "メールで指すには",
           "resign": "resign: 対局を投了する"},
}
ENGLISH = ("Your turn", "match #", "Your link is private", "Make your move", "Sign in",
           "To play by email", "give up the match")


def _text(mail) -> str:
    return mail.get_body(("plain",)).get_content()


def _html(mail) -> str:
    return mail.get_body(("html",)).get_content()


@ON_SQLITE
@pytest.mark.parametrize("code", ["de", "ja"])
def test_mail_and_answers_are_in_the_players_language(db_url, tmp_path, code) -> None:
    settings = make_settings(db_url, tmp_path, reply_address="play@pbem.test")
    words = WORDS[code]
    start()
    Player.update(language=code).where(Player.email == ALICE).execute()

    turn = as_sent(settings, latest(ALICE))
    assert turn["Subject"].startswith(words["turn_subject"])
    for body in (_text(turn), _html(turn)):
        assert words["turn"] in body and words["private"] in body
        assert not [english for english in ENGLISH if english in body]

    request_sign_in_link(settings, ALICE, "tests", START)
    sign_in = as_sent(settings, latest(ALICE, "sign_in"))
    assert sign_in["Subject"] == words["sign_in_subject"]
    assert words["sign_in"] in _text(sign_in)
    assert "Sign in" not in _text(sign_in) and "Sign in" not in _html(sign_in)

    # A reply that is no move: the help, in the player's language, with the English commands.
    handle(reply(turn, "hello there"), settings, "test", START + timedelta(minutes=5))
    answer = as_sent(settings, latest(ALICE, "inbound_answer"))
    assert answer["Subject"].startswith("Re: " + words["turn_subject"])
    text = _text(answer)
    assert words["help"] in text and words["resign"] in text
    assert not [english for english in ENGLISH if english in text]


@ON_SQLITE
def test_english_stays_english(db_url, tmp_path) -> None:
    settings = make_settings(db_url, tmp_path, reply_address="play@pbem.test")
    start()
    turn = as_sent(settings, latest(ALICE))
    assert turn["Subject"] == "Nim (test game), match #1"
    assert "Your turn in Nim (test game), match #1" in _text(turn)
