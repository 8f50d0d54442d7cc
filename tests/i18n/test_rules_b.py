"""The games list, the EXIMO and Frozen Forest rules pages, their boards and the options
controls read in German and Japanese (area rules-b: the rules pages' prose, the shared
parts of every rules page, the two games' board captions)."""

from __future__ import annotations

import re

import pytest

from pbem import i18n
from pbem.games.eximo.rules import EximoRules
from pbem.games.frozen_forest.rules import FrozenForestRules
from tests.conftest import ON_SQLITE
from tests.support.players import sign_in
from tests.support.render import render

GERMAN = {"Accept-Language": "de"}
JAPANESE = {"Accept-Language": "ja"}


def _text(page: bytes) -> str:
    return " ".join(page.decode().split())


@ON_SQLITE
def test_the_games_list_reads_in_german_and_japanese(client) -> None:
    german = _text(client.get("/games", headers=GERMAN).data)
    assert "Fernspiele" in german and "2 Spieler" in german and "3 oder 4 Spieler" in german
    assert "fordere jemanden heraus" in german
    japanese = _text(client.get("/games", headers=JAPANESE).data)
    assert "通信対局のゲーム" in japanese and "2人" in japanese
    for page in (german, japanese):
        assert "Correspondence games" not in page and "challenge someone" not in page
        assert " players" not in page


@ON_SQLITE
@pytest.mark.parametrize(("headers", "words", "shared"), [
    (GERMAN, ("Schlagen ist Pflicht", "Unsere Auslegungen",
              "Züge schreiben", "Stellungstext"),
     ("Eine Partie vorzeitig beenden", "Gegen die Stufe darunter", "Regelversion 1")),
    (JAPANESE, ("捕獲は義務です", "当サーバーでの裁定", "手の書き方", "局面テキスト"),
     ("対局を途中で終える", "1つ下のレベル相手", "ルールのバージョン 1")),
])
def test_the_eximo_rules_page_reads_in_german_and_japanese(client, headers, words,
                                                           shared) -> None:
    page = _text(client.get("/games/eximo", headers=headers).data)
    for needle in (*words, *shared):
        assert needle in page, needle
    # The notation and the position text stay as they are written in every language.
    for notation in ("d6xd8 drop c1 d1", "e4xe6xg6", "b1-a2",
                     "1wwwwww1/1wwwwww1/1ww2ww1/8/8/1bb2bb1/1bbbbbb1/1bbbbbb1 b"):
        assert notation in page, notation
    for english in ("Capturing is compulsory", "Rulings we apply", "Writing moves",
                    "Ending a match early", "Against the level below", "rules version",
                    "When a player runs out of time", "Play the computer"):
        assert english not in page, english


@ON_SQLITE
def test_the_frozen_forest_rules_page_and_its_options_read_in_japanese(client) -> None:
    page = _text(client.get("/games/frozen-forest", headers=JAPANESE).data)
    assert "視線" in page and "オンまたはオフ" in page
    assert "10, 9 または 8" in page and "<code>forest_size</code>" in page
    assert "Line of sight" not in page and "What it does" not in page


@ON_SQLITE
def test_the_option_controls_read_in_german(client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    page = client.get("/games/frozen-forest", headers=GERMAN).get_data(as_text=True)
    assert "Optionen für Frozen Forest" in page
    assert re.search(r'<option value="10" selected>10 \(Standard\)</option>', page)


def test_the_boards_speak_the_readers_language() -> None:
    eximo = EximoRules()
    start = eximo.new_game(2, {}, 1)
    forest = FrozenForestRules()
    fresh = forest.new_game(2, {}, 1)
    with i18n.language("de"):
        board = render("games/eximo/board.html", view=eximo.view(start, 0), seat=0, legal_moves=[])
        assert "Schwarz ist am Zug." in board
        assert "Verbliebene Steine: Schwarz 16, Weiß 16." in board
        mail = render("games/frozen-forest/board_table.html", view=forest.view(fresh, None),
                      seat=None)
        assert "Spiel 2: Spieler 2 ist Yuki, Spieler 1 ist Mina; noch nicht begonnen." in mail
    with i18n.language("ja"):
        board = render("games/frozen-forest/board.html", view=forest.view(fresh, 0), seat=0,
                       legal_moves=[])
        assert "盤の凡例" in board and "プレイヤー 1" in board and "の手番です。" in board
        mail = render("games/eximo/board_table.html", view=eximo.view(start, None), seat=None)
        assert "黒の手番です。" in mail and "to move" not in mail
