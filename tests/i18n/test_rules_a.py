"""The rules pages and boards of Mimic, Mimic Taking and Move In Synch read in German and
Japanese: their headings are translated and no paragraph of the English rules is left.

Needs the compiled catalogs (pbem/translations/*/LC_MESSAGES/messages.mo) to hold this area's
sentences.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file

from pbem import i18n
from pbem.games import REGISTRY
from tests.conftest import ON_SQLITE
from tests.support.render import render

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "games"
GAMES = ("mimic", "mimic-taking", "move-in-synch")
HEADINGS = {
    "mimic": {"de": ["Brett und Aufstellung", "Gewinnen", "Stellungstext"],
              "ja": ["盤と初期配置", "勝利", "局面テキスト"]},
    "mimic-taking": {"de": ["Karten und Runden", "Ein Stich", "Rundenende und Wertung"],
                     "ja": ["カードとラウンド", "トリック", "ラウンドの終了と得点"]},
    "move-in-synch": {"de": ["Die Variante: Der Richtungsgeber wählt zuerst", "Auslegungen"],
                      "ja": ["バリアント: 方向役が先に選ぶ", "裁定"]},
}


def _flat(html: str) -> str:
    return re.sub(r"\s+", " ", html)


def _sentences(slug: str) -> list[str]:
    """The rules page's marked paragraphs long enough not to be a word another page shares."""
    found = extract_from_file("jinja2", str(TEMPLATES / slug / "rules.html"),
                              keywords={"_": None, "gettext": None}, options={"trimmed": "true"})
    return [message for _line, message, _c, _ctx in found
            if isinstance(message, str) and len(message) > 40]


@ON_SQLITE
@pytest.mark.parametrize("code", ["de", "ja"])
@pytest.mark.parametrize("slug", GAMES)
def test_the_rules_page_is_translated_whole(client, slug: str, code: str) -> None:
    english = _flat(client.get(f"/games/{slug}", headers={"Accept-Language": "en"})
                    .get_data(as_text=True))
    page = client.get(f"/games/{slug}", headers={"Accept-Language": code})
    assert page.status_code == 200
    text = _flat(page.get_data(as_text=True))
    assert f'lang="{code}"' in text
    for heading in HEADINGS[slug][code]:
        assert f"<h2>{heading}</h2>" in text
    sentences = _sentences(slug)
    assert len(sentences) > 15
    for sentence in sentences:
        assert sentence in english  # the English page says it as marked...
        assert sentence not in text, sentence  # ...and the translated one does not


def _a_view(slug: str):
    rules = REGISTRY[slug]
    state = rules.new_game(min(rules.player_counts), {}, 7)
    for _ in range(3):
        seat = min(rules.to_move(state))
        state = rules.apply_move(state, seat, rules.legal_moves(state, seat)[0]).state
    seat = min(rules.to_move(state))
    legal = [rules.format_move(state, m) for m in rules.legal_moves(state, seat)]
    return rules.view(state, seat), seat, legal


@pytest.mark.parametrize(("slug", "code", "words"), [
    ("mimic", "ja", ["直前の手", "青は北へ進み", "凍結した駒"]),
    ("mimic", "de", ["Letzter Zug", "Blau zieht nach Norden", "eingefrorener Stein"]),
    ("mimic-taking", "ja", ["あなたの手札", "現在のトリック", "プレイヤー"]),
    ("mimic-taking", "de", ["Deine Hand", "Aktueller Stich", "Gesamt"]),
    ("move-in-synch", "ja", ["方向役", "空き"]),
    ("move-in-synch", "de", ["gibt die Richtung", "leer"]),
])
def test_the_boards_speak_the_language(slug: str, code: str, words: list[str]) -> None:
    view, seat, legal = _a_view(slug)
    with i18n.language(code):
        board = render(f"games/{slug}/board.html", view=view, seat=seat, legal_moves=legal)
        table = render(f"games/{slug}/board_table.html", view=view, seat=seat)
    for word in words:
        assert word in board
    assert words[0] in table or words[-1] in table
    for english in ("Last move", "Your hand", "to move.", "Key to the board", "directs,"):
        assert english not in board and english not in table
