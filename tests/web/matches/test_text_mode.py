"""Text mode on the play page: the toggle first after the skip link, the player's setting,
the board replaced by a command line whose commands answer and whose moves are made with the
same refusals, every answer in a live region, in English, German and Japanese."""

from __future__ import annotations

import re

import pytest

from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from tests.conftest import START

PAIR = ["ann@example.org", "ben@example.org"]


def _answers(page: str) -> str:
    found = re.search(r'<div id="text-mode"[^>]*role="status"[^>]*>(.*?)</div>', page, re.S)
    assert found, "the live region is on the page"
    return found.group(1)


def test_text_mode_is_a_setting_and_a_command_line(settings, client) -> None:
    created = create_match("mimic", PAIR, {}, settings.secret_key, START, seed=3)
    url = f"/play/{created.tokens[0]}"
    page = client.get(url).get_data(as_text=True)
    # The first control after the skip link, before the site's own links.
    skip = page.index('class="skip-link"')
    assert skip < page.index('action="' + url + '/text-mode"') < page.index('class="brand"')
    assert 'aria-pressed="false"' in page and 'id="text-line"' not in page
    assert 'id="move-form"' in page and 'id="pbem-clicks"' in page
    on = client.post(f"{url}/text-mode", data={"text_mode": "on"}, follow_redirects=True)
    shown = on.get_data(as_text=True)
    assert Player.get(Player.email == PAIR[0]).text_mode
    assert 'id="text-line"' in shown and "<svg class=\"board" not in shown
    # The command line replaces the move form and the board's click controls too.
    assert 'id="move-form"' not in shown and 'id="pbem-clicks"' not in shown
    assert "Text mode is on" in _answers(shown)
    asked = client.post(f"{url}/text", data={"line": "row 2", "ply": "0"},
                        follow_redirects=True).get_data(as_text=True)
    assert "row 2: Row 2: b2 B, c2 B" in _answers(asked)
    refused = client.post(f"{url}/text", data={"line": "b2-b9", "ply": "0"},
                          follow_redirects=True).get_data(as_text=True)
    assert "Not played:" in _answers(refused) and Match.get().ply == 0
    legal = client.get(f"/api/play/{created.tokens[0]}").get_json()["legal_moves"][0]
    made = client.post(f"{url}/text", data={"line": legal, "ply": "0"},
                       follow_redirects=True).get_data(as_text=True)
    assert f"Your move {legal} was made." in _answers(made) and Match.get().ply == 1
    assert client.get(f"/api/play/{created.tokens[0]}").get_json()["text_mode"] is True
    off = client.post(f"{url}/text-mode", data={"text_mode": "off"}, follow_redirects=True)
    assert "<svg class=\"board" in off.get_data(as_text=True)
    assert not Player.get(Player.email == PAIR[0]).text_mode


@pytest.mark.parametrize(("code", "words"), [("de", "Textmodus"), ("ja", "テキストモード")])
def test_text_mode_speaks_the_page_language(settings, client, code: str, words: str) -> None:
    created = create_match("mimic-taking", [*PAIR, "cy@example.org"], {},
                           settings.secret_key, START, seed=3)
    url = f"/play/{created.tokens[0]}"
    client.set_cookie("pbem_lang", code)
    client.post(f"{url}/text-mode", data={"text_mode": "on"})
    asked = client.post(f"{url}/text", data={"line": "hand", "ply": "0"},
                        follow_redirects=True).get_data(as_text=True)
    assert words in asked and "hand: " in _answers(asked)
    assert "Your hand" not in _answers(asked)


def test_the_match_page_has_a_read_only_text_view(settings, client) -> None:
    created = create_match("mimic", PAIR, {}, settings.secret_key, START, seed=3)
    url = f"/matches/{created.match.id}"
    page = client.get(url).get_data(as_text=True)
    skip = page.index('class="skip-link"')
    assert skip < page.index('class="text-toggle"') < page.index('class="brand"')
    assert 'aria-pressed="false"' in page and 'id="text-line"' not in page
    shown = client.get(f"{url}?text=on").get_data(as_text=True)
    assert 'id="text-line"' in shown and "<svg class=\"board" not in shown
    assert 'aria-pressed="true"' in shown
    asked = client.get(f"{url}?text=on&line=row+2").get_data(as_text=True)
    assert "row 2: Row 2: b2 B, c2 B" in _answers(asked)
    legal = client.get(f"/api/play/{created.tokens[0]}").get_json()["legal_moves"][0]
    refused = client.get(f"{url}?text=on&line={legal}").get_data(as_text=True)
    assert "not a command" in _answers(refused) and Match.get().ply == 0
    assert "<svg class=\"board" in client.get(f"{url}?text=off").get_data(as_text=True)


def test_last_numbers_moves_as_played_and_the_analysis_board_follows_text_mode(
        settings, client) -> None:
    """The play page lists only its latest moves: `last` still numbers them as played. The
    analysis board in text mode has no board picture, but a place for the line as text."""
    created = create_match("mimic", PAIR, {}, settings.secret_key, START, seed=3)
    for ply in range(12):
        token = created.tokens[ply % 2]
        legal = client.get(f"/api/play/{token}").get_json()["legal_moves"][0]
        assert client.post(f"/api/play/{token}", json={"move": legal, "ply": ply}).status_code \
            == 200
    url = f"/play/{created.tokens[0]}"
    assert 'id="analysis-board"' in client.get(url).get_data(as_text=True)
    client.post(f"{url}/text-mode", data={"text_mode": "on"})
    asked = client.post(f"{url}/text", data={"line": "last 2", "ply": "12"},
                        follow_redirects=True).get_data(as_text=True)
    assert re.search(r"last 2: 11\. Blue \S+; 12\. Red \S+\.", _answers(asked)), _answers(asked)
    analysis = asked[asked.index('id="analysis"'):]
    assert 'data-text-mode="on"' in analysis and 'id="analysis-board"' not in analysis
    assert 'id="analysis-text"' in analysis and 'id="analysis-said"' in analysis
